#!/bin/sh
# Filecoin's formats end to end (make test-bellperson): `slotprove keygen
# --format bellperson` writes one setup as bellperson .params/.vk, cuzk .pce
# and a snarkjs .zkey/vk.json. The same witness is proved through both keys:
# the zkey proof by `slotprove prove` and by snarkjs itself, both verified by
# snarkjs with vk.json; the bellperson proof (192 bytes) by `slotprove verify
# --bellperson` with the .vk, and, converted to proof.json, by `snarkjs
# groth16 verify` with the zkey's vk.json (the verification key is the same).
# A two-partition job gives 384 bytes that verify partition by partition.
# Then the failures: a tampered proof or public input, a proof of the wrong
# length, a corrupt point in .params (named by section and index), a PCE of
# another circuit, a witness of the wrong size or one that does not satisfy
# the circuit (nothing written), and keygen's bad arguments.
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
TMP=$(mktemp -d)
chmod 700 "$TMP"
SERVE_PID=
trap '[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; [ -f "$TMP/err" ] && sed 's/^/       /' "$TMP/err" | head -20; }
# xor byte OFF of FILE with X (decimal)
xorbyte() { node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);b[+process.argv[2]]^=+process.argv[3];fs.writeFileSync(process.argv[1],b)' "$1" "$2" "$3"; }
snarkjs_ok() { $SNARKJS groth16 verify "$1" "$2" "$3" >"$TMP/err" 2>&1 && grep -q 'OK!' "$TMP/err"; }

d="$TMP/k"
mkdir -p "$d"
# N + K + 1 = 2048: a 2^11 domain
if $BIN keygen --curve bls12381 --constraints 2044 --public 3 --seed 23 --format bellperson \
    --out "$d" 2>"$TMP/err"; then ok "keygen --format bellperson (2^11, 3 public)"
else bad "keygen --format bellperson failed"; echo "bellperson: $pass passed, $fail failed"; exit 1; fi
for f in circuit.params circuit.vk circuit.pce circuit.zkey circuit.wtns vk.json public.json; do
    [ -s "$d/$f" ] || bad "keygen wrote no $f"
done
ls -A "$d" | grep -q '^\.' && bad "keygen left temporaries" || ok "keygen wrote its 7 files, no temporaries"

# ---- the zkey side
if $BIN prove -q --backend cpu "$d/circuit.zkey" "$d/circuit.wtns" "$d/zproof.json" "$d/zpub.json" 2>"$TMP/err" \
    && snarkjs_ok "$d/vk.json" "$d/zpub.json" "$d/zproof.json"; then
    ok "zkey: slotprove's proof verifies with snarkjs and vk.json"
else bad "zkey: slotprove prove / snarkjs verify"; fi
if $SNARKJS groth16 prove "$d/circuit.zkey" "$d/circuit.wtns" "$d/sproof.json" "$d/spub.json" >"$TMP/err" 2>&1 \
    && snarkjs_ok "$d/vk.json" "$d/spub.json" "$d/sproof.json"; then
    ok "zkey: snarkjs's own prover on the key, verified by snarkjs"
else bad "zkey: snarkjs groth16 prove on keygen's bellperson-twin zkey"; fi
if $SNARKJS zkey export verificationkey "$d/circuit.zkey" "$d/vk-snarkjs.json" >"$TMP/err" 2>&1 \
    && cmp "$d/vk-snarkjs.json" "$d/vk.json" >>"$TMP/err" 2>&1; then
    ok "zkey: snarkjs exports vk.json byte for byte"
else bad "zkey: exported verification key differs"; fi

# ---- the bellperson side
if $BIN prove -q --params "$d/circuit.params" --pce "$d/circuit.pce" --json "$d/bproof.json" "$d/bpub.json" \
    "$d/circuit.wtns" "$d/proof.bin" 2>"$TMP/err"; then ok "bellperson: prove --params --pce"
else bad "bellperson: prove --params --pce failed"; fi
[ "$(wc -c < "$d/proof.bin")" -eq 192 ] && ok "bellperson: the proof is 192 bytes" || bad "bellperson: proof size"
$BIN verify --bellperson "$d/circuit.vk" "$d/public.json" "$d/proof.bin" >"$TMP/err" 2>&1 \
    && grep -q '^OK' "$TMP/err" && ok "bellperson: verify --bellperson with the .vk" || bad "bellperson: verify --bellperson"
$BIN verify --bellperson -q "$d/circuit.params" "$d/public.json" "$d/proof.bin" 2>"$TMP/err" \
    && ok "bellperson: verify --bellperson with the .params' vk" || bad "bellperson: verify with .params"
cmp -s "$d/bpub.json" "$d/public.json" && ok "bellperson: --json public.json equals keygen's" || bad "bellperson: public.json differs"
snarkjs_ok "$d/vk.json" "$d/bpub.json" "$d/bproof.json" \
    && ok "bellperson: the proof as proof.json verifies with snarkjs and the zkey's vk.json" \
    || bad "bellperson: snarkjs rejected the converted proof"
$BIN verify -q "$d/vk.json" "$d/bpub.json" "$d/bproof.json" 2>"$TMP/err" \
    && ok "bellperson: slotprove verify (snarkjs form) accepts it too" || bad "bellperson: slotprove verify json"

# two partitions: 384 bytes, each verifies, the two differ (fresh r, s)
if $BIN prove --params "$d/circuit.params" --pce "$d/circuit.pce" "$d/circuit.wtns" "$d/circuit.wtns" \
    "$d/proof2.bin" 2>"$TMP/err" && [ "$(wc -c < "$d/proof2.bin")" -eq 384 ]; then
    ok "bellperson: two partitions, 384 bytes"
    # progress names each partition's synthesis and gpud prove time (ms, > 0)
    [ "$(grep -cE '^slotprove prove: partition [01]: synthesis [0-9.]+ ms, gpud prove [0-9]*[1-9][0-9]*\.[0-9] ms' "$TMP/err")" = 2 ] \
        && ok "bellperson: each partition's synthesis and gpud prove times on stderr" \
        || { bad "bellperson: per-partition times missing"; sed 's/^/#   /' "$TMP/err"; }
else bad "bellperson: two partitions"; fi
$BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json,$d/public.json" "$d/proof2.bin" 2>"$TMP/err" \
    && ok "bellperson: both partitions verify" || bad "bellperson: partitions verify"
head -c 192 "$d/proof2.bin" > "$d/p0"; tail -c 192 "$d/proof2.bin" > "$d/p1"
cmp -s "$d/p0" "$d/p1" && bad "bellperson: two proofs of one witness are equal (r, s not fresh)" \
    || ok "bellperson: the two proofs differ (fresh r, s)"
$BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json" "$d/proof2.bin" 2>"$TMP/err" \
    && bad "bellperson: 2 proofs with 1 public file verified" || ok "bellperson: 2 proofs, 1 public file: refused"

mkdir -p "$TMP/o"   # another circuit, for the mismatches
$BIN keygen -q --curve bls12381 --constraints 1000 --public 3 --seed 5 --format bellperson --out "$TMP/o" 2>/dev/null

# ---- the daemon: serve --key NAME=P.params:C.pce, submit --key NAME --witness ...
SOCK=$TMP/s.sock
cp "$d/circuit.wtns" "$d/unsat.wtns"; xorbyte "$d/unsat.wtns" $(( $(wc -c < "$d/unsat.wtns") - 32 )) 1
cp "$d/circuit.wtns" "$d/wire0.wtns"; xorbyte "$d/wire0.wtns" 76 2   # wire 0 = 3 (values from byte 76)
$BIN serve --socket "$SOCK" --threads 2 --synth 1 --slots 2 --backend cpu \
    --key bp="$d/circuit.params:$d/circuit.pce" --key again="$d/circuit.params:$d/circuit.pce" \
    2>"$TMP/serve.log" &
SERVE_PID=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if [ -S "$SOCK" ] && grep -q 'circuit.params: [0-9]* points on their curves and in their subgroups' "$TMP/serve.log"; then
    ok "serve: the bellperson key preloaded, its points checked ($(grep -o '[0-9]* points.*' "$TMP/serve.log" | head -1))"
else cp "$TMP/serve.log" "$TMP/err"; bad "serve --key NAME=P.params:C.pce did not come up"; fi
[ "$(grep -c 'points on their curves and in their subgroups' "$TMP/serve.log")" -eq 1 ] \
    && grep -q 'the same files as a key already checked' "$TMP/serve.log" \
    && ok "serve: the same pair under a second name is not checked again (cached by SHA-256)" \
    || { cp "$TMP/serve.log" "$TMP/err"; bad "serve: the checked-params cache"; }
rm -f "$d/job.bin"
if $BIN submit --socket "$SOCK" --key bp --witness "$d/circuit.wtns" --witness "$d/circuit.wtns" \
    --witness "$d/circuit.wtns" --wait --proof "$d/job.json" --public "$d/job-pub.json" \
    --bellperson "$d/job.bin" >"$TMP/out" 2>"$TMP/err" && [ "$(wc -c < "$d/job.bin")" -eq 576 ]; then
    ok "daemon: a 3-partition job gives 576 bytes of bellperson proofs"
else bad "daemon: submit --key bp with 3 witnesses"; fi
$BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json,$d/public.json,$d/public.json" "$d/job.bin" \
    2>"$TMP/err" && ok "daemon: each of the 3 proofs verifies with verify --bellperson and the .vk" \
    || bad "daemon: verify --bellperson of the job's proofs"
nok=0
for k in 0 1 2; do
    jq ".[$k]" "$d/job.json" > "$d/jp$k.json"; jq ".[$k]" "$d/job-pub.json" > "$d/jq$k.json"
    snarkjs_ok "$d/vk.json" "$d/jq$k.json" "$d/jp$k.json" && nok=$((nok + 1))
    # the JSON and the bytes are the same proof: its bytes verify alone too
    dd if="$d/job.bin" of="$d/jb$k.bin" bs=192 skip=$k count=1 2>/dev/null
done
[ $nok -eq 3 ] && ok "daemon: the job's snarkjs JSON proofs pass snarkjs groth16 verify with the zkey's vk.json" \
    || bad "daemon: snarkjs verified $nok of 3 JSON proofs"
cmp -s "$d/jb0.bin" "$d/jb1.bin" && bad "daemon: two partitions gave the same proof (r, s not fresh)" \
    || ok "daemon: the partitions' proofs differ (fresh r, s)"
# a gpud and a synthd that die: their successors load the key again (no second point check)
kill -9 $(pgrep -P "$SERVE_PID" -x gpud) $(pgrep -P "$SERVE_PID" -x synthd) 2>/dev/null
sleep 1
rm -f "$d/after.bin"
if $BIN submit --socket "$SOCK" --key bp --witness "$d/circuit.wtns" --wait --bellperson "$d/after.bin" \
    >/dev/null 2>"$TMP/err" && $BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json" "$d/after.bin" \
    2>>"$TMP/err" && [ "$(grep -c 'points on their curves' "$TMP/serve.log")" -eq 1 ]; then
    ok "daemon: after gpud and synthd were killed, their successors prove the key (points not checked again)"
else bad "daemon: proving after the children were killed"; fi
# a bad witness fails only its job, with its reason; the other jobs are proved
j_bad=$($BIN submit --socket "$SOCK" --key bp --witness "$d/circuit.wtns" --witness "$d/unsat.wtns" 2>"$TMP/err")
j_w0=$($BIN submit --socket "$SOCK" --key bp --witness "$d/wire0.wtns" 2>>"$TMP/err")
j_good=$($BIN submit --socket "$SOCK" --key again --witness "$d/circuit.wtns" 2>>"$TMP/err")
rm -f "$d/bad.bin" "$d/good.bin"
$BIN wait --socket "$SOCK" --bellperson "$d/bad.bin" "$j_bad" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'unsat.wtns.*does not satisfy the circuit' "$TMP/err" && [ ! -e "$d/bad.bin" ] \
    && ok "daemon: an unsatisfied witness fails its job, named, nothing written" || bad "daemon: unsatisfied witness"
$BIN wait --socket "$SOCK" --bellperson "$d/w0.bin" "$j_w0" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'wire0.wtns: wire 0 is not 1' "$TMP/err" \
    && ok "daemon: a witness whose wire 0 is not 1 fails its job: $(head -c 80 "$TMP/err")" || bad "daemon: wire 0"
$BIN wait --socket "$SOCK" --bellperson "$d/good.bin" "$j_good" 2>"$TMP/err" \
    && $BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json" "$d/good.bin" 2>>"$TMP/err" \
    && ok "daemon: the job submitted after them is proved and verifies (wait --bellperson)" \
    || bad "daemon: the good job after the bad ones"
# both failures are the input's: counted as cause input, never slot_size (issue 36.7a)
$BIN status --socket "$SOCK" --json >"$TMP/st.json" 2>"$TMP/err"
by=$(jq -c '(.status // .).counters | [.jobs_failed_by_cause.input, .jobs_failed_by_cause.slot_size, .jobs_failed]' "$TMP/st.json" 2>>"$TMP/err")
[ "$by" = "[2,0,2]" ] \
    && ok "daemon: the unsatisfied and the wire-0 witness count as jobs_failed_by_cause input 2, slot_size 0 (of jobs_failed 2)" \
    || bad "daemon: failure causes [input, slot_size, jobs_failed] = $by, expected [2,0,2]"
$BIN submit --socket "$SOCK" --key bp --witness "$TMP/o/circuit.wtns" --wait --bellperson "$d/x.bin" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'nWitness 1004 != the key.s nVars 2048' "$TMP/err" && ok "daemon: a witness of another size is refused" \
    || bad "daemon: witness size"
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=
$BIN serve --socket "$SOCK" --backend cpu --key bp="$d/circuit.params:$TMP/o/circuit.pce" 2>"$TMP/err"
[ $? -ne 0 ] && grep -q 'aux wires, but .* has l of' "$TMP/err" && ok "serve: a PCE of another circuit is refused at start" \
    || bad "serve: PCE mismatch"

# ---- witness programs for bellperson keys (issue 38.2): circom's native
# contract `PROGRAM INPUT OUT.wtns`, the values in bellperson's [inputs |
# aux] order. tests/witness/bp_program.c writes them from a JSON list that
# Python makes of keygen's circuit.wtns; the prover's constraint check and
# verify --bellperson judge its output. Then programs that crash, loop and
# write another circuit's witness, each failing only its job.
P="$TMP/prog"
mkdir -p "$P"
cc -O2 -o "$P/bpw" tests/witness/bp_program.c 2>"$TMP/err" || bad "cannot build tests/witness/bp_program.c"
cc -O2 -o "$P/fp-segv" tests/witness/fault_program.c 2>"$TMP/err" && cp "$P/fp-segv" "$P/fp-loop" \
    || bad "cannot build tests/witness/fault_program.c"
for f in bpw fp-segv fp-loop; do echo "no data: the programs read only INPUT" >"$P/$f.dat"; done
R=52435875175126190479447740508185965837690552500527637822603658699938581184513 # r of BLS12-381
# a .wtns's values as {"wires": [decimal, ...]} (values from byte 76, nWitness at 60)
wires_json() {
    python3 -c '
import sys, json
b = open(sys.argv[1], "rb").read()
n = int.from_bytes(b[60:64], "little")
assert b[:4] == b"wtns" and len(b) == 76 + 32 * n
v = [int.from_bytes(b[76 + 32 * i:108 + 32 * i], "little") for i in range(n)]
if len(sys.argv) > 3:
    v[-1] = (v[-1] + 1) % int(sys.argv[3])  # the last aux wire changed
json.dump({"wires": [str(x) for x in v]}, open(sys.argv[2], "w"))
' "$@"
}
wires_json "$d/circuit.wtns" "$d/wires.json" && wires_json "$TMP/o/circuit.wtns" "$d/other.json" \
    && wires_json "$d/circuit.wtns" "$d/unsat.json" "$R" || bad "wires_json"
rm -f "$d/fp.bin"
if $BIN fullprove --params "$d/circuit.params" --pce "$d/circuit.pce" --backend cpu -q \
    "$d/wires.json" "$P/bpw" "$d/fp.bin" 2>"$TMP/err" \
    && $BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json" "$d/fp.bin" 2>>"$TMP/err"; then
    ok "fullprove --params --pce: the witness program's witness is proved, verify --bellperson accepts it"
else bad "fullprove --params --pce with tests/witness/bp_program.c"; fi
$BIN fullprove --params "$d/circuit.params" --pce "$d/circuit.pce" --backend cpu -q \
    "$d/unsat.json" "$P/bpw" "$d/fpu.bin" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'unsat.json.*does not satisfy the circuit' "$TMP/err" && [ ! -e "$d/fpu.bin" ] \
    && ok "fullprove --params: an input whose last aux wire is off by one is not proved (nothing written)" \
    || bad "fullprove --params: unsatisfied input"
$BIN fullprove --params "$d/circuit.params" --pce "$d/circuit.pce" --backend cpu -q \
    "$d/other.json" "$P/bpw" "$d/fpo.bin" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'other.json: the witness program .*/bpw writes a witness of 1004 wires, the key .* has 2048: made for another circuit?' "$TMP/err" \
    && [ ! -e "$d/fpo.bin" ] && ok "fullprove --params: another circuit's witness names both wire counts" \
    || bad "fullprove --params: another circuit's witness"

$BIN fullprove --params "$d/circuit.params" --pce "$d/circuit.pce" "$d/wires.json" "$P/bpw" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'INPUT, PROGRAM and OUT are required' "$TMP/err" \
    && ok "fullprove --params: INPUT PROGRAM without OUT is a usage error" || bad "fullprove --params: 2 positionals"
$BIN fullprove --params "$d/circuit.params" --pce "$d/circuit.pce" --witness-time 0 "$d/wires.json" "$P/bpw" "$d/z.bin" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--witness-time 0: want 1..2592000 seconds' "$TMP/err" && [ ! -e "$d/z.bin" ] \
    && ok "fullprove --params: --witness-time 0 is a usage error" || bad "fullprove --params: --witness-time 0"
# one program per key, and names of one pair are one key (cached by SHA-256):
# the failing programs get keys of their own (any circuit: they write nothing)
mkdir -p "$TMP/o2"
$BIN keygen -q --curve bls12381 --constraints 500 --public 1 --seed 6 --format bellperson --out "$TMP/o2" 2>/dev/null
$BIN serve --socket "$SOCK" --threads 2 --synth 2 --slots 2 --backend cpu --witness-time 4 \
    --key bp="$d/circuit.params:$d/circuit.pce" --key segv="$TMP/o/circuit.params:$TMP/o/circuit.pce" \
    --key loop="$TMP/o2/circuit.params:$TMP/o2/circuit.pce" --witness-program bp="$P/bpw" \
    --witness-program segv="$P/fp-segv" --witness-program loop="$P/fp-loop" 2>"$TMP/serve.log" &
SERVE_PID=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$SOCK" ] || { cp "$TMP/serve.log" "$TMP/err"; bad "serve --witness-program for bellperson keys did not come up"; }
j_segv=$($BIN submit --socket "$SOCK" --key segv --input "$d/wires.json" 2>"$TMP/err")
j_loop=$($BIN submit --socket "$SOCK" --key loop --input "$d/wires.json" 2>>"$TMP/err")
j_other=$($BIN submit --socket "$SOCK" --key bp --input "$d/other.json" 2>>"$TMP/err")
rm -f "$d/in.bin"
if $BIN submit --socket "$SOCK" --key bp --input "$d/wires.json" --input "$d/wires.json" --wait \
    --bellperson "$d/in.bin" >/dev/null 2>>"$TMP/err" && [ "$(wc -c < "$d/in.bin")" -eq 384 ] \
    && $BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json,$d/public.json" "$d/in.bin" 2>>"$TMP/err"; then
    ok "daemon: submit --key bp --input x2 --wait --bellperson: 384 bytes, both proofs pass verify --bellperson"
else bad "daemon: submit --input on a bellperson key"; fi
bp_job_fail() {
    if $BIN wait --socket "$SOCK" --bellperson "$d/x.bin" "$2" 2>"$TMP/err"; then bad "daemon: the $1 job succeeded"
    elif grep -q -- "$3" "$TMP/err" && [ ! -e "$d/x.bin" ]; then ok "daemon: the $1 job fails alone: $(head -c 150 "$TMP/err")"
    else bad "daemon: the $1 job failed without '$3'"; fi
}
bp_job_fail "segfaulting program's" "$j_segv" "wires.json: the witness program failed (killed by signal 11"
bp_job_fail "looping program's" "$j_loop" "wires.json: the witness program failed (past its wall-clock limit of 4 s)"
bp_job_fail "other circuit's program's" "$j_other" "other.json: the witness program .*/bpw writes a witness of 1004 wires, the key .* has 2048: made for another circuit?"
rm -f "$d/after.bin"
$BIN submit --socket "$SOCK" --key bp --input "$d/wires.json" --wait --bellperson "$d/after.bin" >/dev/null 2>"$TMP/err" \
    && $BIN verify --bellperson -q "$d/circuit.vk" "$d/public.json" "$d/after.bin" 2>>"$TMP/err" \
    && ok "daemon: after the three failures an input job of the key is proved and verifies" \
    || bad "daemon: input job after the failures"
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=

# ---- failures
cp "$d/proof.bin" "$d/t.bin"; xorbyte "$d/t.bin" 100 1
$BIN verify --bellperson "$d/circuit.vk" "$d/public.json" "$d/t.bin" 2>"$TMP/err" \
    && bad "bellperson: a tampered B verified" \
    || { grep -q 'INVALID' "$TMP/err" && ok "bellperson: a tampered proof is INVALID ($(sed 's/.*proof 0/proof 0/' "$TMP/err" | head -c 70))"; }
cp "$d/proof.bin" "$d/t.bin"; xorbyte "$d/t.bin" 0 32
$BIN verify --bellperson "$d/circuit.vk" "$d/public.json" "$d/t.bin" 2>"$TMP/err" \
    && bad "bellperson: -A verified" || ok "bellperson: A with its sign flipped is INVALID"
jq '.[0] = "12345"' "$d/public.json" > "$d/pub-bad.json"
$BIN verify --bellperson -q "$d/circuit.vk" "$d/pub-bad.json" "$d/proof.bin" 2>"$TMP/err" \
    && bad "bellperson: a changed public input verified" || ok "bellperson: a changed public input is INVALID"
head -c 191 "$d/proof.bin" > "$d/t.bin"
$BIN verify --bellperson "$d/circuit.vk" "$d/public.json" "$d/t.bin" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'not a multiple of 192' "$TMP/err" && ok "bellperson: 191 bytes: not a multiple of 192" \
    || bad "bellperson: truncated proof"

# a corrupt point: h point 5 (vk = 3 G1 + 3 G2 + 4 + 4 ic; h count; 5 points)
VK=$((3 * 96 + 3 * 192 + 4 + 4 * 96))
cp "$d/circuit.params" "$d/bad.params"; xorbyte "$d/bad.params" $((VK + 4 + 5 * 96 + 95)) 1
rm -f "$d/out.bin"
$BIN prove -q --params "$d/bad.params" --pce "$d/circuit.pce" "$d/circuit.wtns" "$d/out.bin" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'section h point 5 .*not on the curve' "$TMP/err" && [ ! -e "$d/out.bin" ] \
    && ok "bellperson: a point off the curve: $(head -c 90 "$TMP/err")" || bad "bellperson: corrupt h point"
cp "$d/circuit.params" "$d/bad.params"; xorbyte "$d/bad.params" $((VK + 4)) 128
$BIN prove -q --params "$d/bad.params" --pce "$d/circuit.pce" "$d/circuit.wtns" "$d/out.bin" 2>"$TMP/err"
grep -q 'section h point 0 .*compression flag' "$TMP/err" && ok "bellperson: a compressed point in .params is named" \
    || bad "bellperson: compressed flag"
head -c $((VK + 1000)) "$d/circuit.params" > "$d/bad.params"
$BIN prove -q --params "$d/bad.params" --pce "$d/circuit.pce" "$d/circuit.wtns" "$d/out.bin" 2>"$TMP/err"
grep -q 'section h: count 2047 needs' "$TMP/err" && ok "bellperson: a truncated .params is named" || bad "bellperson: truncated params"

# another circuit's PCE, a witness of another size, an unsatisfied witness
$BIN prove -q --params "$d/circuit.params" --pce "$TMP/o/circuit.pce" "$d/circuit.wtns" "$d/out.bin" 2>"$TMP/err"
grep -q 'aux wires, but .* has l of' "$TMP/err" && ok "bellperson: a PCE of another circuit: mismatch named" \
    || bad "bellperson: PCE mismatch"
$BIN prove -q --params "$d/circuit.params" --pce "$d/circuit.pce" "$TMP/o/circuit.wtns" "$d/out.bin" 2>"$TMP/err"
grep -q 'nWitness 1004 != the key.s nVars 2048' "$TMP/err" && ok "bellperson: a witness of another size" \
    || bad "bellperson: witness size"
cp "$d/circuit.wtns" "$d/bad.wtns"; xorbyte "$d/bad.wtns" $(( $(wc -c < "$d/bad.wtns") - 32 )) 1
$BIN prove -q --params "$d/circuit.params" --pce "$d/circuit.pce" "$d/bad.wtns" "$d/out.bin" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q 'does not satisfy the circuit' "$TMP/err" && [ ! -e "$d/out.bin" ] \
    && ok "bellperson: an unsatisfied witness fails its check, nothing written" || bad "bellperson: bad witness"

# ---- a PoRep-shaped key (issue 38.1): 2^16, S = 0.5; its statistics read
# from the files by tests/porep_stats.py against PoRep's published figures
p="$TMP/porep"
mkdir -p "$p"
if $BIN keygen -q --format bellperson --shape porep --scale 0.5 --domain-log2 16 --seed 38 \
    --backend cpu --out "$p" 2>"$TMP/err"; then ok "keygen --shape porep --scale 0.5 --domain-log2 16"
else bad "keygen --shape porep"; fi
[ "$(ls -A "$p" | sort | tr '\n' ' ')" = "circuit.params circuit.pce circuit.vk circuit.wtns public.json " ] \
    && ok "porep: exactly .params, .vk, .pce, the witness and public.json" || bad "porep: files: $(ls -A "$p")"
grep -q 'bytes (.* GiB: .params .*) to .*bytes free' "$TMP/err" \
    && ok "porep: the disk needed printed before the work" || bad "porep: no disk figure"
if python3 tests/porep_stats.py "$p" 0.5 16 >"$TMP/stats" 2>&1; then
    ok "porep: statistics read from the files match PoRep's ($(grep -c '^ok' "$TMP/stats") checks)"
else bad "porep: statistics"; sed 's/^/#   /' "$TMP/stats"; fi
if $BIN prove -q --params "$p/circuit.params" --pce "$p/circuit.pce" --backend cpu "$p/circuit.wtns" \
    "$p/proof.bin" 2>"$TMP/err" && $BIN verify --bellperson -q "$p/circuit.vk" "$p/public.json" \
    "$p/proof.bin" 2>>"$TMP/err"; then
    ok "porep: prove --params --pce, the proof accepted by verify --bellperson"
else bad "porep: prove / verify"; fi
# killed mid-way (once it has printed its shape: the work has begun): the
# files are unnamed temporaries until the end, so nothing is left
mkdir -p "$TMP/pkill"
$BIN keygen --format bellperson --shape porep --domain-log2 20 --seed 38 --backend cpu \
    --out "$TMP/pkill" 2>"$TMP/pkill.err" &
kpid=$!
n=0
until grep -q 'porep shape, domain 2^20' "$TMP/pkill.err" || [ $n -ge 1200 ]; do sleep 0.05; n=$((n + 1)); done
kill "$kpid" 2>/dev/null; wait "$kpid"; krc=$?
[ "$krc" -eq 143 ] && [ -z "$(ls -A "$TMP/pkill")" ] \
    && ok "porep: keygen killed mid-way leaves no file" || bad "porep: killed keygen: rc $krc, $(ls -A "$TMP/pkill")"
$BIN keygen -q --format bellperson --shape porep --scale 0 --out "$p" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--scale "0"' "$TMP/err" && ok "porep: --scale 0 is a usage error" || bad "porep: scale 0"
$BIN keygen -q --format bellperson --shape porep --scale 1.01 --out "$p" 2>"$TMP/err"
[ $? -eq 2 ] && ok "porep: --scale 1.01 is a usage error" || bad "porep: scale 1.01"
$BIN keygen -q --format bellperson --shape porep --domain-log2 13 --out "$p" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'want 14..27' "$TMP/err" && ok "porep: --domain-log2 13 is a usage error (14..27)" \
    || bad "porep: domain 13"
$BIN keygen -q --format bellperson --shape porep --domain-log2 14 --scale 0.01 --out "$p" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'aux wires, want at least 256' "$TMP/err" && ok "porep: a scale too small is refused" \
    || bad "porep: tiny scale"
$BIN keygen -q --format bellperson --shape porep --constraints 100 --out "$p" 2>"$TMP/err"
[ $? -eq 2 ] && ok "porep: --constraints with --shape porep is a usage error" || bad "porep: --constraints"

# keygen arguments
$BIN keygen -q --curve bn128 --constraints 100 --format bellperson --out "$TMP/o" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'BLS12-381' "$TMP/err" && ok "keygen: --format bellperson on bn128 is a usage error" \
    || bad "keygen: bellperson bn128"
$BIN keygen -q --curve bls12381 --constraints 100 --format plonk --out "$TMP/o" 2>"$TMP/err"
[ $? -eq 2 ] && ok "keygen: --format plonk is a usage error" || bad "keygen: --format plonk"

echo "bellperson: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
