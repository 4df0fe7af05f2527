#!/bin/sh
# `slotprove verify` against snarkjs (the independent oracle), side by side:
# every fixture's snarkjs proof and a fresh `slotprove prove` proof must be
# accepted by both; tampered inputs (tests/verify_tamper.mjs) must be
# rejected by both, slotprove with exit 1 and the expected reason.
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
FIX=tests/fixtures
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; [ -f "$TMP/err" ] && sed 's/^/       /' "$TMP/err"; }

# both_accept NAME VK PUBLIC PROOF
both_accept() {
    if $BIN verify "$2" "$3" "$4" >"$TMP/out" 2>"$TMP/err" && grep -qx OK "$TMP/out"; then
        ok "$1: slotprove verify accepts"
    else bad "$1: slotprove verify rejects a valid proof"; fi
    if $SNARKJS groth16 verify "$2" "$3" "$4" >"$TMP/err" 2>&1 && grep -q 'OK!' "$TMP/err"; then
        ok "$1: snarkjs accepts"
    else bad "$1: snarkjs rejects"; fi
}

# both_reject NAME REASON VK PUBLIC PROOF
both_reject() {
    what=$1; want=$2; shift 2
    $BIN verify "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 1 ] && ! grep -q OK "$TMP/out" && grep -q -- "$want" "$TMP/err"; then
        ok "$what: slotprove verify rejects ($want)"
    else bad "$what: slotprove verify (exit $rc, wanted 1 and '$want')"; fi
    if $SNARKJS groth16 verify "$@" >"$TMP/err" 2>&1 && grep -q 'OK!' "$TMP/err"; then
        bad "$what: snarkjs accepts it (the oracle disagrees)"
    else ok "$what: snarkjs rejects it too"; fi
}

tamper() { node tests/verify_tamper.mjs "$@"; }

for curve in bn128 bls12381; do
    for c in chain nopub allpub; do
        vk=$FIX/$curve/$c.vk.json
        both_accept "$curve/$c (snarkjs proof)" "$vk" "$FIX/$curve/$c.public.json" \
            "$FIX/$curve/$c.snarkjs.proof.json"
        out=$TMP/$curve-$c
        if $BIN prove -q "$FIX/$curve/$c.zkey" "$FIX/$curve/$c.wtns" "$out.proof.json" \
            "$out.public.json" 2>"$TMP/err"; then
            both_accept "$curve/$c (slotprove proof)" "$vk" "$out.public.json" "$out.proof.json"
        else bad "$curve/$c: slotprove prove failed"; fi
    done
    vk=$FIX/$curve/chain.vk.json
    pub=$FIX/$curve/chain.public.json
    prf=$FIX/$curve/chain.snarkjs.proof.json
    t=$TMP/t-$curve
    tamper coord $curve "$prf" "$t.coord.json"
    both_reject "$curve: changed pi_a coordinate" "pi_a is not on the curve" "$vk" "$pub" "$t.coord.json"
    tamper offcurve $curve "$prf" "$t.off.json"
    both_reject "$curve: pi_c off the curve" "pi_c is not on the curve" "$vk" "$pub" "$t.off.json"
    tamper g2sub $curve "$prf" "$t.g2.json"
    both_reject "$curve: pi_b outside G2" "pi_b is not in the prime-order subgroup G2" "$vk" "$pub" "$t.g2.json"
    tamper pub $curve "$pub" "$t.pub.json"
    both_reject "$curve: changed public signal" "the pairing check fails" "$vk" "$t.pub.json" "$prf"
    tamper pub_r $curve "$pub" "$t.pubr.json"
    both_reject "$curve: public signal = r" "public signal 0 is not below r" "$vk" "$t.pubr.json" "$prf"
    tamper pub_extra $curve "$pub" "$t.pubx.json"
    both_reject "$curve: one public signal too many" "3 public signals, but .* expects 2" "$vk" "$t.pubx.json" "$prf"
    tamper pub_short $curve "$pub" "$t.pubs.json"
    both_reject "$curve: one public signal too few" "1 public signals, but .* expects 2" "$vk" "$t.pubs.json" "$prf"
    tamper malformed $curve "$prf" "$t.bad.json"
    both_reject "$curve: malformed proof JSON" "bad.json: not valid JSON" "$vk" "$pub" "$t.bad.json"
    tamper malformed $curve "$vk" "$t.badvk.json"
    both_reject "$curve: malformed key JSON" "badvk.json: not valid JSON" "$t.badvk.json" "$pub" "$prf"
done

# another key of the same circuit: one more contribution changes delta
if $SNARKJS zkey contribute "$FIX/bn128/chain.zkey" "$TMP/chain2.zkey" -e="verify.sh" >"$TMP/err" 2>&1 &&
    $SNARKJS zkey export verificationkey "$TMP/chain2.zkey" "$TMP/chain2.vk.json" >"$TMP/err" 2>&1; then
    both_reject "bn128: proof for another key of the same circuit" "the pairing check fails" \
        "$TMP/chain2.vk.json" "$FIX/bn128/chain.public.json" "$FIX/bn128/chain.snarkjs.proof.json"
else bad "snarkjs could not make a second key"; fi
both_reject "proof of another curve" "the proof is on bls12381 but" \
    "$FIX/bn128/chain.vk.json" "$FIX/bn128/chain.public.json" "$FIX/bls12381/chain.snarkjs.proof.json"
both_reject "missing file" "none.json: " "$FIX/bn128/chain.vk.json" "$FIX/bn128/chain.public.json" "$TMP/none.json"

$BIN verify --help | grep -q 'usage: slotprove verify' && ok "verify --help" || bad "verify --help"
$BIN verify a b 2>/dev/null; [ $? -eq 2 ] && ok "verify usage error exits 2" || bad "verify usage exit code"

echo "verify: $pass passed, $fail failed"
[ $fail -eq 0 ]
