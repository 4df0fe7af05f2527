#!/bin/sh
# Install what slotprove needs to build and test, on Debian 12 (bookworm).
# Idempotent: checks each dependency first and does nothing when all present.
# Called by `make deps`.  Runs apt as root, or through sudo when not root.
#
#   apt:  gcc make liburing-dev libbsd-dev libmd-dev (SHA-256 for the key
#         cache) libcriterion-dev libgmp-dev libjansson-dev pkg-config,
#         libinih-dev libmicrohttpd-dev libsystemd-dev (serve's --config,
#         --metrics, systemd), python3-prometheus-client systemd (tests/service.sh),
#         jq (fault suite), python3 (raw-socket tests), clang libclang-rt-14-dev (libFuzzer),
#         postgresql-15 libpq-dev (the fleet: run/fleet/, tests/fleet.sh),
#         g++ nasm nlohmann-json3-dev (circom --c witness programs, tests/witness.sh),
#         fuse3 libfuse3-dev (tests/stuck_fuse.c: a hung file, tests/lockouts.sh),
#         curl iproute2 (serve --http with real curl, ss: tests/http.sh),
#         and nodejs
#         npm unless node >= 18 and npm are already on PATH (e.g. from
#         NodeSource or nvm)
#   npm:  `npm ci` in tests/ (snarkjs, circom2 and circomlib pinned by
#         tests/package-lock.json)
#         when tests/node_modules is missing or older than the lockfile

set -u

APT_PKGS="gcc make liburing-dev libbsd-dev libmd-dev libcriterion-dev libgmp-dev libjansson-dev libinih-dev libmicrohttpd-dev libsystemd-dev pkg-config jq python3 python3-prometheus-client systemd clang libclang-rt-14-dev postgresql-15 libpq-dev g++ nasm nlohmann-json3-dev fuse3 libfuse3-dev curl iproute2"
NODE_MIN_MAJOR=18

say() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

TESTS_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd) || die "cannot locate tests/ directory"

# --- apt packages -----------------------------------------------------------
pkg_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

node_ok() {
    command -v node >/dev/null 2>&1 || return 1
    command -v npm >/dev/null 2>&1 || return 1
    major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
    [ -n "$major" ] && [ "$major" -ge "$NODE_MIN_MAJOR" ] 2>/dev/null
}

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
    for p in $APT_PKGS; do
        pkg_installed "$p" || missing="$missing $p"
    done
else
    # Not a dpkg system: we cannot check packages, only tools.
    for t in gcc make pkg-config; do
        command -v "$t" >/dev/null 2>&1 || die "$t not found and this is not a Debian system; install it by hand"
    done
    say "no dpkg: skipping apt package checks (install the -dev libraries by hand)"
fi

if node_ok; then
    :
else
    if command -v node >/dev/null 2>&1; then
        say "node $(node --version 2>/dev/null) is older than v$NODE_MIN_MAJOR or npm is missing; using Debian's nodejs/npm"
    fi
    missing="$missing nodejs npm"
fi

if [ -n "$missing" ]; then
    command -v apt-get >/dev/null 2>&1 || die "missing:$missing, and apt-get is not available"
    if [ "$(id -u)" -eq 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        die "missing:$missing; run as root or install sudo"
    fi
    say "apt-get update"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null \
        || die "apt-get update failed"
    say "apt-get install$missing"
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null \
        || die "apt-get install failed for:$missing"
    node_ok || die "node >= $NODE_MIN_MAJOR and npm still not usable after apt install"
fi

# --- npm tools for the tests ------------------------------------------------
LOCK="$TESTS_DIR/package-lock.json"
MARK="$TESTS_DIR/node_modules/.package-lock.json"
[ -f "$LOCK" ] || die "$LOCK not found"

need_ci=0
if [ ! -f "$MARK" ]; then
    need_ci=1
elif [ -n "$(find "$LOCK" -newer "$MARK" 2>/dev/null)" ]; then
    need_ci=1
elif [ ! -x "$TESTS_DIR/node_modules/.bin/snarkjs" ] || [ ! -x "$TESTS_DIR/node_modules/.bin/circom2" ] ||
     [ ! -f "$TESTS_DIR/node_modules/circomlib/package.json" ]; then
    need_ci=1
fi

if [ "$need_ci" -eq 1 ]; then
    say "npm ci in tests/"
    (cd "$TESTS_DIR" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
        || die "npm ci failed in $TESTS_DIR"
    [ -f "$MARK" ] && touch "$MARK"
fi

[ -z "$missing" ] && [ "$need_ci" -eq 0 ] && say "all dependencies present"
exit 0
