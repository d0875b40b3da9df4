#!/usr/bin/env bash
# Sets up the code generators (scripts/bootstrap.sh), builds the `shootout` binary in release
# mode and prints the path of the executable cargo reports it just built (CARGO_TARGET_DIR is
# honoured), never a guessed target/ path. Cargo's own output goes to stderr. The one place
# run_shootout.sh and deploy/ get their binary from.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh >&2
# shellcheck disable=SC1091
[[ -f tools/env.sh ]] && source tools/env.sh
cargo build --release --bin shootout --message-format=json-render-diagnostics \
    | python3 -c '
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
    sys.exit("build-shootout.sh: cargo reported no shootout executable")
print(exe)
'
