#!/usr/bin/env bash
# Prints deploy/kubernetes/shootout-day.yaml with its knobs set, for `kubectl apply -f -`.
# Usage: deploy/kubernetes/render.sh [--shards N] [--claim NAME] [--file PATH] [--out PATH]
#            [--image IMAGE] [--cpus C] [--memory QTY] [--name PREFIX] [--run-opts "OPTS"]
#   --shards N      completions = parallelism = N (default 4)
#   --claim NAME    the ReadWriteMany PersistentVolumeClaim mounted at /data (default shootout-data)
#   --file PATH     the capture, under /data (default /data/in/day.pcap.gz)
#   --out PATH      the output directory, under /data (default /data/out/day)
#   --image IMAGE   default md-shootout:dev
#   --cpus C        whole CPUs per shard, requests == limits (default 1)
#   --memory QTY    memory per shard, requests == limits (default 1Gi)
#   --name PREFIX   the Jobs become PREFIX-shards and PREFIX-merge (default shootout-day)
#   --run-opts OPTS extra `shootout run` options, split on spaces (default none)
set -euo pipefail
prog="render.sh"
die() { echo "$prog: $*" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

shards=4 claim=shootout-data file=/data/in/day.pcap.gz out=/data/out/day image=md-shootout:dev
cpus=1 memory=1Gi name=shootout-day run_opts=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        --shards|--claim|--file|--out|--image|--cpus|--memory|--name|--run-opts)
            [[ $# -ge 2 ]] || die "$1 needs a value"
            v="${1#--}"; v="${v//-/_}"; printf -v "$v" '%s' "$2"; shift 2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "--shards must be a whole number >= 1, got '$shards'"
(( shards <= 100000 )) || die "--shards $shards: an Indexed Job allows at most 100000"
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a whole number >= 1 (the static CPU manager pins whole CPUs only), got '$cpus'"
[[ "$memory" =~ ^[1-9][0-9]*(Ki|Mi|Gi|Ti|k|M|G|T)?$ ]] || die "--memory must be a quantity like 1Gi, got '$memory'"
[[ "$claim" =~ ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$ ]] || die "--claim must be a DNS-1123 name, got '$claim'"
[[ "$name" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ && ${#name} -le 50 ]] || die "--name must be a DNS-1123 label of at most 50 characters, got '$name'"
[[ "$file" == /data/* && "$out" == /data/* ]] || die "--file and --out must be under /data (the claim's mount), got '$file' and '$out'"
for v in file out image run_opts; do
    [[ "${!v}" != *[\"\\]* ]] || die "--${v//_/-} must not contain \" or \\"
done

export R_SHARDS="$shards" R_CLAIM="$claim" R_FILE="$file" R_OUT="$out" R_IMAGE="$image" \
    R_CPUS="$cpus" R_MEMORY="$memory" R_NAME="$name" R_RUN_OPTS="$run_opts"
# Line by line, knowing which document (1: the shard Job, 2: the merge Job) a line is in.
awk '
    function env_value(v) { getline; sub(/value: .*/, "value: \"" v "\""); print }
    $0 == "---" { doc++ }
    /^  name: shootout-day-shards$/ { print "  name: " ENVIRON["R_NAME"] "-shards"; next }
    /^  name: shootout-day-merge$/  { print "  name: " ENVIRON["R_NAME"] "-merge"; next }
    doc == 1 && /^  (completions|parallelism): 4$/ { sub(/4$/, ENVIRON["R_SHARDS"]); print; next }
    doc == 1 && /^              cpu: "1"$/ { sub(/"1"/, "\"" ENVIRON["R_CPUS"] "\""); print; next }
    doc == 1 && /^              memory: 1Gi$/ { sub(/1Gi/, ENVIRON["R_MEMORY"]); print; next }
    /^            - name: SHARDS$/   { print; env_value(ENVIRON["R_SHARDS"]); next }
    /^            - name: FILE$/     { print; env_value(ENVIRON["R_FILE"]); next }
    /^            - name: OUT$/      { print; env_value(ENVIRON["R_OUT"]); next }
    /^            - name: RUN_OPTS$/ { print; env_value(ENVIRON["R_RUN_OPTS"]); next }
    /^          image: md-shootout:dev$/ { print "          image: " ENVIRON["R_IMAGE"]; next }
    /^            claimName: shootout-data$/ { print "            claimName: " ENVIRON["R_CLAIM"]; next }
    { print }
' "$here/shootout-day.yaml"
