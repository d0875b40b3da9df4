#!/usr/bin/env bash
# One day's sharded measurement on this machine with GNU parallel: N shards,
#   shootout run FILE --shard I/N --part OUT/parts/part-I-of-N.json [RUN OPTIONS]
# at most JOBS at a time, each pinned with `taskset -c` to a CPU of its own from the CPUs this
# process may use (parallel's job slot k runs on the k-th of them, so two running shards never
# share a CPU), then
#   shootout merge OUT/parts/*.json --out OUT/merged
# only if every shard succeeded (parallel stops starting new shards after the first failure).
#
# Usage: deploy/parallel/run-day.sh [--jobs JOBS] FILE N OUT [-- RUN OPTIONS...]
#   JOBS defaults to the number of allowed CPUs, capped at N; more than that is refused.
# The binary: SHOOTOUT=/path/to/shootout, or, unset, the one this script builds (bootstrap and
# `cargo build --release`, CARGO_TARGET_DIR honoured), as run_shootout.sh does.
# Logs: OUT/logs/shard-I-of-N.log and OUT/logs/parallel.joblog; results: OUT/merged/.
set -euo pipefail
prog="run-day.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Internal: one shard, as parallel calls it (`run-day.sh --shard-slot SLOT I RUN OPTIONS...`);
# the rest comes from the environment the main invocation exported.
if [[ "${1:-}" == --shard-slot ]]; then
    slot="$2" i="$3"; shift 3
    read -r -a cpus <<<"$RUN_DAY_CPUS"
    cpu="${cpus[$((slot - 1))]}"
    log="$RUN_DAY_OUT/logs/shard-$i-of-$RUN_DAY_N.log"
    echo "shard $i/$RUN_DAY_N on CPU $cpu" >"$log"
    exec taskset -c "$cpu" "$RUN_DAY_BIN" run "$RUN_DAY_FILE" --shard "$i/$RUN_DAY_N" \
        --part "$RUN_DAY_OUT/parts/part-$i-of-$RUN_DAY_N.json" "$@" >>"$log" 2>&1
fi

root="$(cd "$here/../.." && pwd)"
# shellcheck source=deploy/lib.sh
source "$here/../lib.sh"

# allowed_cpus: the CPUs this process may run on (Cpus_allowed_list, ranges expanded).
allowed_cpus() {
    local list part
    list="$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)"
    IFS=, read -r -a parts <<<"$list"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
    done | tr '\n' ' '
}

jobs=""
positional=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --jobs|-j) [[ $# -ge 2 ]] || die "$1 needs a value"; jobs="$2"; shift 2 ;;
        --jobs=*) jobs="${1#*=}"; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        --) shift; break ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -eq 3 ]] || die "usage: run-day.sh [--jobs JOBS] FILE N OUT [-- RUN OPTIONS...]"
file="${positional[0]}" n="${positional[1]}" out="${positional[2]}"
check_inputs "$file" "$n" "$out"
n=$((10#$n))
command -v parallel >/dev/null 2>&1 || die "GNU parallel not found (apt-get install parallel; scripts/bootstrap.sh installs it)"
command -v taskset >/dev/null 2>&1 || die "taskset not found (util-linux)"
read -r -a cpus <<<"$(allowed_cpus)"
if [[ -z "$jobs" ]]; then
    jobs=$(( ${#cpus[@]} < n ? ${#cpus[@]} : n ))
fi
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a whole number >= 1, got '$jobs'"
(( jobs <= ${#cpus[@]} )) || die "--jobs $jobs is more than the ${#cpus[@]} CPUs this process may use (${cpus[*]})"
bin="$(resolve_shootout "$root")"

mkdir -p "$out/parts" "$out/logs"
RUN_DAY_OUT="$(cd "$out" && pwd)"
RUN_DAY_FILE="$(absolute "$file")"
export RUN_DAY_BIN="$bin" RUN_DAY_N="$n" RUN_DAY_CPUS="${cpus[*]:0:jobs}" RUN_DAY_OUT RUN_DAY_FILE
echo "$prog: $n shards, $jobs at a time on CPUs ${cpus[*]:0:jobs}; logs in $RUN_DAY_OUT/logs" >&2
status=0
seq 1 "$n" | parallel --will-cite -q -j "$jobs" --halt soon,fail=1 \
    --joblog "$RUN_DAY_OUT/logs/parallel.joblog" \
    "$here/run-day.sh" --shard-slot '{%}' '{}' "$@" || status=$?
if [[ $status -ne 0 ]]; then
    echo "$prog: a shard failed (exit $status): see $RUN_DAY_OUT/logs/parallel.joblog and shard-*.log; not merging" >&2
    exit 1
fi
exec "$bin" merge "$RUN_DAY_OUT"/parts/*.json --out "$RUN_DAY_OUT/merged"
