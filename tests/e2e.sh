#!/bin/sh
# End-to-end tests: every bundled circuit proved through the real process
# group (slotprove -> synthd + gpud over a memfd slot) and verified by
# snarkjs; then bad inputs through the CLI, each expecting exit 1 and a
# message that names the file and the reason.
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
FIX=tests/fixtures
SUITE=e2e
. tests/lib.sh

# JSON shape with every number blanked: ours must match snarkjs's byte for byte.
shape() { sed 's/"[0-9][0-9]*"/"N"/g' "$1"; }

for curve in bn128 bls12381; do
    for c in chain nopub allpub; do
        name="$curve/$c"
        [ -f "$FIX/$curve/$c.zkey" ] || { rm -f "$TMP/err"; bad "$name: fixture missing"; continue; }
        out="$TMP/$curve-$c"
        if ! $BIN prove "$FIX/$curve/$c.zkey" "$FIX/$curve/$c.wtns" "$out.proof.json" "$out.public.json" 2>"$TMP/err"; then
            bad "$name: slotprove prove failed"; continue
        fi
        pids=$(sed -n 's/^slotprove: synthd pid \([0-9]*\), gpud pid \([0-9]*\).*/\1 \2/p' "$TMP/err")
        set -- $pids
        if [ $# -eq 2 ] && [ "$1" != "$2" ]; then ok "$name: synthd ($1) and gpud ($2) are separate processes"
        else bad "$name: expected separate synthd and gpud pids, got '$pids'"; fi
        if $SNARKJS groth16 verify "$FIX/$curve/$c.vk.json" "$out.public.json" "$out.proof.json" >"$TMP/err" 2>&1 \
            && grep -q 'OK!' "$TMP/err"; then ok "$name: snarkjs groth16 verify accepts the proof"
        else bad "$name: snarkjs rejected the proof"; fi
        if cmp -s "$out.public.json" "$FIX/$curve/$c.public.json"; then ok "$name: public.json equals snarkjs's"
        else bad "$name: public.json differs from snarkjs's"; fi
        if [ "$(shape "$out.proof.json")" = "$(shape "$FIX/$curve/$c.snarkjs.proof.json")" ]; then ok "$name: proof.json has snarkjs's exact layout"
        else bad "$name: proof.json layout differs from snarkjs's"; diff "$out.proof.json" "$FIX/$curve/$c.snarkjs.proof.json" | head -5; fi
        grep -q "\"curve\": \"$curve\"" "$out.proof.json" && ok "$name: curve is $curve" || bad "$name: curve field"
    done
done

# A proof must not verify against another circuit's key (the oracle can fail).
rm -f "$TMP/err"
if [ ! -f "$TMP/bn128-chain.proof.json" ]; then
    bad "no bn128/chain proof to check against the wrong key"
elif ! $SNARKJS groth16 verify "$FIX/bn128/nopub.vk.json" \
    "$TMP/bn128-chain.public.json" "$TMP/bn128-chain.proof.json" >"$TMP/err" 2>&1; then
    ok "snarkjs rejects a proof checked against the wrong key"
else bad "a proof verified against the wrong key"; fi

# expect_error NAME EXPECTED_SUBSTRING ARGS...: exit 1, message names the file and reason
expect_error() {
    what=$1; want=$2; shift 2
    $BIN prove "$@" "$TMP/x.proof.json" "$TMP/x.public.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q -- "$want" "$TMP/err" && [ ! -f "$TMP/x.proof.json" ]; then ok "bad input: $what"
    else bad "bad input: $what (exit $rc, wanted 1 and '$want')"; fi
}
cp "$FIX/bn128/nopub.zkey" "$TMP/trunc.zkey" && truncate -s 3000 "$TMP/trunc.zkey"
printf 'nope' > "$TMP/magic.zkey" && tail -c +5 "$FIX/bn128/nopub.zkey" >> "$TMP/magic.zkey"
expect_error "missing zkey" "$TMP/none.zkey: No such file" "$TMP/none.zkey" "$FIX/bn128/nopub.wtns"
expect_error "missing witness" "$TMP/none.wtns: No such file" "$FIX/bn128/nopub.zkey" "$TMP/none.wtns"
expect_error "directory as input" "not a regular file" "$FIX" "$FIX/bn128/nopub.wtns"
expect_error "truncated zkey" "trunc.zkey: truncated" "$TMP/trunc.zkey" "$FIX/bn128/nopub.wtns"
expect_error "wrong magic" "magic.zkey: wrong magic" "$TMP/magic.zkey" "$FIX/bn128/nopub.wtns"
expect_error "PLONK key" "plonk.zkey: protocol 2 (PLONK)" "$FIX/bn128/plonk.zkey" "$FIX/bn128/nopub.wtns"
expect_error "witness for another curve" "is for bls12381 but" "$FIX/bn128/nopub.zkey" "$FIX/bls12381/nopub.wtns"
expect_error "witness of another circuit" "nWitness .* != the key's nVars" "$FIX/bn128/chain.zkey" "$FIX/bn128/nopub.wtns"
expect_error "zkey given as witness" "wrong magic" "$FIX/bn128/nopub.zkey" "$FIX/bn128/nopub.zkey"

# prove is the daemon's core with one job: a synthd SIGKILLed mid-fill (from
# elsewhere, as far as the supervisor can tell) is reported, respawned, and
# the proof still comes out and verifies.
ulimit -c 0 2>/dev/null # the crash test below raises SIGSEGV: no core files
SLOTPROVE_FAULT=synthd-fill SLOTPROVE_FAULT_ONCE="$TMP/fill.once" $BIN prove "$FIX/bn128/nopub.zkey" "$FIX/bn128/nopub.wtns" "$TMP/f.proof.json" "$TMP/f.public.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && [ -e "$TMP/fill.once" ] && grep -q 'synthd pid [0-9]* was killed by signal 9' "$TMP/err" \
    && $SNARKJS groth16 verify "$FIX/bn128/nopub.vk.json" "$TMP/f.public.json" "$TMP/f.proof.json" 2>&1 | grep -q 'OK!'; then
    ok "synthd SIGKILLed mid-fill: reported, respawned, the proof verifies"
else bad "synthd SIGKILLed mid-fill (exit $rc)"; fi
# A witness whose synthesis crashes its synthd (SIGSEGV) every time is
# poison: after 3 attempts prove fails naming it, and writes nothing.
rm -f "$TMP/f.proof.json"
SLOTPROVE_FAULT=synthd-fill SLOTPROVE_FAULT_SIGNAL=11 $BIN prove "$FIX/bn128/nopub.zkey" "$FIX/bn128/nopub.wtns" "$TMP/f.proof.json" "$TMP/f.public.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'partition 0 (.*nopub.wtns) failed after 3 attempts; last: synthd pid [0-9]* was killed by signal 11' "$TMP/err" \
    && [ ! -f "$TMP/f.proof.json" ]; then
    ok "synthd crashing on the witness: fails after 3 attempts, exit 1, no output"
else bad "synthd crashing on the witness (exit $rc)"; fi

# Killing the supervisor takes synthd and gpud down with it (PDEATHSIG).
# While $TMP/k.hold exists gpud holds the partition it took
# (SLOTPROVE_FAULT_HOLD): the proof cannot be done before the kill.
touch "$TMP/k.hold"
SLOTPROVE_FAULT_HOLD="$TMP/k.hold" $BIN prove "$FIX/bn128/chain.zkey" "$FIX/bn128/chain.wtns" \
    "$TMP/k.proof.json" "$TMP/k.public.json" 2>"$TMP/err" &
sup=$!
kids_line() {
    kids=$(sed -n 's/^slotprove: synthd pid \([0-9]*\), gpud pid \([0-9]*\).*/\1 \2/p' "$TMP/err")
    [ -n "$kids" ]
}
# live KIDS...: the pids still running; a zombie waiting for its new parent
# to reap it has exited
live() {
    for _lp in "$@"; do
        _ls=$(awk '{print $3}' "/proc/$_lp/stat" 2>/dev/null || true)
        [ -n "$_ls" ] && [ "$_ls" != Z ] && [ "$_ls" != X ] && echo "$_lp"
    done
    return 0
}
none_live() { [ -z "$(live "$@")" ]; }
kids=""
poll 30 kids_line
kill -9 $sup 2>/dev/null; wait $sup 2>/dev/null
# shellcheck disable=SC2086
poll 30 none_live $kids
# shellcheck disable=SC2086
alive=$(live $kids | tr '\n' ' ')
rm -f "$TMP/k.hold"
if [ -n "$kids" ] && [ -z "$alive" ] && [ ! -e "$TMP/k.proof.json" ]; then ok "supervisor SIGKILLed: no orphaned synthd/gpud"
else bad "supervisor SIGKILLed: children '$kids' still alive: '$alive'$([ -e "$TMP/k.proof.json" ] && echo '; and it wrote a proof')"; fi

$BIN prove --help | grep -q 'usage: slotprove prove' && ok "prove --help" || bad "prove --help"
$BIN prove a b 2>/dev/null; [ $? -eq 2 ] && ok "usage error exits 2" || bad "usage error exit code"
# three arguments: one line with the reason, not the whole help
$BIN prove "$FIX/bn128/chain.zkey" "$FIX/bn128/chain.wtns" "$TMP/p3.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
    grep -q 'slotprove prove: expected 4 arguments, CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json; got 3' "$TMP/err"; then
    ok "prove with 3 arguments: one line naming the 4 expected"
else bad "prove with 3 arguments (exit $rc): $(head -3 "$TMP/err")"; fi
$BIN fullprove --bogus a 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] && grep -q "unrecognized option '--bogus'" "$TMP/err"; then
    ok "fullprove with an unknown option: getopt's line and where the help is"
else bad "fullprove --bogus (exit $rc): $(head -3 "$TMP/err")"; fi

# --backend cuda where no GPU can be used (CI has none): a clear refusal,
# never a CPU proof under the CUDA name. A build without CUDA refuses it as
# a usage error (2); a CUDA build finds no device and fails (1).
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "# a GPU is visible: --backend cuda is tested by tests/gpu_prove.sh"
else
    $BIN prove --backend cuda "$FIX/bn128/chain.zkey" "$FIX/bn128/chain.wtns" "$TMP/cu.proof.json" "$TMP/cu.public.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -ne 0 ] && grep -qi 'cuda' "$TMP/err" && [ ! -s "$TMP/cu.proof.json" ]; then ok "prove --backend cuda without a GPU: refused (exit $rc, names CUDA), nothing written"
    else bad "prove --backend cuda without a GPU: exit $rc"; fi
fi
# serve's GPU flags, before anything starts: each usage error is exit 2 and names the flag
for args in "--backend cpu --gpus 0|--gpus needs" "--gpus 0,0|named twice" "--gpus 0,x;y|expected a device index" "--gpuds 2 --gpus 0|names 1 GPUs" "--backend gpu|--backend"; do
    a=${args%%|*}
    want=${args#*|}
    $BIN serve --socket "$TMP/nosock/s.sock" $a 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$want" "$TMP/err"; then ok "serve $a: usage error naming it"
    else rm -f "$TMP/x"; bad "serve $a: exit $rc, expected 2 and \"$want\""; fi
done

finish
