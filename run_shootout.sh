#!/usr/bin/env bash
# Runs the shootout: sets up the code generators, builds in release mode if needed, runs every
# format over each input a few times under each command prefix (plain, pinned to a CPU, pinned
# and at high priority) and prints the results. Everything goes under results/<timestamp>/:
#   runs.csv         one row per format per run, for every input, prefix and run
#   hist/<input>/<label>/run<i>/   HdrHistogram .hgrm files per format and side
#   summary-<input>.csv            the per-symbol aggregation every format agreed on
#   environment.txt  machine, governor, kernel, compiler, revision, load, the prefixes used
#   done.txt         one line per completed (input, label, run): what --resume skips
#   report/          the cross-run report, when the binary has a `report` subcommand
set -euo pipefail
cd "$(dirname "$0")"

usage() {
    cat <<'USAGE'
Usage: ./run_shootout.sh [options] [INPUT...]
       ./run_shootout.sh --resume DIR [options]

INPUT            capture files (pcap/pcapng, gzip'd or not), globs ('data/*.pcap.gz') or
                 directories (their *.pcap* files); default: data/sample-deep.pcapng.gz
--runs N         runs per input and prefix (default 3; 1 with --quick)
--prefix L=CMD   run `CMD shootout run ...` and store L in the CSV `label` column; repeatable.
                 Default: normal= (none), taskset=taskset -c 1, nice=taskset -c 1 nice -n -19
                 (each only where it works here; skipped ones are named on stderr)
--label T        same as --prefix T= (no command), the one prefix unless --prefix is given too
--formats L      comma-separated formats (default: all; see `shootout run --help`)
--verify         also decode every packet back and compare it field by field with the source
--no-stored-size skip compressing every window for the size as stored (zstd, zlib): faster
--warmup N       packets run through every format before times are recorded (default 1000)
--quick          a small generated input (20000 packets) instead of INPUT, 1 run unless --runs
--date DATE      `shootout fetch DATE` into data/ first (YYYYMMDD or YYYY-MM-DD), then run it
--feed F         feed for --date: deep (default) or tops
--data DIR       where --date puts the file (default: data)
--hist-url URL   the HIST index --date looks the day up in (default: shootout fetch's, IEX's)
--out DIR        results folder (default: results/<UTC timestamp>)
--resume DIR     continue an interrupted run in DIR: runs listed in DIR/done.txt are skipped.
                 Alone, it reuses the options DIR was started with (DIR/args).
-h, --help       this text

Relative paths are relative to the repository. SHOOTOUT_BIN=/path/to/shootout uses that binary
and skips the set-up and the build.
USAGE
}

die() { echo "run_shootout.sh: $*" >&2; exit 2; }

parse_args() {
    runs="" formats="" verify="" stored="" warmup=1000 quick="" out="" resume="" date="" feed="deep"
    data_dir="data" hist_url=""
    inputs=() prefixes=()
    while (($#)); do
        case "$1" in
            --runs|--formats|--label|--warmup|--out|--prefix|--resume|--date|--feed|--data|--hist-url)
                (($# >= 2)) || die "$1 needs a value" ;;&
            --runs) runs="$2"; shift 2 ;;
            --formats) formats="$2"; shift 2 ;;
            --verify) verify="--verify"; shift ;;
            --no-stored-size) stored="--no-stored-size"; shift ;;
            --label) prefixes+=("$2="); shift 2 ;;
            --prefix) prefixes+=("$2"); shift 2 ;;
            --warmup) warmup="$2"; shift 2 ;;
            --quick) quick=1; shift ;;
            --date) date="$2"; shift 2 ;;
            --feed) feed="$2"; shift 2 ;;
            --data) data_dir="$2"; shift 2 ;;
            --hist-url) hist_url="$2"; shift 2 ;;
            --out) out="$2"; shift 2 ;;
            --resume) resume="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            -*) echo "run_shootout.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
            *) inputs+=("$1"); shift ;;
        esac
    done
}

parse_args "$@"
if [[ -n "$resume" ]]; then
    [[ -d "$resume" ]] || die "--resume $resume: no such folder"
    if (($# == 2)) && [[ -f "$resume/args" ]]; then
        mapfile -d '' saved <"$resume/args"
        parse_args "${saved[@]}" --resume "$resume"
    fi
    out="$resume"
fi
[[ -n "$runs" ]] || { if [[ -n "$quick" ]]; then runs=1; else runs=3; fi; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive number"
[[ "$warmup" =~ ^[0-9]+$ ]] || die "--warmup needs a number"

# Inputs: files, globs, directories.
resolved=()
for f in "${inputs[@]}"; do
    if [[ -d "$f" ]]; then
        mapfile -t found < <(compgen -G "${f%/}/*.pcap*" | sort)
        ((${#found[@]})) || die "$f: no *.pcap* files in this folder"
        resolved+=("${found[@]}")
    elif [[ -f "$f" ]]; then
        resolved+=("$f")
    elif [[ "$f" == *[*?[]* ]]; then
        mapfile -t found < <(compgen -G "$f" | sort)
        ((${#found[@]})) || die "$f: matches no file"
        resolved+=("${found[@]}")
    else
        die "$f: no such file"
    fi
done
inputs=("${resolved[@]+"${resolved[@]}"}")
((${#inputs[@]})) || [[ -n "$date" || -n "$quick" ]] || inputs=(data/sample-deep.pcapng.gz)

# Prefixes: the defaults where they work here, or exactly the ones asked for.
if ((${#prefixes[@]} == 0)); then
    prefixes=("normal=")
    if command -v taskset >/dev/null 2>&1 && [[ -d /sys/devices/system/cpu/cpu1 ]] \
        && taskset -c 1 true 2>/dev/null; then
        prefixes+=("taskset=taskset -c 1")
        # GNU nice only warns when it may not raise the priority, so look at what it says too.
        if nice_says="$(nice -n -19 true 2>&1)" && [[ -z "$nice_says" ]]; then
            prefixes+=("nice=taskset -c 1 nice -n -19")
        else
            echo "run_shootout.sh: skipping prefix nice: \`nice -n -19\` is not permitted here" >&2
        fi
    else
        echo "run_shootout.sh: skipping prefixes taskset and nice: no taskset or no CPU 1" >&2
    fi
fi
labels=()
for p in "${prefixes[@]}"; do
    [[ "$p" == *=* ]] || die "--prefix $p: expected LABEL=COMMAND"
    l="${p%%=*}"
    [[ "$l" =~ ^[A-Za-z0-9._+-]+$ ]] || die "--prefix $p: the label must be letters, digits, . _ + -"
    for seen in "${labels[@]+"${labels[@]}"}"; do
        [[ "$seen" != "$l" ]] || die "--prefix $p: label $l given twice"
    done
    labels+=("$l")
done

if [[ -n "${SHOOTOUT_BIN:-}" ]]; then
    bin="$SHOOTOUT_BIN"
    [[ -x "$bin" ]] || die "SHOOTOUT_BIN=$bin is not an executable"
else
    scripts/bootstrap.sh
    # shellcheck disable=SC1091
    [[ -f tools/env.sh ]] && source tools/env.sh
    cargo build --release --quiet --bin shootout
    bin=target/release/shootout
fi

if [[ -n "$date" ]]; then
    echo "== fetching $date ($feed)"
    fetch_args=(fetch "$date" --feed "$feed" --out "$data_dir")
    [[ -z "$hist_url" ]] || fetch_args+=(--hist-url "$hist_url")
    line="$("$bin" "${fetch_args[@]}")"
    echo "$line"
    inputs+=("${line%% (*}")
fi

out="${out:-results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out/hist"
touch "$out/done.txt"
if [[ -z "$resume" ]]; then
    : >"$out/args"
    (($# == 0)) || printf '%s\0' "$@" >"$out/args"
fi
if [[ ! -f "$out/environment.txt" ]]; then
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || uname -m)"
        echo "cores: $(nproc)"
        echo "governor: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo unreadable)"
        echo "kernel: $(uname -sr)"
        echo "rustc: $(rustc --version 2>/dev/null || echo unknown)"
        echo "git: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo -dirty)"
        echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
        echo "runs: $runs"
        for p in "${prefixes[@]}"; do echo "prefix: $p"; done
    } >"$out/environment.txt"
fi

# A resumed folder keeps the rows of the runs done.txt lists and drops any a killed run left
# (done.txt's 4th field is the run_id that run wrote; run_id is the first CSV column).
if [[ -n "$resume" && -s "$out/runs.csv" ]]; then
    awk -F'\t' 'FILENAME == ARGV[1] { done[$4] = 1; next }
        FNR == 1 || (substr($0, 1, index($0, ",") - 1) in done)' \
        "$out/done.txt" "$out/runs.csv" >"$out/.runs.csv.tmp"
    dropped=$(($(wc -l <"$out/runs.csv") - $(wc -l <"$out/.runs.csv.tmp")))
    mv "$out/.runs.csv.tmp" "$out/runs.csv"
    ((dropped == 0)) || echo "run_shootout.sh: dropped $dropped rows of an unfinished run" >&2
fi

if [[ -n "$quick" ]]; then
    # A small slice: generated once, deterministically, next to the results.
    [[ -f "$out/quick.pcapng" ]] \
        || "$bin" gen --out "$out/quick.pcapng" --packets 20000 --seed 1 >/dev/null
    inputs=("$out/quick.pcapng")
fi
((${#inputs[@]})) || die "no input"

trap 'echo; echo "interrupted; completed runs are in $out (continue: ./run_shootout.sh --resume $out)" >&2; exit 130' INT
trap 'echo "terminated; completed runs are in $out (continue: ./run_shootout.sh --resume $out)" >&2; exit 143' TERM

args=(--csv "$out/runs.csv" --warmup "$warmup")
[[ -n "$formats" ]] && args+=(--formats "$formats")
[[ -n "$verify" ]] && args+=("$verify")
[[ -n "$stored" ]] && args+=("$stored")

is_done() { awk -F'\t' -v n="$1" -v l="$2" -v r="$3" '$1 == n && $2 == l && $3 == r { f = 1 } END { exit !f }' "$out/done.txt"; }

skipped=0
for input in "${inputs[@]}"; do
    name="$(basename "$input")"
    for ((i = 1; i <= runs; i++)); do
        for p in "${prefixes[@]}"; do
            label="${p%%=*}"
            read -r -a cmd <<<"${p#*=}"
            if is_done "$name" "$label" "run$i"; then
                skipped=$((skipped + 1))
                continue
            fi
            echo "== $name, $label, run $i of $runs${cmd[0]+ (${cmd[*]})}"
            "${cmd[@]}" "$bin" run "$input" "${args[@]}" --label "$label" \
                --hist-dir "$out/hist/$name/$label/run$i" --summary "$out/summary-$name.csv"
            run_id="$(tail -n 1 "$out/runs.csv" | cut -d, -f1)"
            printf '%s\t%s\t%s\t%s\n' "$name" "$label" "run$i" "$run_id" >>"$out/done.txt"
            echo
        done
    done
done
((skipped == 0)) || echo "skipped $skipped runs already in $out/done.txt"

rows=$(($(wc -l <"$out/runs.csv") - 1))
if "$bin" report --help >/dev/null 2>&1; then
    "$bin" report "$out/runs.csv" --out "$out/report" --hist-dir "$out/hist" || {
        echo "run_shootout.sh: the report failed; the results are in $out/runs.csv and $out/hist/" >&2
        exit 1
    }
    if [[ -f "$out/report/summary.md" ]]; then
        echo "== summary across runs"
        cat "$out/report/summary.md"
    fi
    echo "report: $out/report/"
else
    echo "note: this shootout has no \`report\` subcommand yet; the per-run tables are above"
fi
echo "results: $out/runs.csv ($rows rows), histograms in $out/hist/"
