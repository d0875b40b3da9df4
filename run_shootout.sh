#!/usr/bin/env bash
# Runs the shootout: sets up the code generators, builds in release mode if needed, runs every
# format over the input a few times and prints each run's results table. Everything a run writes
# goes under results/<timestamp>/: runs.csv (one row per format per run), hist/ (HdrHistogram
# .hgrm files per run, format and side), summary.csv (the per-symbol aggregation every format
# agreed on) and environment.txt (machine, kernel, compiler, revision, load).
set -euo pipefail
cd "$(dirname "$0")"

usage() {
    cat <<'USAGE'
Usage: ./run_shootout.sh [options] [INPUT...]

INPUT       capture files (pcap/pcapng, gzip'd or not); default: data/sample-deep.pcapng.gz
--runs N    runs per input (default 3)
--formats L comma-separated formats (default: all; see `shootout run --help`)
--verify    also decode every packet back and compare it field by field with the source
--label T   text stored in the CSV `label` column (default: normal)
--warmup N  packets run through every format before times are recorded (default 1000)
--quick     one run on the first 20000 packets' worth of the sample (for smoke tests)
--out DIR   results folder (default: results/<UTC timestamp>)
-h, --help  this text
USAGE
}

runs=3 formats="" verify="" label="normal" warmup=1000 quick="" out="" inputs=()
while (($#)); do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --formats) formats="$2"; shift 2 ;;
        --verify) verify="--verify"; shift ;;
        --label) label="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --quick) quick=1; runs=1; shift ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run_shootout.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) inputs+=("$1"); shift ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_shootout.sh: --runs needs a positive number" >&2; exit 2; }
((${#inputs[@]})) || inputs=(data/sample-deep.pcapng.gz)
for f in "${inputs[@]}"; do
    [[ -f "$f" ]] || { echo "run_shootout.sh: $f: no such file" >&2; exit 2; }
done

scripts/bootstrap.sh
[[ -f tools/env.sh ]] && source tools/env.sh
cargo build --release --quiet --bin shootout
bin=target/release/shootout

out="${out:-results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out/hist"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || uname -m)"
    echo "cores: $(nproc)"
    echo "governor: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo unreadable)"
    echo "kernel: $(uname -sr)"
    echo "rustc: $(rustc --version)"
    echo "git: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo -dirty)"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
} >"$out/environment.txt"

args=(--csv "$out/runs.csv" --label "$label" --warmup "$warmup")
[[ -n "$formats" ]] && args+=(--formats "$formats")
[[ -n "$verify" ]] && args+=("$verify")
if [[ -n "$quick" ]]; then
    # A small slice: generate it once, deterministically, next to the results.
    "$bin" gen --out "$out/quick.pcapng" --packets 20000 --seed 1 >/dev/null
    inputs=("$out/quick.pcapng")
fi

for input in "${inputs[@]}"; do
    name="$(basename "$input")"
    for ((i = 1; i <= runs; i++)); do
        echo "== $name, run $i of $runs"
        "$bin" run "$input" "${args[@]}" --hist-dir "$out/hist/$name/run$i" \
            --summary "$out/summary-$name.csv"
        echo
    done
done
echo "results: $out/runs.csv ($(($(wc -l <"$out/runs.csv") - 1)) rows), histograms in $out/hist/"
