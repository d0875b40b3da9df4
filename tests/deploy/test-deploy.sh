#!/usr/bin/env bash
# Tests of deploy/ that need no cluster: scripts/validate-deploy.sh accepts the manifest and
# refuses broken copies of it; deploy/parallel/run-day.sh and deploy/slurm/submit.sh refuse bad
# inputs in one line (exit 2); run-day.sh merges nothing when a shard fails. No build is needed:
# the refusals come before any binary runs (SHOOTOUT=/bin/true stands for "an executable"), and
# /bin/false is a shard that fails. The real flow, 4 shards of the real binary with GNU parallel
# and their merge checked against one process, is tests/it/deploy.rs.
# Usage: tests/deploy/test-deploy.sh   (TOOLS_DIR as for scripts/validate-deploy.sh)
# Ends with "deploy: N passed, M failed"; exit 1 if any failed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAILED: $1"; }
validate() { scripts/validate-deploy.sh "$@" >"$work/out" 2>&1; }
any_exe=/bin/true
capture="$root/data/sample-deep.pcapng.gz"

# --- the manifest -------------------------------------------------------------------------
if validate; then ok "the committed manifest and a rendered one validate"; else cat "$work/out"; fail "the committed manifest validates"; fi

manifest=deploy/kubernetes/shootout-day.yaml
# broken NAME SED-EXPRESSION EXPECTED-TEXT: a copy edited by SED must fail, saying EXPECTED-TEXT.
broken() {
    sed "$2" "$manifest" >"$work/$1.yaml"
    if cmp -s "$manifest" "$work/$1.yaml"; then fail "$1: the edit changed nothing"; return; fi
    if validate "$work/$1.yaml"; then
        fail "$1: a broken manifest validated"
    elif grep -q -- "$3" "$work/out"; then
        ok "$1: refused ($3)"
    else
        cat "$work/out"; fail "$1: refused, but without '$3'"
    fi
}
broken completion-mode-typo 's/completionMode: Indexed/completionMode: Indexd/' "completionMode must be Indexed, got 'Indexd'"
broken unknown-field 's/completionMode: Indexed/completionMod: Indexed/' "additional properties 'completionMod' not allowed"
broken wrong-type 's/^  completions: 4$/  completions: four/' "/spec/completions"
broken parallelism-differs 's/^  parallelism: 4$/  parallelism: 3/' "completions (4) and parallelism (3) differ"
broken env-differs '/name: SHARDS/{n;s/"4"/"5"/}' "env SHARDS=5 but completions=4"
broken fractional-cpu '0,/cpu: "1"/s/cpu: "1"/cpu: 500m/' "request 500m != limit 1"
broken not-whole-cpu 's/cpu: "1"/cpu: 1500m/' "is not a whole number of CPUs"
broken no-memory-limit '0,/limits:/{/limits:/{n;n;d}}' "memory needs both a request and a limit"
broken not-a-job 's/^kind: Job$/kind: Jobb/' "only batch/v1 Jobs"
# shellcheck disable=SC2016 # $FILE is the manifest's text, not this script's variable
broken shell-error 's/exec shootout run "\$FILE"/exec shootout run "$FILE/' "SC10"

# --- run-day.sh -----------------------------------------------------------------------------
# refused CASE EXPECTED-TEXT COMMAND...: exit 2 with one line holding EXPECTED-TEXT.
refused() {
    local name="$1" want="$2"; shift 2
    local code=0
    "$@" >"$work/out" 2>&1 || code=$?
    if [[ $code -eq 2 && $(wc -l <"$work/out") -eq 1 ]] && grep -q -- "$want" "$work/out"; then
        ok "$name: refused in one line"
    else
        echo "exit $code:"; cat "$work/out"; fail "$name: expected exit 2 and one line with '$want'"
    fi
}
rd=deploy/parallel/run-day.sh
refused "run-day: missing file" "does not exist" env SHOOTOUT="$any_exe" $rd "$work/nope.pcap" 2 "$work/o"
refused "run-day: N = 0" "N must be >= 1" env SHOOTOUT="$any_exe" $rd "$capture" 0 "$work/o"
refused "run-day: N not a number" "whole number" env SHOOTOUT="$any_exe" $rd "$capture" two "$work/o"
refused "run-day: binary not executable" "is not an executable file" env SHOOTOUT="$root/README.md" $rd "$capture" 2 "$work/o"
refused "run-day: more jobs than CPUs" "more than the" env SHOOTOUT="$any_exe" $rd --jobs 9999 "$capture" 2 "$work/o"
refused "run-day: unknown option" "unknown option --bogus" env SHOOTOUT="$any_exe" $rd --bogus "$capture" 2 "$work/o"

if command -v parallel >/dev/null 2>&1; then
    mkdir -p "$work/full/parts" && touch "$work/full/parts/part-1-of-2.json"
    refused "run-day: OUT already holds parts" "already holds parts" env SHOOTOUT="$any_exe" $rd "$capture" 2 "$work/full"
    code=0
    SHOOTOUT=/bin/false $rd "$capture" 3 "$work/bad" >"$work/out" 2>&1 || code=$?
    if [[ $code -eq 1 && ! -e "$work/bad/merged" ]] && grep -q "not merging" "$work/out"; then
        ok "run-day: a failed shard, no merge"
    else
        echo "exit $code:"; cat "$work/out"; fail "run-day: a failed shard must stop before the merge"
    fi
else
    fail "run-day: GNU parallel is not installed (scripts/bootstrap.sh installs it)"
fi

# --- submit.sh (no Slurm needed: --dry-run) ---------------------------------------------------
sb=deploy/slurm/submit.sh
refused "submit: missing file" "does not exist" env SHOOTOUT="$any_exe" $sb --dry-run "$work/nope" 2 "$work/s"
refused "submit: N = 0" "N must be >= 1" env SHOOTOUT="$any_exe" $sb --dry-run "$capture" 0 "$work/s"
refused "submit: binary not executable" "is not an executable file" env SHOOTOUT="$root/README.md" $sb --dry-run "$capture" 2 "$work/s"
refused "submit: bad --cpus-per-task" "cpus-per-task must be" env SHOOTOUT="$any_exe" $sb --dry-run --cpus-per-task 0 "$capture" 2 "$work/s"
if SHOOTOUT="$any_exe" $sb --dry-run --exclusive "$capture" 3 "$work/s" -- --formats raw >"$work/out" 2>&1 \
    && grep -q -- "--array=1-3 .*--exclusive .*shootout-day.sbatch --formats raw" "$work/out" \
    && grep -q -- "--dependency=afterok:" "$work/out"; then
    ok "submit: --dry-run shows the array and its afterok merge"
else
    cat "$work/out"; fail "submit: --dry-run"
fi

echo "deploy: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
