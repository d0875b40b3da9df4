#!/usr/bin/env bash
# Runs every fuzz target until 10 million executions or 30 minutes, whichever comes first, two
# at a time, and keeps each target's final libFuzzer statistics in logs/.
# Usage (from fuzz/): ./campaign.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
targets=("$@")
((${#targets[@]})) || targets=(capture iex_segment stream format_decode resync)
mkdir -p logs
[[ -d corpus ]] || cargo run -q --bin seeds -- corpus
run() {
    local t="$1"
    mkdir -p "corpus/$t"
    cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
        -runs=10000000 -max_total_time=1800 -print_final_stats=1 -rss_limit_mb=2048 \
        >"logs/$t.log" 2>&1 || echo "$t: stopped with a finding, see logs/$t.log and artifacts/$t/"
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    run "${targets[i]}" &
    if ((i + 1 < ${#targets[@]})); then run "${targets[i + 1]}" & fi
    wait
done
for t in "${targets[@]}"; do
    echo "== $t"
    grep -E "^stat::|Done [0-9]+ runs|DONE|ERROR|SUMMARY" "logs/$t.log" | tail -8
done
