#!/usr/bin/env bash
# Runs the parser core's tests under Miri (nightly), which checks for undefined behaviour:
# out-of-bounds reads, invalid values, misaligned or dangling pointers, data races.
# The parsers contain no `unsafe`; this checks that what they build on does not misbehave
# on our inputs either. Not part of CI: it takes minutes and needs the nightly miri component.
# Usage: scripts/miri.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup component add --toolchain nightly miri rust-src
fi
# Unit tests of the parsing stages (the 16 MiB window-growth test is skipped: minutes in Miri).
cargo +nightly miri test --lib -- bytes:: capture:: iex:: net:: model:: --skip grows_to_the_window
# Golden messages and every capture variant, truncated at every byte.
cargo +nightly miri test --test it -- iex_golden:: capture::
