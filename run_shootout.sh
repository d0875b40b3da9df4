#!/usr/bin/env bash
# The shootout in one command: sets up the code generators (scripts/bootstrap.sh), builds in
# release mode, then runs `shootout bench` with every argument passed on. `bench` owns the rest:
# the inputs × prefixes × runs matrix, results/<timestamp>/, --resume, the environment and the
# report. See `./run_shootout.sh --help` (bench's help) and README.md.
#
# The binary run is the one cargo reports it just built (scripts/build-shootout.sh; CARGO_TARGET_DIR
# is honoured), never a guessed target/ path. SHOOTOUT_BIN=/path/to/shootout skips the set-up and
# the build and runs that binary instead. Relative paths are relative to the repository.
set -euo pipefail
cd "$(dirname "$0")"

# --help answers at once, without the set-up or a build: bench's help as docs/cli.md keeps it
# (tests/it/cli_doc.rs holds that copy equal to what the binary prints).
for arg in "$@"; do
    if [[ "$arg" == "--help" || "$arg" == "-h" ]] && [[ -z "${SHOOTOUT_BIN:-}" ]]; then
        awk '/^### shootout bench$/ { inside = 1; next }
             inside && /^```text$/ { printing = 1; next }
             printing && /^```$/ { exit }
             printing { print }' docs/cli.md
        exit 0
    fi
done

if [[ -n "${SHOOTOUT_BIN:-}" ]]; then
    bin="$SHOOTOUT_BIN"
    [[ -x "$bin" ]] || { echo "run_shootout.sh: SHOOTOUT_BIN=$bin is not an executable" >&2; exit 2; }
else
    bin="$(scripts/build-shootout.sh)"
fi
exec "$bin" bench "$@"
