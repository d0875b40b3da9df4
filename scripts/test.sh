#!/usr/bin/env bash
# The whole test suite, as CI runs it: set-up, formatting, lints, tests.
# Usage: scripts/test.sh        (idempotent; quiet set-up when everything is installed)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -x scripts/bootstrap.sh ]]; then
    scripts/bootstrap.sh
fi
if [[ -f tools/env.sh ]]; then
    # shellcheck disable=SC1091
    source tools/env.sh
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --quiet --all-targets
# Doc tests run separately: --all-targets skips them.
cargo test --quiet --doc
