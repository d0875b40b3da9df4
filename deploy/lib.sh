# shellcheck shell=bash
# Shared by deploy/slurm/submit.sh and deploy/parallel/run-day.sh (sourced, not run).
# Checks the inputs of a sharded day and finds the binary: the one named by SHOOTOUT, or the one
# cargo reports it just built (CARGO_TARGET_DIR honoured), never a guessed target/ path.
# Each check prints one line naming what is wrong and exits 2.

# die MESSAGE: one line on stderr, exit 2 (bad options or inputs).
die() { echo "${prog:-deploy}: $*" >&2; exit 2; }

# check_inputs FILE N OUT: FILE a readable file, N an integer >= 1, OUT holding no parts yet
# (a merge takes every part in OUT/parts, so stale ones from another run would be mixed in).
check_inputs() {
    local file="$1" n="$2" out="$3"
    [[ -n "$file" ]] || die "FILE is empty"
    [[ -e "$file" ]] || die "FILE $file does not exist"
    [[ -f "$file" && -r "$file" ]] || die "FILE $file is not a readable file"
    [[ "$n" =~ ^[0-9]+$ ]] || die "N must be a whole number >= 1, got '$n'"
    (( 10#$n >= 1 )) || die "N must be >= 1, got $n"
    [[ -n "$out" ]] || die "OUT is empty"
    if [[ -d "$out/parts" ]] && compgen -G "$out/parts/*.json" >/dev/null; then
        die "OUT $out already holds parts ($out/parts/*.json): use a fresh OUT or remove them"
    fi
}

# absolute PATH: PATH made absolute (the file need not exist; its directory must).
absolute() {
    local d; d="$(cd "$(dirname "$1")" && pwd)" || die "no directory for $1"
    printf '%s/%s\n' "$d" "$(basename "$1")"
}

# resolve_shootout ROOT: prints the binary to run. SHOOTOUT=/path/to/shootout names one (it must
# be executable); otherwise the one ROOT's scripts/build-shootout.sh builds, as run_shootout.sh's.
resolve_shootout() {
    local root="$1"
    if [[ -n "${SHOOTOUT:-}" ]]; then
        [[ -f "$SHOOTOUT" && -x "$SHOOTOUT" ]] || die "SHOOTOUT=$SHOOTOUT is not an executable file"
        absolute "$SHOOTOUT"
        return
    fi
    "$root/scripts/build-shootout.sh"
}
