#!/usr/bin/env bash
# Submits one day's sharded measurement to Slurm: an array job of N tasks, each running
# `shootout run FILE --shard I/N --part OUT/parts/part-I-of-N.json` on CPUs of its own
# (shootout-day.sbatch), and a merge job that starts only when every task succeeded
# (--dependency=afterok:<array job>) and writes OUT/merged (shootout-merge.sbatch).
#
# Usage: deploy/slurm/submit.sh [OPTIONS] FILE N OUT [-- RUN OPTIONS...]
#   FILE   the capture; it must be at this same path on every node (shared storage)
#   N      number of shards (array tasks), >= 1
#   OUT    output directory, also on shared storage; must hold no parts yet
#   RUN OPTIONS  passed to every `shootout run` (e.g. -- --formats sbe,capnp --lenient)
# Options:
#   --cpus-per-task C   CPUs per shard task (default 1; use J with `--jobs J` in RUN OPTIONS)
#   --exclusive         each task gets a node to itself (no other job beside it)
#   --dry-run           print the sbatch commands instead of submitting them
# The binary: SHOOTOUT=/shared/path/shootout, or, unset, the one this script builds (bootstrap
# and `cargo build --release`, CARGO_TARGET_DIR honoured, which must then be on shared storage).
# sbatch's own variables (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...) apply to both
# jobs.
set -euo pipefail
prog="submit.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=deploy/lib.sh
source "$here/../lib.sh"

cpus=1
exclusive=()
dry_run=0
positional=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cpus-per-task) [[ $# -ge 2 ]] || die "--cpus-per-task needs a value"; cpus="$2"; shift 2 ;;
        --cpus-per-task=*) cpus="${1#*=}"; shift ;;
        --exclusive) exclusive=(--exclusive); shift ;;
        --dry-run) dry_run=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        --) shift; break ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) positional+=("$1"); shift ;;
    esac
done
run_opts=("$@")
[[ ${#positional[@]} -eq 3 ]] || die "usage: submit.sh [--cpus-per-task C] [--exclusive] [--dry-run] FILE N OUT [-- RUN OPTIONS...]"
file="${positional[0]}" n="${positional[1]}" out="${positional[2]}"
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus-per-task must be a whole number >= 1, got '$cpus'"
check_inputs "$file" "$n" "$out"
n=$((10#$n))
[[ $dry_run -eq 1 ]] || command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm submit host"
bin="$(resolve_shootout "$root")"

mkdir -p "$out/parts" "$out/logs"
export SHOOTOUT_BIN="$bin"
SHOOTOUT_FILE="$(absolute "$file")"
SHOOTOUT_OUT="$(cd "$out" && pwd)"
export SHOOTOUT_FILE SHOOTOUT_OUT SHOOTOUT_N="$n"
name="shootout-$(basename "$file")"
name="${name%%.*}"

shards=(sbatch --parsable --job-name="$name" --array="1-$n" --cpus-per-task="$cpus" "${exclusive[@]}"
    --output="$SHOOTOUT_OUT/logs/shard-%a-of-$n.job%A.out" "$here/shootout-day.sbatch" "${run_opts[@]}")
merge=(sbatch --parsable --job-name="$name-merge" --kill-on-invalid-dep=yes
    --output="$SHOOTOUT_OUT/logs/merge.job%j.out")
if [[ $dry_run -eq 1 ]]; then
    echo "SHOOTOUT_BIN=$SHOOTOUT_BIN SHOOTOUT_FILE=$SHOOTOUT_FILE SHOOTOUT_N=$n SHOOTOUT_OUT=$SHOOTOUT_OUT"
    printf '%q ' "${shards[@]}"; echo
    printf '%q ' "${merge[@]}" "--dependency=afterok:<array job>" "$here/shootout-merge.sbatch"; echo
    exit 0
fi
array_job="$("${shards[@]}")"
array_job="${array_job%%;*}"
merge_job="$("${merge[@]}" --dependency="afterok:$array_job" "$here/shootout-merge.sbatch")"
merge_job="${merge_job%%;*}"
echo "shards: job $array_job (array 1-$n); merge: job $merge_job (afterok:$array_job)"
echo "logs: $SHOOTOUT_OUT/logs/  parts: $SHOOTOUT_OUT/parts/  results: $SHOOTOUT_OUT/merged/"
