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
# The git index as the clone left it: a build that refreshes it (`git status` in build.rs, which
# watches it) makes the next build compile again; checked after the builds below.
index_before="$(stat -c %.9Y "$(git rev-parse --absolute-git-dir 2>/dev/null)/index" 2>/dev/null || true)"

echo "== one direction of imports, short functions (issue 27)"
python3 scripts/imports.py src
python3 scripts/long_functions.py src --at-most 0
echo "== deploy/: manifests (kubeconform), scripts (shellcheck), refusals of run-day.sh and submit.sh"
tests/deploy/test-deploy.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --all-targets --quiet -- -D warnings
echo "== cargo doc (lib.rs denies broken intra-doc links)"
cargo doc --no-deps --quiet
echo "== benches, once each in test mode (so they cannot rot)"
# `--bench '*'`, not `--benches`: the latter counts the library as a bench target too and ran its
# unit tests a second time (67 s of a fresh-clone CI).
cargo test --quiet --bench '*'
echo "== cargo test, and beside it the release build ./run_shootout.sh runs"
# The release build is made here, so that after CI the first result is the runs, not a build.
# It runs beside the tests (target/release has a lock of its own): 110 s of its 175 s are the
# crate's one codegen unit on one core, and the tests keep both cores only 86% busy (measured
# one after the other on this 2-core VM: tests 219 s, release build 175 s; docs/BENCHMARKS.md).
log="$(mktemp)"
release_log="$(mktemp)"
exe_file="$(mktemp)"
scripts/build-shootout.sh >"$exe_file" 2>"$release_log" &
release=$!
trap 'kill "$release" 2>/dev/null || true; rm -f "$log" "$release_log" "$exe_file"' EXIT
cargo test --quiet --lib --bins --tests 2>&1 | tee "$log"
awk '/^test result:/ { passed += $4; failed += $6 }
     END { printf "tests: %d passed, %d failed\n", passed, failed }' "$log"
if ! wait "$release"; then
    cat "$release_log" >&2
    echo "error: the release build failed (its output above)" >&2
    exit 1
fi
grep -v '^ *\(Compiling\|Finished\|Blocking\)' "$release_log" >&2 || true
exe="$(cat "$exe_file")"
echo "== each A/A twin and positive control times code of its own (issue 46)"
python3 scripts/twin_copies.py "$exe" raw sbe
echo "== the same build again finds everything fresh (what ./run_shootout.sh will find)"
stale="$(cargo build --release --bin shootout --message-format=json 2>/dev/null \
    | python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and not msg.get("fresh"):
        print(msg["target"]["name"])
')"
if [[ -n "$stale" ]]; then
    echo "error: a second release build compiled again: $stale (a build script watches a file it writes?)" >&2
    exit 1
fi
index_after="$(stat -c %.9Y "$(git rev-parse --absolute-git-dir 2>/dev/null)/index" 2>/dev/null || true)"
if [[ "$index_before" != "$index_after" ]]; then
    echo "error: the builds rewrote the git index, which build.rs watches: the next build compiles again (git without --no-optional-locks?)" >&2
    exit 1
fi
