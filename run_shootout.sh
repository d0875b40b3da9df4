#!/usr/bin/env bash
# The shootout in one command: sets up the code generators (scripts/bootstrap.sh), builds in
# release mode, then runs `shootout bench` with every argument passed on. `bench` owns the rest:
# the inputs × prefixes × runs matrix, results/<timestamp>/, --resume, the environment and the
# report. See `./run_shootout.sh --help` (bench's help) and README.md.
#
# The binary run is the one cargo reports it just built (CARGO_TARGET_DIR is honoured), never a
# guessed target/ path. SHOOTOUT_BIN=/path/to/shootout skips the set-up and the build and runs
# that binary instead. Relative paths are relative to the repository.
set -euo pipefail
cd "$(dirname "$0")"

# Reads cargo's --message-format=json lines on stdin; prints the `executable` of the `shootout`
# bin artifact (the last one, if cargo reports it twice).
shootout_executable() {
    python3 -c '
import json, sys
exe = None
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    target = msg.get("target") or {}
    if (msg.get("reason") == "compiler-artifact" and target.get("name") == "shootout"
            and "bin" in target.get("kind", []) and msg.get("executable")):
        exe = msg["executable"]
if exe is None:
    sys.exit("run_shootout.sh: cargo reported no shootout executable")
print(exe)
'
}

if [[ -n "${SHOOTOUT_BIN:-}" ]]; then
    bin="$SHOOTOUT_BIN"
    [[ -x "$bin" ]] || { echo "run_shootout.sh: SHOOTOUT_BIN=$bin is not an executable" >&2; exit 2; }
else
    scripts/bootstrap.sh
    # shellcheck disable=SC1091
    [[ -f tools/env.sh ]] && source tools/env.sh
    bin="$(cargo build --release --bin shootout --message-format=json-render-diagnostics \
        | shootout_executable)"
fi
exec "$bin" bench "$@"
