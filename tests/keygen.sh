#!/bin/sh
# `slotprove keygen` end to end: a 2^16 key of each curve made by keygen is
# proved by `slotprove prove` and verified by snarkjs with keygen's vk.json;
# `snarkjs zkey export verificationkey` reads the key and writes keygen's
# vk.json byte for byte; --seed reproduces files byte for byte; every bad argument
# and its limit (at the limit and one past it) gets a clear error and leaves
# no file behind. The disk-space and read-only cases run in a small tmpfs
# mounted in a user namespace (unshare -rm); where that is not allowed they
# are skipped, and say so.
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
SUITE=keygen
. tests/lib.sh
MAXLOG=28                      # KEYGEN_MAX_LOG_DOMAIN
MAXROWS=$((1 << MAXLOG))

empty_dir() { [ -z "$(ls -A "$1" 2>/dev/null)" ]; }

# ---- a 2^16 key per curve, proved and verified
for curve in bn128 bls12381; do
    d="$TMP/$curve"
    mkdir -p "$d"
    # N + K + 1 = 65536: the domain is exactly 2^16
    if ! $BIN keygen --curve $curve --constraints 65531 --public 4 --seed 16 --out "$d" 2>"$TMP/err"; then
        bad "$curve: keygen 2^16 failed"; continue
    fi
    grep -q 'INSECURE, FOR TESTING ONLY' "$TMP/err" && ok "$curve: keygen says INSECURE, FOR TESTING ONLY" \
        || bad "$curve: no INSECURE notice"
    grep -q 'nVars 65536, domain 2^16' "$TMP/err" && ok "$curve: nVars 65536, domain 2^16" \
        || bad "$curve: wrong shape"
    if ! $BIN prove -q "$d/circuit.zkey" "$d/circuit.wtns" "$d/proof.json" "$d/pub.json" 2>"$TMP/err"; then
        bad "$curve: slotprove prove failed on keygen's key"; continue
    fi
    if $SNARKJS groth16 verify "$d/vk.json" "$d/pub.json" "$d/proof.json" >"$TMP/err" 2>&1 \
        && grep -q 'OK!' "$TMP/err"; then ok "$curve: snarkjs verifies the proof with keygen's vk.json"
    else bad "$curve: snarkjs rejected the proof"; fi
    cmp -s "$d/pub.json" "$d/public.json" && ok "$curve: prove's public.json equals keygen's" \
        || bad "$curve: public.json differs"
    jq -e 'length == 4' "$d/public.json" >/dev/null && ok "$curve: 4 public signals" || bad "$curve: public count"
    # the oracle can fail: a changed public signal must not verify
    jq '.[0] = "12345"' "$d/pub.json" > "$d/pub-bad.json"
    if ! $SNARKJS groth16 verify "$d/vk.json" "$d/pub-bad.json" "$d/proof.json" >"$TMP/err" 2>&1; then
        ok "$curve: snarkjs rejects the proof with a changed public signal"
    else bad "$curve: a changed public signal verified"; fi
    # byte for byte, vk_alphabeta_12 (snarkjs's own pairing) included
    if $SNARKJS zkey export verificationkey "$d/circuit.zkey" "$d/vk-snarkjs.json" >"$TMP/err" 2>&1 \
        && cmp "$d/vk-snarkjs.json" "$d/vk.json" >>"$TMP/err" 2>&1; then
        ok "$curve: snarkjs zkey export verificationkey reads the key and writes vk.json byte for byte"
    else bad "$curve: exported verification key differs from vk.json"; fi
    rm -f "$d/circuit.zkey" "$d/circuit.wtns"
done

# ---- corner shapes: the smallest domain (N = 1, K = 0: 2^1) and more public
# inputs than constraints, proved and verified the same way
for curve in bn128 bls12381; do
    for nk in 1:0 3:50; do
        n=${nk%%:*}; k=${nk##*:}; d="$TMP/corner-$curve-$n-$k"
        mkdir -p "$d"
        if $BIN keygen -q --curve $curve --constraints $n --public $k --out "$d" 2>"$TMP/err" \
            && $BIN prove -q "$d/circuit.zkey" "$d/circuit.wtns" "$d/proof.json" "$d/pub.json" 2>"$TMP/err" \
            && $SNARKJS groth16 verify "$d/vk.json" "$d/pub.json" "$d/proof.json" >"$TMP/err" 2>&1 \
            && grep -q 'OK!' "$TMP/err"; then ok "$curve: N = $n, K = $k: proved and verified"
        else bad "$curve: N = $n, K = $k"; fi
    done
done

# ---- --vars: fewer wires than constraints (the later rows check earlier
# wires); the domain follows N, the key shrinks; proved and verified the same way
for curve in bn128 bls12381; do
    d="$TMP/vars-$curve"; mkdir -p "$d"
    if $BIN keygen -q --curve $curve --constraints 4000 --public 3 --vars 500 --seed 7 --out "$d" 2>"$TMP/err" \
        && $BIN prove -q "$d/circuit.zkey" "$d/circuit.wtns" "$d/proof.json" "$d/pub.json" 2>"$TMP/err" \
        && $SNARKJS groth16 verify "$d/vk.json" "$d/pub.json" "$d/proof.json" >"$TMP/err" 2>&1 \
        && grep -q 'OK!' "$TMP/err" \
        && $SNARKJS zkey export verificationkey "$d/circuit.zkey" "$d/vk-snarkjs.json" >/dev/null 2>&1 \
        && cmp -s "$d/vk-snarkjs.json" "$d/vk.json"; then
        ok "$curve: N = 4000, --vars 500: proved and verified, vk.json as snarkjs exports it"
    else bad "$curve: N = 4000, --vars 500"; fi
done

# ---- --seed: reproducible; no seed: fresh secrets
for run in a b; do
    mkdir -p "$TMP/seed-$run" "$TMP/noseed-$run"
    $BIN keygen -q --curve bn128 --constraints 300 --public 3 --seed 18446744073709551615 --out "$TMP/seed-$run" 2>/dev/null
    $BIN keygen -q --curve bn128 --constraints 300 --public 3 --out "$TMP/noseed-$run" 2>/dev/null
done
mkdir -p "$TMP/seed-c"
$BIN keygen -q --curve bn128 --constraints 300 --public 3 --seed 1 --out "$TMP/seed-c" 2>/dev/null
same=1
for f in circuit.zkey circuit.wtns vk.json public.json; do
    cmp -s "$TMP/seed-a/$f" "$TMP/seed-b/$f" || same=0
done
[ $same -eq 1 ] && [ -s "$TMP/seed-a/circuit.zkey" ] && ok "--seed 2^64-1 twice: identical files" \
    || bad "--seed did not reproduce the files"
cmp -s "$TMP/seed-a/circuit.zkey" "$TMP/seed-c/circuit.zkey" && bad "different seeds gave the same key" \
    || ok "different seeds give different keys"
cmp -s "$TMP/noseed-a/vk.json" "$TMP/noseed-b/vk.json" && bad "two unseeded runs gave the same vk" \
    || ok "unseeded runs draw fresh secrets"
cmp -s "$TMP/noseed-a/circuit.wtns" "$TMP/noseed-b/circuit.wtns" && bad "two unseeded runs gave the same circuit" \
    || ok "unseeded runs draw fresh circuits"

# ---- bad arguments: exit code, message, and nothing written
# expect RC WANT ARGS...: keygen exits RC with WANT in its message; --out is
# $TMP/out, which must stay empty
mkdir -p "$TMP/out"
expect() {
    rc_want=$1; want=$2; shift 2
    $BIN keygen "$@" 2>"$TMP/err" >/dev/null
    rc=$?
    if [ $rc -eq "$rc_want" ] && grep -q -- "$want" "$TMP/err" && empty_dir "$TMP/out"; then
        ok "exit $rc_want, '$want': keygen $*"
    else bad "keygen $* (exit $rc, wanted $rc_want and '$want'; files: $(ls -A "$TMP/out" | tr '\n' ' '))"; fi
}
O="--out $TMP/out"
expect 2 "at least 1" --curve bn128 --constraints 0 $O
expect 2 "want an integer" --curve bn128 --constraints 12x $O
expect 2 "want an integer" --curve bn128 --constraints -5 $O
expect 2 "more than the largest domain 2^$MAXLOG" --curve bn128 --constraints $((MAXROWS - 2)) --public 2 $O
expect 2 "more than the largest domain 2^$MAXLOG" --curve bls12381 --constraints $((MAXROWS - 2)) --public 2 $O
expect 2 "more than the largest domain 2^$MAXLOG" --curve bn128 --constraints 1 --public $((MAXROWS - 1)) $O
expect 2 "want an integer 0..2^$MAXLOG" --curve bn128 --constraints 1 --public $((MAXROWS + 1)) $O
expect 2 "want bn128 or bls12381" --curve bn254 --constraints 10 $O
expect 2 "--vars 19: want 20..1004" --curve bn128 --constraints 1000 --public 3 --vars 19 $O
expect 2 "--vars 1005: want 20..1004" --curve bn128 --constraints 1000 --public 3 --vars 1005 $O
expect 2 "--vars \"x\": want an integer" --curve bn128 --constraints 1000 --vars x $O
expect 2 "--backend \"gpu\": want auto, cpu or cuda" --curve bn128 --constraints 10 --backend gpu $O
# no GPU here (CI, the dev box): --backend cuda is refused with the reason
# (no CUDA in this build, or no device), before any file is made
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    expect 1 "--backend cuda: " --curve bn128 --constraints 10 --backend cuda $O
    expect 1 "--backend cuda: " --curve bls12381 --format bellperson --constraints 10 --backend cuda $O
fi
expect 2 "want an integer 0..2^64-1" --curve bn128 --constraints 10 --seed -1 $O
expect 2 "want an integer 0..2^64-1" --curve bn128 --constraints 10 --seed 18446744073709551616 $O
expect 2 "want 0..1024" --curve bn128 --constraints 10 --threads 1025 $O
expect 2 "are required" --curve bn128 --constraints 10
expect 1 "$TMP/none: No such file" --curve bn128 --constraints 10 --out "$TMP/none"
: > "$TMP/afile"
expect 1 "afile: not a directory" --curve bn128 --constraints 10 --out "$TMP/afile"
$BIN keygen -q --curve bn128 --constraints 1 --public 0 --threads 1024 --out "$TMP/out" 2>"$TMP/err" \
    && [ -s "$TMP/out/circuit.zkey" ] && ok "smallest key (N = 1, K = 0, domain 2^1), --threads 1024" \
    || bad "N = 1 key"
rm -f "$TMP/out"/*

# In a 1 MiB tmpfs: the largest N and K pass the argument checks and stop at
# the disk check (statvfs, before any work), which names the bytes needed.
mkdir -p "$TMP/probe"
if unshare -r -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$0"' "$TMP/probe" 2>/dev/null; then
    in_tmpfs() { # MOUNT_OPTS ARGS...: keygen --out a fresh tmpfs; prints its exit, then the dir listing
        mo=$1; shift
        unshare -r -m sh -c 'mkdir -p "$0/mnt" && mount -t tmpfs -o "$1" tmpfs "$0/mnt" && shift &&
            "$@" --out "$0/mnt"; echo "rc=$?"; echo "files:$(ls -A "$0/mnt" | tr "\n" " ")"' \
            "$TMP" "$mo" "$BIN" keygen "$@"
    }
    expect_tmpfs() { # RC WANT MOUNT_OPTS ARGS...
        rc_want=$1; want=$2; mo=$3; shift 3
        in_tmpfs "$mo" "$@" >"$TMP/res" 2>"$TMP/err"
        if grep -q "^rc=$rc_want\$" "$TMP/res" && grep -q '^files:$' "$TMP/res" && grep -q -- "$want" "$TMP/err"; then
            ok "exit $rc_want, '$want', no files: keygen $* in a tmpfs ($mo)"
        else cat "$TMP/res" >> "$TMP/err"; bad "keygen $* in a tmpfs ($mo)"; fi
    }
    expect_tmpfs 1 "not enough free space: the files need [0-9]* bytes" size=1m \
        --curve bn128 --constraints $((MAXROWS - 3)) --public 2
    expect_tmpfs 1 "not enough free space: the files need [0-9]* bytes" size=1m \
        --curve bls12381 --constraints 1 --public $((MAXROWS - 2))
    expect_tmpfs 1 "not enough free space: the files need [0-9]* bytes (.* MiB: key" size=1m \
        --curve bls12381 --constraints 65531 --public 4
    # --shape porep: the five files' exact sizes, checked before any work
    expect_tmpfs 1 "not enough free space: the porep-shaped files need [0-9]* bytes" size=1m \
        --format bellperson --shape porep --domain-log2 16
    # --format bellperson: its seven files' bound (keygen_bellperson.c
    # bk_disk_bytes), checked first; a tmpfs of exactly that size (in
    # pages) proves it is enough, one page less is refused
    expect_tmpfs 1 "not enough free space: the bellperson files need up to [0-9]* bytes" size=1m \
        --curve bls12381 --format bellperson --constraints 30000 --public 3
    bpneed=$(sed -n 's/.*files need up to \([0-9]*\) bytes.*/\1/p' "$TMP/err")
    if [ -n "$bpneed" ]; then
        pg=$(getconf PAGESIZE)
        at=$(( (bpneed + pg - 1) / pg * pg ))
        in_tmpfs size=$at --curve bls12381 --format bellperson --constraints 30000 --public 3 -q \
            >"$TMP/res" 2>"$TMP/err"
        grep -q '^rc=0$' "$TMP/res" &&
            grep -q 'files:circuit.params circuit.pce circuit.vk circuit.wtns circuit.zkey public.json vk.json $' "$TMP/res" &&
            ok "keygen --format bellperson in a tmpfs of exactly its bound ($at bytes): exit 0, seven files" ||
            { cat "$TMP/res" >> "$TMP/err"; bad "keygen --format bellperson at its disk bound"; }
        expect_tmpfs 1 "not enough free space: the bellperson files need up to $bpneed bytes" size=$((at - pg)) \
            --curve bls12381 --format bellperson --constraints 30000 --public 3
    else bad "keygen --format bellperson: no byte figure in the refusal"; fi
    expect_tmpfs 1 "cannot create files there: Read-only file system" ro,size=64m \
        --curve bn128 --constraints 100
    in_tmpfs size=64m --curve bn128 --constraints 100 -q >"$TMP/res" 2>"$TMP/err"
    grep -q '^rc=0$' "$TMP/res" && grep -q 'files:circuit.wtns circuit.zkey public.json vk.json $' "$TMP/res" \
        && ok "the same tmpfs setup with room: exit 0, exactly the four files" || { cat "$TMP/res" >> "$TMP/err"; bad "tmpfs with room"; }
else
    skipped "disk-space and read-only cases: no tmpfs mount in a user namespace (unshare -rm) here"
fi

# Killed mid-run: the files were unnamed temporaries, nothing is left.
$BIN keygen -q --curve bls12381 --constraints 262139 --out "$TMP/out" 2>/dev/null &
kg=$!
sleep 0.5
kill -9 $kg 2>/dev/null; wait $kg 2>/dev/null
empty_dir "$TMP/out" && ok "keygen SIGKILLed mid-run: no file left" || bad "files left after SIGKILL: $(ls -A "$TMP/out")"

$BIN keygen --help | grep -q 'INSECURE, FOR TESTING ONLY' && ok "keygen --help says INSECURE, FOR TESTING ONLY" \
    || bad "keygen --help"
$BIN --help | grep -q 'slotprove keygen' && ok "slotprove --help lists keygen" || bad "slotprove --help"

finish
