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
SUITE=verify
. tests/lib.sh

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
    tamper inf_c $curve "$prf" "$t.infc.json"
    both_reject "$curve: pi_c at infinity" "infc.json: pi_c is the point at infinity" "$vk" "$pub" "$t.infc.json"
    tamper zero_a $curve "$prf" "$t.zeroa.json"
    both_reject "$curve: pi_a = (0, 0)" "zeroa.json: pi_a is the point at infinity" "$vk" "$pub" "$t.zeroa.json"
    tamper multi $curve "$prf" "$t.multi.json"
    both_reject "$curve: multi-partition proof file, one partition's public file" "multi.json holds a 2-partition job's proofs, but .*public.json one partition's: give both files of the job (every partition is checked), or one partition's element of each (jq '.\[I\]' FILE)" "$vk" "$pub" "$t.multi.json"
    tamper multi_pub $curve "$pub" "$t.multipub.json"
    both_reject "$curve: multi-partition public file, one proof" "multipub.json holds a 2-partition job's public signals, but .*proof.json one partition's" "$vk" "$t.multipub.json" "$prf"
    # both files of a job: every partition checked (snarkjs takes one proof:
    # each element is checked with it too); a bad one is named, a count
    # that differs is refused
    if $BIN verify "$vk" "$t.multipub.json" "$t.multi.json" >"$TMP/out" 2>"$TMP/err" &&
        grep -qx 'OK: 2 partitions' "$TMP/out"; then ok "$curve: a 2-partition job's files: OK: 2 partitions"
    else bad "$curve: a 2-partition job's files were not verified partition by partition"; fi
    for i in 0 1; do
        jq ".[$i]" "$t.multi.json" >"$t.m$i.json"; jq ".[$i]" "$t.multipub.json" >"$t.mp$i.json"
        $SNARKJS groth16 verify "$vk" "$t.mp$i.json" "$t.m$i.json" 2>&1 | grep -q 'OK!' ||
            bad "$curve: snarkjs rejects partition $i of the 2-partition files"
    done
    jq '.[1][0] = "5"' "$t.multipub.json" >"$t.multibad.json"
    both_reject "$curve: partition 1 of a 2-partition job changed" "multi.json: partition 1 of 2: the pairing check fails" "$vk" "$t.multibad.json" "$t.multi.json"
    jq '. + [.[0]]' "$t.multipub.json" >"$t.multi3.json"
    both_reject "$curve: proof and public files of different jobs" "multi.json holds 2 partitions' proofs but .*multi3.json 3 partitions' public signals" "$vk" "$t.multi3.json" "$t.multi.json"
    # files in the wrong order, a .zkey for the verification key
    both_reject "$curve: public and proof swapped" "proof.json: a proof, not public signals (the order is VERIFICATION_KEY.json PUBLIC.json PROOF.json, as snarkjs's: swapped?)" "$vk" "$prf" "$pub"
    both_reject "$curve: the public file given as the proof" "public.json: an array of .* strings: public signals, not a proof" "$vk" "$pub" "$pub"
    both_reject "$curve: a .zkey as the verification key" "chain.zkey: a .zkey (a proving key), not a verification key: export it with \`snarkjs zkey export verificationkey" "$FIX/$curve/chain.zkey" "$pub" "$prf"
    tamper vk_g2sub $curve "$vk" "$t.vkg2.json"
    both_reject "$curve: vk_delta_2 outside G2" "vkg2.json: vk_delta_2 is not in the prime-order subgroup G2" "$t.vkg2.json" "$pub" "$prf"
    tamper vk_inf $curve "$vk" "$t.vkinf.json"
    both_reject "$curve: vk_gamma_2 at infinity" "vkinf.json: vk_gamma_2 is the point at infinity" "$t.vkinf.json" "$pub" "$prf"
    if [ $curve = bls12381 ]; then
        tamper vk_g1sub $curve "$vk" "$t.vkg1.json"
        both_reject "$curve: IC[1] outside G1" "vkg1.json: IC\[1\] is not in the prime-order subgroup G1" "$t.vkg1.json" "$pub" "$prf"
    fi
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

# Self-verification: a witness that does not satisfy its circuit (one wire
# changed: the last 32 bytes of the .wtns are the last wire's value) fails
# with exactly that reason and writes nothing; --no-verify writes the proof,
# which both verifiers then reject. A key with a point off its curve is
# refused at load with its section and index.
cp "$FIX/bn128/chain.wtns" "$TMP/bad.wtns"
n=$(wc -c <"$TMP/bad.wtns")
printf '\007' | dd of="$TMP/bad.wtns" bs=1 seek=$((n - 32)) conv=notrunc 2>/dev/null
$BIN prove -q "$FIX/bn128/chain.zkey" "$TMP/bad.wtns" "$TMP/u.proof.json" "$TMP/u.public.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'bad.wtns: the witness does not satisfy the circuit' "$TMP/err" &&
    [ ! -f "$TMP/u.proof.json" ]; then ok "prove: unsatisfied witness reported, nothing written"
else bad "prove: unsatisfied witness (exit $rc)"; fi
# not quiet: the reason once, with no internal job id
$BIN prove "$FIX/bn128/chain.zkey" "$TMP/bad.wtns" "$TMP/u.proof.json" "$TMP/u.public.json" 2>"$TMP/err"
if [ "$(grep -c 'does not satisfy' "$TMP/err")" = 1 ] && ! grep -Eq 'job [0-9a-f]{16}' "$TMP/err"; then
    ok "prove: an unsatisfied witness is reported once, with no job id"
else bad "prove: an unsatisfied witness reported $(grep -c 'does not satisfy' "$TMP/err") times: $(grep 'satisfy' "$TMP/err")"; fi
if $BIN prove -q --no-verify "$FIX/bn128/chain.zkey" "$TMP/bad.wtns" "$TMP/u.proof.json" \
    "$TMP/u.public.json" 2>"$TMP/err"; then
    ok "prove --no-verify writes the unchecked proof"
    both_reject "proof of an unsatisfied witness" "the pairing check fails" \
        "$FIX/bn128/chain.vk.json" "$TMP/u.public.json" "$TMP/u.proof.json"
else bad "prove --no-verify failed"; fi
# section 5 (A), point 3: one byte of its y flipped
node -e '
const fs = require("fs"), b = fs.readFileSync(process.argv[1]);
let o = 12;
for (let i = 0, n = b.readUInt32LE(8); i < n; i++) {
    const t = b.readUInt32LE(o), sz = Number(b.readBigUInt64LE(o + 4));
    if (t === 5) b[o + 12 + 3 * 64 + 32] ^= 1;
    o += 12 + sz;
}
fs.writeFileSync(process.argv[2], b);' "$FIX/bn128/chain.zkey" "$TMP/badpt.zkey"
$BIN prove -q "$TMP/badpt.zkey" "$FIX/bn128/chain.wtns" "$TMP/k.proof.json" "$TMP/k.public.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'badpt.zkey: section 5 (A) point 3: not on the curve' "$TMP/err"; then
    ok "prove: key with a point off its curve refused (section, index)"
else bad "prove: key with a bad point (exit $rc)"; fi

# The same through the daemon.
D=$TMP/d
mkdir -m 700 "$D"
$BIN serve --socket "$D/s.sock" --synth 1 --slots 2 --key chain="$FIX/bn128/chain.zkey" 2>"$D/log" &
dpid=$!
for i in $(seq 600); do # 60 s: a loaded box
    $BIN status --socket "$D/s.sock" >/dev/null 2>&1 && break
    sleep 0.1
done
sub() { $BIN submit --socket "$D/s.sock" "$@" --wait --proof "$D/p.json" --public "$D/pub.json"; }
rm -f "$D/p.json"
if sub --key chain --witness "$FIX/bn128/chain.wtns" >/dev/null 2>"$TMP/err"; then
    both_accept "daemon job" "$FIX/bn128/chain.vk.json" "$D/pub.json" "$D/p.json"
else bad "daemon: a good job failed"; fi
rm -f "$D/p.json"
sub --key chain --witness "$TMP/bad.wtns" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'the witness does not satisfy the circuit' "$TMP/err" && [ ! -f "$D/p.json" ]; then
    ok "daemon: unsatisfied witness fails its job with that reason"
else bad "daemon: unsatisfied witness (exit $rc)"; fi
sub --zkey "$TMP/badpt.zkey" --witness "$FIX/bn128/chain.wtns" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'badpt.zkey: section 5 (A) point 3: not on the curve' "$TMP/err"; then
    ok "daemon: key with a point off its curve refused"
else bad "daemon: key with a bad point (exit $rc)"; fi
grep -q 'points on their curves, checked in' "$D/log" && ok "daemon logs the key check's cost" ||
    bad "daemon: no key check in the log"
kill -TERM $dpid 2>/dev/null
wait $dpid 2>/dev/null

# a regular file where the socket should be: serve and a client name it
: >"$D/file.sock"
$BIN serve --socket "$D/file.sock" --synth 1 --slots 2 --key chain="$FIX/bn128/chain.zkey" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'file.sock: a regular file, not a socket' "$TMP/err" && [ -f "$D/file.sock" ]; then
    ok "serve: a regular file at the socket path is named and left alone"
else bad "serve: regular file at the socket path (exit $rc)"; fi
$BIN status --socket "$D/file.sock" >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'file.sock: it is a regular file, not a socket' "$TMP/err"; then
    ok "client: a regular file at the socket path is named"
else bad "client: regular file at the socket path (exit $rc)"; fi

$BIN verify --help | grep -q 'usage: slotprove verify' && ok "verify --help" || bad "verify --help"
$BIN verify a b 2>/dev/null; [ $? -eq 2 ] && ok "verify usage error exits 2" || bad "verify usage exit code"
$BIN verify --bellperson "$FIX/bn128/chain.vk.json" "$FIX/bn128/chain.public.json" "$FIX/bn128/chain.snarkjs.proof.json" 2>"$TMP/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "chain.vk.json: a JSON file, not a bellperson verifying key (a .vk or .params): for snarkjs's vk.json leave out --bellperson" "$TMP/err"; then
    ok "verify --bellperson of a snarkjs vk.json says to leave out --bellperson"
else bad "verify --bellperson vk.json (exit $rc): $(cat "$TMP/err")"; fi

finish
