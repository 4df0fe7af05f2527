#!/bin/sh
# Witness programs (make test-witness; part of make test): the bundled
# circuits compiled here with circom2 both ways (--c, built with make/g++/
# nasm from Debian; --wasm, run by node), their witnesses byte for byte
# equal to `snarkjs wtns calculate`'s and to the fixtures, `slotprove
# fullprove` on both curves with both program kinds, proofs verified by
# snarkjs; the same for a circuit of circomlib templates
# (tests/witness/circomlib.circom: Num2Bits, BinSum, LessThan, IsEqual),
# with keys made here and its outputs checked against shell arithmetic; then each failure kind (a circuit assert, missing and extra
# signals, a segfault, a CPU loop, a sleeper, unbounded allocation, a
# non-zero exit, a truncated and a wrong-prime .wtns, not a program) failing
# with its own message, exit 1 and no output; then the daemon (serve
# --witness-program, submit --input): good and failing inputs side by side,
# only the failing job fails.
#
# Compiled programs are kept in build/witness-programs/, rebuilt when their
# .circom changes (a C++ build takes about a minute on 2 cores).
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
CIRCOM=tests/node_modules/.bin/circom2
FIX=tests/fixtures
PROGS=build/witness-programs
TMP=$(mktemp -d)
SERVE_PID=""
cleanup() {
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; [ -f "$TMP/err" ] && sed 's/^/       /' "$TMP/err" | tail -5; }
# poll SECONDS CMD...: runs CMD every 50 ms until it succeeds or SECONDS pass
poll() {
    _end=$(($(date +%s) + $1))
    shift
    while :; do
        "$@" && return 0
        [ "$(date +%s)" -ge "$_end" ] && return 1
        sleep 0.05
    done
}

# compile CIRCOM_FILE CURVE NAME KINDS ("c wasm" or "wasm"): programs into
# $PROGS/CURVE/, the native one at $PROGS/CURVE/NAME_cpp/NAME
compile() {
    src=$1; curve=$2; n=$3; kinds=$4
    d=$PROGS/$curve
    mkdir -p "$d"
    if [ -f "$d/$n.circom" ] && cmp -s "$src" "$d/$n.circom" &&
        { [ "${kinds#c }" = "$kinds" ] || [ -x "$d/${n}_cpp/$n" ]; } && [ -f "$d/${n}_js/$n.wasm" ]; then
        return 0
    fi
    rm -rf "$d/${n}_cpp" "$d/${n}_js" "$d/$n.circom"
    flags=""
    for k in $kinds; do flags="$flags --$k"; done
    if ! nice "$CIRCOM" "$src" $flags --O1 -p "$curve" -l tests/node_modules -o "$d" >"$TMP/err" 2>&1; then
        bad "circom2 $n ($curve) failed"; return 1
    fi
    if [ "${kinds#c }" != "$kinds" ] && ! nice make -C "$d/${n}_cpp" -j2 >"$TMP/err" 2>&1; then
        bad "building $n's C++ witness program ($curve) failed (g++, nasm, libgmp-dev, nlohmann-json3-dev)"
        return 1
    fi
    cp "$src" "$d/$n.circom"
}

# ---- the bundled circuits: witnesses, fullprove -----------------------------
for curve in bn128 bls12381; do
    for c in chain nopub allpub; do
        name="$curve/$c"
        kinds="wasm"
        [ "$c" = chain ] && kinds="c wasm"
        compile "$FIX/circuits/$c.circom" "$curve" "$c" "$kinds" || continue
        d=$PROGS/$curve
        in=$FIX/circuits/$c.input.json
        rm -f "$TMP/err"
        $SNARKJS wtns calculate "$d/${c}_js/$c.wasm" "$in" "$TMP/snarkjs.wtns" >"$TMP/err" 2>&1
        if cmp -s "$TMP/snarkjs.wtns" "$FIX/$curve/$c.wtns"; then ok "$name: snarkjs wtns calculate gives the fixture's witness"
        else bad "$name: snarkjs's witness differs from the fixture"; fi
        node "$d/${c}_js/generate_witness.js" "$d/${c}_js/$c.wasm" "$in" "$TMP/wasm.wtns" >"$TMP/err" 2>&1
        if cmp -s "$TMP/wasm.wtns" "$TMP/snarkjs.wtns"; then ok "$name: the .wasm program's witness is byte-equal to snarkjs's"
        else bad "$name: the .wasm program's witness differs from snarkjs's"; fi
        progs="$d/${c}_js/$c.wasm"
        if [ "$c" = chain ]; then
            "$d/${c}_cpp/$c" "$in" "$TMP/native.wtns" >"$TMP/err" 2>&1
            if cmp -s "$TMP/native.wtns" "$TMP/snarkjs.wtns"; then ok "$name: the native program's witness is byte-equal to snarkjs's"
            else bad "$name: the native program's witness differs from snarkjs's"; fi
            progs="$d/${c}_cpp/$c $progs"
        fi
        for p in $progs; do
            kind=native
            case $p in *.wasm) kind=wasm ;; esac
            out=$TMP/$curve-$c-$kind
            if ! $BIN fullprove -q --threads 2 "$in" "$p" "$FIX/$curve/$c.zkey" "$out.proof.json" "$out.public.json" 2>"$TMP/err"; then
                bad "$name: fullprove with the $kind program failed"; continue
            fi
            if $SNARKJS groth16 verify "$FIX/$curve/$c.vk.json" "$out.public.json" "$out.proof.json" >"$TMP/err" 2>&1 &&
                grep -q 'OK!' "$TMP/err"; then ok "$name: fullprove ($kind program): snarkjs verifies the proof"
            else bad "$name: fullprove ($kind program): snarkjs rejects the proof"; fi
            if cmp -s "$out.public.json" "$FIX/$curve/$c.public.json"; then ok "$name: fullprove ($kind program): public.json equals snarkjs's"
            else bad "$name: fullprove ($kind program): public.json differs"; fi
        done
    done
done

# ---- a circuit of circomlib templates, both ways, both curves ---------------
# keys made here (powers of tau 2^10, groth16 setup; cached with the
# programs); its outputs a + b, a < b and a == b are checked against shell
# arithmetic
A=987654321098765432 B=1234567890123456789
printf '{"a": "%s", "b": "%s"}\n' "$A" "$B" >"$TMP/cl.json"
for curve in bn128 bls12381; do
    name="$curve/circomlib"
    compile tests/witness/circomlib.circom "$curve" circomlib "c wasm" || continue
    d=$PROGS/$curve
    if ! [ -f "$d/circomlib.zkey" ] || ! [ "$d/circomlib.zkey" -nt "$d/circomlib.circom" ]; then
        rm -f "$d/circomlib.zkey"
        nice "$CIRCOM" tests/witness/circomlib.circom --r1cs --O1 -p "$curve" -l tests/node_modules \
            -o "$d" >"$TMP/err" 2>&1 &&
            $SNARKJS powersoftau new "$curve" 10 "$d/cl0.ptau" >"$TMP/err" 2>&1 &&
            $SNARKJS powersoftau prepare phase2 "$d/cl0.ptau" "$d/cl.ptau" >"$TMP/err" 2>&1 &&
            $SNARKJS groth16 setup "$d/circomlib.r1cs" "$d/cl.ptau" "$d/circomlib.zkey.tmp" >"$TMP/err" 2>&1 &&
            $SNARKJS zkey export verificationkey "$d/circomlib.zkey.tmp" "$d/circomlib.vk.json" >"$TMP/err" 2>&1 &&
            mv "$d/circomlib.zkey.tmp" "$d/circomlib.zkey" || { bad "$name: making its key failed"; continue; }
        rm -f "$d/cl0.ptau" "$d/cl.ptau"
    fi
    rm -f "$TMP/err"
    $SNARKJS wtns calculate "$d/circomlib_js/circomlib.wasm" "$TMP/cl.json" "$TMP/cl-snarkjs.wtns" >"$TMP/err" 2>&1
    "$d/circomlib_cpp/circomlib" "$TMP/cl.json" "$TMP/cl-native.wtns" >"$TMP/err" 2>&1
    node "$d/circomlib_js/generate_witness.js" "$d/circomlib_js/circomlib.wasm" "$TMP/cl.json" "$TMP/cl-wasm.wtns" >"$TMP/err" 2>&1
    if [ -s "$TMP/cl-snarkjs.wtns" ] && cmp -s "$TMP/cl-native.wtns" "$TMP/cl-snarkjs.wtns"; then ok "$name: the native program's witness is byte-equal to snarkjs's"
    else bad "$name: the native program's witness differs from snarkjs's"; fi
    if [ -s "$TMP/cl-snarkjs.wtns" ] && cmp -s "$TMP/cl-wasm.wtns" "$TMP/cl-snarkjs.wtns"; then ok "$name: the .wasm program's witness is byte-equal to snarkjs's"
    else bad "$name: the .wasm program's witness differs from snarkjs's"; fi
    want=$(printf '["%s","%s","%s"]' $((A + B)) $((A < B)) $((A == B)))
    for p in "$d/circomlib_cpp/circomlib" "$d/circomlib_js/circomlib.wasm"; do
        kind=native
        case $p in *.wasm) kind=wasm ;; esac
        out=$TMP/cl-$curve-$kind
        if ! $BIN fullprove -q --threads 2 "$TMP/cl.json" "$p" "$d/circomlib.zkey" "$out.proof.json" "$out.public.json" 2>"$TMP/err"; then
            bad "$name: fullprove with the $kind program failed"; continue
        fi
        if $SNARKJS groth16 verify "$d/circomlib.vk.json" "$out.public.json" "$out.proof.json" >"$TMP/err" 2>&1 &&
            grep -q 'OK!' "$TMP/err"; then ok "$name: fullprove ($kind program): snarkjs verifies the proof"
        else bad "$name: fullprove ($kind program): snarkjs rejects the proof"; fi
        if [ "$(jq -c . "$out.public.json")" = "$want" ]; then
            ok "$name: fullprove ($kind program): public.json is [a + b, a < b, a == b]"
        else bad "$name: fullprove ($kind program): public.json $(jq -c . "$out.public.json") is not $want"; fi
    done
done

# ---- more public signals than one control message holds (300) -------------
# a key made here: powers of tau 2^10 and groth16 setup (about 30 s, cached)
M=$PROGS/many
mkdir -p "$M"
if ! [ -f "$M/many.zkey" ] || ! cmp -s tests/witness/many.circom "$M/many.circom"; then
    rm -f "$M/many.zkey" "$M/many.circom"
    nice "$CIRCOM" tests/witness/many.circom --r1cs --wasm --O1 -o "$M" >"$TMP/err" 2>&1 &&
        $SNARKJS powersoftau new bn128 10 "$M/p0.ptau" >"$TMP/err" 2>&1 &&
        $SNARKJS powersoftau prepare phase2 "$M/p0.ptau" "$M/p.ptau" >"$TMP/err" 2>&1 &&
        $SNARKJS groth16 setup "$M/many.r1cs" "$M/p.ptau" "$M/many.zkey.tmp" >"$TMP/err" 2>&1 &&
        $SNARKJS zkey export verificationkey "$M/many.zkey.tmp" "$M/vk.json" >"$TMP/err" 2>&1 &&
        mv "$M/many.zkey.tmp" "$M/many.zkey" && cp tests/witness/many.circom "$M/many.circom" ||
        bad "building the 300-output key failed"
fi
printf '{"x": "5"}\n' >"$TMP/many.json"
if $BIN fullprove -q --threads 2 "$TMP/many.json" "$M/many_js/many.wasm" "$M/many.zkey" \
    "$TMP/many.proof.json" "$TMP/many.public.json" 2>"$TMP/err"; then
    # out[i] = x*x + i = 25 + i
    if [ "$(jq -c . "$TMP/many.public.json")" = "$(jq -nc '[range(300) | 25 + . | tostring]')" ]; then
        ok "300 public signals: public.json is [25 .. 324]"
    else bad "300 public signals: public.json is wrong"; fi
    if $SNARKJS groth16 verify "$M/vk.json" "$TMP/many.public.json" "$TMP/many.proof.json" 2>&1 | grep -q 'OK!'; then
        ok "300 public signals: snarkjs verifies the proof"
    else bad "300 public signals: snarkjs rejects the proof"; fi
else bad "300 public signals: fullprove failed"; fi

# ---- failures: each with its own message, exit 1, nothing written ----------
compile tests/witness/assert.circom bn128 assert "c wasm"
F=$TMP/fault
cc -O2 -o "$F" tests/witness/fault_program.c || bad "cannot build tests/witness/fault_program.c"
for k in segv loop sleep alloc exit truncated prime; do
    cp "$F" "$F-$k"
    cp "$FIX/bn128/chain.wtns" "$F-$k.dat" # the witness it writes (read in its sandbox)
done
printf 'just text\n' >"$TMP/notaprogram"
chmod +x "$TMP/notaprogram"
mkdir -p "$TMP/lonely"
cp "$PROGS/bn128/chain_js/chain.wasm" "$TMP/lonely/chain.wasm"
printf '{"x0": "3"}\n' >"$TMP/missing.json"
printf '{"x0": "3", "k": "7", "extra": "1"}\n' >"$TMP/extra.json"
CIN=$FIX/circuits/chain.input.json
KEY=$FIX/bn128/chain.zkey
NATIVE=$PROGS/bn128/chain_cpp/chain
WASM=$PROGS/bn128/chain_js/chain.wasm

# expect_fail WHAT WANT OPTIONS INPUT PROGRAM: exit 1, the message, no output
expect_fail() {
    what=$1; want=$2; opts=$3; in=$4; prog=$5
    rm -f "$TMP/x.proof.json" "$TMP/x.public.json"
    $BIN fullprove -q --threads 2 $opts "$in" "$prog" "$KEY" "$TMP/x.proof.json" "$TMP/x.public.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q -- "$want" "$TMP/err" && [ ! -f "$TMP/x.proof.json" ] && [ ! -f "$TMP/x.public.json" ]; then
        ok "failure: $what"
    else bad "failure: $what (exit $rc, wanted 1 and '$want')"; fi
}
expect_fail "circuit assert (native)" "assert.bad.json: the witness program failed: Failed assert in template/function Small line 8" \
    "" tests/witness/assert.bad.json "$PROGS/bn128/assert_cpp/assert"
expect_fail "circuit assert (wasm)" "assert.bad.json: the witness program failed: Error in template Small_0 line: 8 (exit 1)" \
    "" tests/witness/assert.bad.json "$PROGS/bn128/assert_js/assert.wasm"
expect_fail "missing signal (native)" "missing.json: the witness program failed: Not all inputs have been set. Only 1 out of 2 (killed by signal 6" \
    "" "$TMP/missing.json" "$NATIVE"
expect_fail "missing signal (wasm)" "missing.json: the witness program failed: Error: Not all inputs have been set. Only 1 out of 2 (exit 1)" \
    "" "$TMP/missing.json" "$WASM"
expect_fail "extra signal (wasm)" "extra.json: the witness program failed: .*extra" "" "$TMP/extra.json" "$WASM"
expect_fail "segfault" "chain.input.json: the witness program failed (killed by signal 11, Segmentation fault)" "" "$CIN" "$F-segv"
expect_fail "CPU loop" "the witness program failed (past its CPU limit of 2 s)" "--witness-cpu 2 --witness-time 600" "$CIN" "$F-loop"
expect_fail "sleeper" "the witness program failed (past its wall-clock limit of 3 s)" "--witness-time 3" "$CIN" "$F-sleep"
expect_fail "unbounded allocation" "the witness program failed: fault_program: out of memory (exit 4; its memory limit is 0.25 GiB)" \
    "--witness-mem 256M --witness-time 600" "$CIN" "$F-alloc"
expect_fail "non-zero exit" "the witness program failed: Error: bad input signal x (exit 3)" "" "$CIN" "$F-exit"
expect_fail "truncated .wtns" "chain.input.json (its witness program's .wtns): truncated" "" "$CIN" "$F-truncated"
expect_fail "wrong-prime .wtns" "chain.input.json (its witness program's .wtns): unknown prime" "" "$CIN" "$F-prime"
expect_fail "not a program" "notaprogram: not a witness program" "" "$CIN" "$TMP/notaprogram"
expect_fail "a .wasm without generate_witness.js" "generate_witness.js" "" "$CIN" "$TMP/lonely/chain.wasm"
cp "$NATIVE" "$TMP/lonely/chain"
expect_fail "a native program without its .dat" "lonely/chain.dat: circom's data file must be beside the witness program" \
    "" "$CIN" "$TMP/lonely/chain"

# ---- a program made for another circuit than the key's ----------------------
# one message naming the program, the key and both wire counts (read here
# from the snarkjs-made fixtures' .wtns headers: nWitness at byte 60), for
# a program of a larger circuit (stopped at the output limit: native
# SIGXFSZ, node's EFBIG) and of a smaller one (a whole .wtns of too few
# wires); stopped before writing a header: the bytes it wrote and the limit
wires() { od -A n -t u4 -j 60 -N 4 "$1" | tr -d ' '; }
W_CHAIN=$(wires "$FIX/bn128/chain.wtns") W_NOPUB=$(wires "$FIX/bn128/nopub.wtns")
NOPUB_KEY=$FIX/bn128/nopub.zkey
# expect_mismatch WHAT WANT INPUT PROGRAM KEY
expect_mismatch() {
    rm -f "$TMP/x.proof.json" "$TMP/x.public.json"
    $BIN fullprove -q --threads 2 "$3" "$4" "$5" "$TMP/x.proof.json" "$TMP/x.public.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qF -- "$2" "$TMP/err" && [ ! -f "$TMP/x.proof.json" ]; then
        ok "another circuit's program: $1"
    else bad "another circuit's program: $1 (exit $rc, wanted 1 and '$2')"; fi
}
for p in "$NATIVE" "$WASM"; do
    expect_mismatch "$(basename "$p"), a larger circuit, with nopub's key" \
        "chain.input.json: the witness program $(realpath "$p") writes a witness of $W_CHAIN wires, the key $NOPUB_KEY has $W_NOPUB: made for another circuit?" \
        "$CIN" "$p" "$NOPUB_KEY"
done
expect_mismatch "nopub.wasm, a smaller circuit, with chain's key" \
    "nopub.input.json: the witness program $(realpath "$PROGS/bn128/nopub_js/nopub.wasm") writes a witness of $W_NOPUB wires, the key $KEY has $W_CHAIN: made for another circuit?" \
    "$FIX/circuits/nopub.input.json" "$PROGS/bn128/nopub_js/nopub.wasm" "$KEY"
$SNARKJS wtns calculate "$PROGS/bn128/circomlib_js/circomlib.wasm" "$TMP/cl.json" "$TMP/cl-bn128.wtns" >"$TMP/err" 2>&1
W_CL=$(wires "$TMP/cl-bn128.wtns")
expect_mismatch "circomlib (native), a smaller circuit, with chain's key" \
    "cl.json: the witness program $(realpath "$PROGS/bn128/circomlib_cpp/circomlib") writes a witness of $W_CL wires, the key $KEY has $W_CHAIN: made for another circuit?" \
    "$TMP/cl.json" "$PROGS/bn128/circomlib_cpp/circomlib" "$KEY"
# not quiet: the message once, and no internal job id
$BIN fullprove --threads 2 "$CIN" "$NATIVE" "$NOPUB_KEY" "$TMP/x.proof.json" "$TMP/x.public.json" 2>"$TMP/err"
if [ "$(grep -c 'made for another circuit' "$TMP/err")" = 1 ] && ! grep -Eq 'job [0-9a-f]{16}' "$TMP/err"; then
    ok "another circuit's program, not quiet: one message, no job id"
else bad "another circuit's program, not quiet: $(grep -c 'made for another circuit' "$TMP/err") messages"; fi
# no header: chain's .wtns with section 1's id changed (byte 12: 1 -> 9),
# written until stopped at nopub's limit, 76 + 32 nWitness + 4096 bytes
cp "$F" "$F-flood"
cp "$FIX/bn128/chain.wtns" "$F-flood.dat"
printf '\011' | dd of="$F-flood.dat" bs=1 seek=12 conv=notrunc 2>/dev/null
expect_mismatch "stopped before a header" \
    "chain.input.json: the witness program $(realpath "$F-flood") was stopped after writing $((76 + 32 * W_NOPUB + 4096)) bytes, the most a witness of the key $NOPUB_KEY ($W_NOPUB wires) takes with its headers ($((76 + 32 * W_NOPUB + 4096)) bytes): made for another circuit?" \
    "$CIN" "$F-flood" "$NOPUB_KEY"

# ---- prove's options in fullprove (one parser, run/cli/prove_opts.c) ---------
for o in "--gpu-mem 1G" "--backend cpu" "--threads 1" "--no-verify" "--gpu-mem 1G --backend auto --threads 2 -q"; do
    rm -f "$TMP/o.proof.json" "$TMP/o.public.json"
    # shellcheck disable=SC2086
    if $BIN fullprove $o "$CIN" "$NATIVE" "$KEY" "$TMP/o.proof.json" "$TMP/o.public.json" 2>"$TMP/err" &&
        $SNARKJS groth16 verify "$FIX/bn128/chain.vk.json" "$TMP/o.public.json" "$TMP/o.proof.json" 2>&1 | grep -q 'OK!'; then
        ok "fullprove $o: snarkjs verifies the proof"
    else bad "fullprove $o failed or its proof does not verify"; fi
done
for o in "--gpu-mem 0" "--threads 1025" "--backend gpu"; do
    # shellcheck disable=SC2086
    $BIN fullprove $o "$CIN" "$NATIVE" "$KEY" "$TMP/o.proof.json" "$TMP/o.public.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "${o% *}" "$TMP/err"; then ok "fullprove $o: usage error naming the option"
    else bad "fullprove $o: exit $rc"; fi
done
fp_help=$($BIN fullprove --help)
for o in --gpu-mem --backend --threads --quiet --no-verify --witness-mem --witness-cpu --witness-time; do
    case $fp_help in *"$o"*) ;; *) bad "fullprove --help lacks $o" ;; esac
done
[ "$($BIN prove --help | sed -n '/^options:/,/--help/p' | grep -v '^options:')" = "$(echo "$fp_help" | sed -n '/^options:/,/--help/p' | grep -v -e '^options:' -e '--witness-' -e 'default 8G' -e 'data segment for node')" ] &&
    ok "fullprove --help: prove's options, word for word, and the witness program's" || bad "fullprove --help's options differ from prove's"

# ---- the daemon: serve --witness-program, submit --input ---------------------
D=$TMP/d
mkdir -m 700 "$D"
SOCK=$D/s.sock
cp "$F" "$F-slow"
cp "$FIX/bls12381/chain.wtns" "$F-slow.dat"
$BIN serve --socket "$SOCK" --threads 2 --synth 2 --slots 2 --witness-time 30 \
    --key chain=$KEY --witness-program chain=$NATIVE \
    --key nopub=$FIX/bn128/nopub.zkey --witness-program nopub=$PROGS/bn128/nopub_js/nopub.wasm \
    --key segv=$FIX/bls12381/allpub.zkey --witness-program segv=$F-segv \
    --key slow=$FIX/bls12381/chain.zkey --witness-program slow=$F-slow \
    --key plain=$FIX/bls12381/nopub.zkey 2>"$D/log" &
SERVE_PID=$!
sj() { $BIN status --socket "$SOCK" --json 2>/dev/null | jq -r "$1" 2>/dev/null; }
# every synthd and gpud started and idle: the children to compare with later
group_idle() { [ "$(sj '[.processes[] | select(.role != "supervisor")] | length > 0 and all(.pid > 0 and .state == "idle")')" = true ]; }
intake_idle() { [ "$(sj .intake.running)" = 0 ]; }
poll 60 group_idle || bad "serve did not come up with its children idle within 60 s: $(tail -3 "$D/log")"
kids_before=$(pgrep -P "$SERVE_PID" | sort | tr '\n' ' ')
sub() { $BIN submit --socket "$SOCK" "$@" 2>"$TMP/err"; }
good=$(sub --key chain --input "$CIN" --input "$CIN")
wasm=$(sub --key nopub --input "$FIX/circuits/nopub.input.json")
assert=$(sub --key chain --input "$TMP/missing.json")
segv=$(sub --key segv --input "$FIX/circuits/allpub.input.json")
plain=$(sub --key plain --input "$CIN")
good2=$(sub --key chain --input "$CIN")
for j in good good2 wasm; do
    eval id=\$$j
    if $BIN wait --socket "$SOCK" --proof "$D/$j.proof.json" --public "$D/$j.public.json" "$id" 2>"$TMP/err"; then
        ok "daemon: input job $j done beside the failing ones"
    else bad "daemon: input job $j failed"; fi
done
jq '.[0]' "$D/good.proof.json" >"$D/g0.proof.json"; jq '.[0]' "$D/good.public.json" >"$D/g0.public.json"
jq '.[1]' "$D/good.proof.json" >"$D/g1.proof.json"; jq '.[1]' "$D/good.public.json" >"$D/g1.public.json"
for v in "g0 $FIX/bn128/chain.vk.json" "g1 $FIX/bn128/chain.vk.json" "wasm $FIX/bn128/nopub.vk.json"; do
    set -- $v
    if $SNARKJS groth16 verify "$2" "$D/$1.public.json" "$D/$1.proof.json" 2>&1 | grep -q 'OK!'; then
        ok "daemon: snarkjs verifies input job proof $1"
    else bad "daemon: snarkjs rejects input job proof $1"; fi
done
# expect_job_fail WHAT ID WANT
expect_job_fail() {
    if $BIN wait --socket "$SOCK" --proof "$D/x.proof.json" --public "$D/x.public.json" "$2" 2>"$TMP/err"; then
        bad "daemon: $1 job succeeded"
    elif grep -q -- "$3" "$TMP/err"; then ok "daemon: $1 job fails with its message"
    else bad "daemon: $1 job failed without '$3'"; fi
}
expect_job_fail "missing signal" "$assert" "missing.json: the witness program failed: Not all inputs have been set"
expect_job_fail "segfaulting program" "$segv" "allpub.input.json: the witness program failed (killed by signal 11"
expect_job_fail "no program" "$plain" "plain: no witness program for this key"
if sub --key chain --input "$CIN" --witness "$FIX/bn128/chain.wtns" >/dev/null; then bad "daemon: inputs and witnesses mixed in one job were accepted"
else ok "daemon: inputs and witnesses are not mixed in one job"; fi
# ---- a --zkey job that carries its program (submit --program) ----------------
# native and wasm, verified by snarkjs; the program's bytes are pinned at
# submit: a program file overwritten in place (with text) after the submit
# still runs as it was for the job's later partitions; a program that is
# neither ELF nor wasm fails its job by content.
zn=$(sub --zkey "$KEY" --program "$NATIVE" --input "$CIN")
zw=$(sub --zkey "$FIX/bn128/nopub.zkey" --program "$PROGS/bn128/nopub_js/nopub.wasm" --input "$FIX/circuits/nopub.input.json")
for v in "zn $FIX/bn128/chain.vk.json $FIX/bn128/chain.public.json" "zw $FIX/bn128/nopub.vk.json $FIX/bn128/nopub.public.json"; do
    set -- $v
    eval id=\$$1
    if $BIN wait --socket "$SOCK" --proof "$D/$1.proof.json" --public "$D/$1.public.json" "$id" 2>"$TMP/err" &&
        $SNARKJS groth16 verify "$2" "$D/$1.public.json" "$D/$1.proof.json" 2>&1 | grep -q 'OK!' &&
        cmp -s "$D/$1.public.json" "$3"; then
        ok "daemon: --zkey job with its program ($1): snarkjs verifies, public.json equals snarkjs's"
    else bad "daemon: --zkey job with its program ($1) failed or does not verify"; fi
done
cp "$F" "$D/carried-slow"
cp "$FIX/bn128/chain.wtns" "$D/carried-slow.dat"
zp=$(sub --zkey "$KEY" --program "$D/carried-slow" --input "$CIN" --input "$CIN" --input "$CIN" --input "$CIN")
poll 30 intake_idle || bad "daemon: the intake of the carried program still running after 30 s"
cat "$TMP/notaprogram" >"$D/carried-slow" # same inode, other bytes
if $BIN wait --socket "$SOCK" --proof "$D/zp.proof.json" --public "$D/zp.public.json" "$zp" 2>"$TMP/err" &&
    jq '.[3]' "$D/zp.proof.json" >"$D/zp3.proof.json" && jq '.[3]' "$D/zp.public.json" >"$D/zp3.public.json" &&
    $SNARKJS groth16 verify "$FIX/bn128/chain.vk.json" "$D/zp3.public.json" "$D/zp3.proof.json" 2>&1 | grep -q 'OK!'; then
    ok "daemon: a carried program is pinned at submit (overwritten after, all 4 partitions proved)"
else bad "daemon: a carried program overwritten after submit broke its job"; fi
# the files a program reads from beside itself are pinned at submit too: a
# native program's .dat and a .wasm's generate_witness.js and
# witness_calculator.js, overwritten in place after the submit while the
# jobs wait behind slow ones (4 partitions of 1 s on 2 synthds), change
# nothing: both proofs verify. The same files run as they are now fail.
mkdir -p "$D/swap"
cp "$NATIVE" "$NATIVE.dat" "$D/swap/"
cp -r "$PROGS/bn128/nopub_js" "$D/swap/"
hold=$(sub --key slow --input "$CIN" --input "$CIN" --input "$CIN" --input "$CIN")
sn=$(sub --zkey "$KEY" --program "$D/swap/chain" --input "$CIN")
sw=$(sub --zkey "$FIX/bn128/nopub.zkey" --program "$D/swap/nopub_js/nopub.wasm" --input "$FIX/circuits/nopub.input.json")
poll 30 intake_idle || bad "daemon: the intake of the swapped programs still running after 30 s"
printf 'not circom data\n' >"$D/swap/chain.dat"
printf 'process.exit(9);\n' >"$D/swap/nopub_js/generate_witness.js"
printf 'garbage(\n' >"$D/swap/nopub_js/witness_calculator.js"
swapped=0
for v in "sn $FIX/bn128/chain.vk.json $FIX/bn128/chain.public.json" "sw $FIX/bn128/nopub.vk.json $FIX/bn128/nopub.public.json"; do
    set -- $v
    eval id=\$$1
    if $BIN wait --socket "$SOCK" --proof "$D/$1.proof.json" --public "$D/$1.public.json" "$id" 2>"$TMP/err" &&
        $SNARKJS groth16 verify "$2" "$D/$1.public.json" "$D/$1.proof.json" 2>&1 | grep -q 'OK!' &&
        cmp -s "$D/$1.public.json" "$3"; then swapped=$((swapped + 1)); fi
done
$BIN wait --socket "$SOCK" --proof "$D/h.proof.json" --public "$D/h.public.json" "$hold" 2>"$TMP/err" || bad "daemon: the slow job before the swap failed"
if [ $swapped -eq 2 ]; then ok "daemon: a program's .dat and .js files are pinned at submit (swapped after, both proofs verify)"
else bad "daemon: a program's .dat or .js swapped after submit reached its job ($swapped of 2 proofs good)"; fi
if ! $BIN fullprove -q "$CIN" "$D/swap/chain" "$KEY" "$D/x.proof.json" "$D/x.public.json" 2>/dev/null &&
    ! $BIN fullprove -q "$FIX/circuits/nopub.input.json" "$D/swap/nopub_js/nopub.wasm" "$FIX/bn128/nopub.zkey" "$D/x.proof.json" "$D/x.public.json" 2>/dev/null; then
    ok "daemon: the swapped .dat and .js fail when run as they are now (the pin test can fail)"
else bad "daemon: the swapped files still prove: the pin test proves nothing"; fi
zt=$(sub --zkey "$KEY" --program "$TMP/notaprogram" --input "$CIN")
expect_job_fail "carried non-program" "$zt" "notaprogram: not a witness program (neither an ELF"
zm=$(sub --zkey "$NOPUB_KEY" --program "$NATIVE" --input "$CIN")
expect_job_fail "another circuit's native program" "$zm" "chain.input.json: the witness program $(realpath "$NATIVE") writes a witness of $W_CHAIN wires, the key $NOPUB_KEY has $W_NOPUB: made for another circuit?"
zm=$(sub --zkey "$KEY" --program "$PROGS/bn128/nopub_js/nopub.wasm" --input "$FIX/circuits/nopub.input.json")
expect_job_fail "another circuit's wasm program" "$zm" "nopub.input.json: the witness program $(realpath "$PROGS/bn128/nopub_js/nopub.wasm") writes a witness of $W_NOPUB wires, the key $KEY has $W_CHAIN: made for another circuit?"
if sub --key chain --program "$NATIVE" --input "$CIN" >/dev/null; then bad "daemon: --program with --key was accepted"
else ok "daemon: --program goes only with --zkey"; fi
printf '{"op":"submit","key":"chain","program":"/x","inputs":["a"]}\n' >"$D/req"
if python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(open(sys.argv[2],"rb").read()); print(s.makefile().readline())' "$SOCK" "$D/req" 2>&1 |
    grep -q '"program\\" goes only with \\"zkey\\" and \\"inputs\\"'; then
    ok "daemon: the protocol refuses \"program\" without \"zkey\""
else bad "daemon: the protocol took \"program\" with \"key\""; fi

# a job carrying its own program from another uid than the daemon's is
# refused (the program would run as the daemon's user): a second daemon that
# serves uid 65534 (nobody) in a directory nobody can reach, the submit run
# as nobody (setpriv); the daemon carries on. Needs root and setpriv.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    G=$(mktemp -d /tmp/slotprove-witness-uid.XXXXXX)
    chgrp 65534 "$G" && chmod 0750 "$G"
    cp "$KEY" "$NATIVE" "$NATIVE.dat" "$CIN" "$FIX/bn128/chain.wtns" "$G/" && chmod -R g+rX "$G"
    mkdir "$G/nobody" && chown 65534:65534 "$G/nobody" # nobody's outputs
    $BIN serve --socket "$G/s.sock" --synth 1 --allow-uid 65534 --allow-gid 65534 --key chain="$G/chain.zkey" 2>"$G/log" &
    upid=$!
    poll 60 test -S "$G/s.sock" || bad "daemon: the other-uid daemon did not listen within 60 s" "$G/log"
    setpriv --reuid 65534 --regid 65534 --clear-groups $BIN submit --socket "$G/s.sock" \
        --zkey "$G/chain.zkey" --program "$G/chain" --input "$G/chain.input.json" >/dev/null 2>"$TMP/err"
    rc=$?
    if [ $rc -ne 0 ] && grep -q "$G/chain: a job may carry its witness program only from the daemon's own user (uid 0" "$TMP/err"; then
        ok "daemon: a job carrying its program from uid 65534 is refused with its reason"
    else bad "daemon: a program from another uid was not refused as it should be (exit $rc)"; fi
    if setpriv --reuid 65534 --regid 65534 --clear-groups $BIN submit --socket "$G/s.sock" --key chain \
            --witness "$G/chain.wtns" --wait --proof "$G/nobody/o.proof.json" --public "$G/nobody/o.public.json" >/dev/null 2>"$TMP/err" &&
        $BIN submit --socket "$G/s.sock" --zkey "$G/chain.zkey" --program "$G/chain" --input "$G/chain.input.json" \
            --wait --proof "$G/r.proof.json" --public "$G/r.public.json" >/dev/null 2>"$TMP/err" &&
        $SNARKJS groth16 verify "$FIX/bn128/chain.vk.json" "$G/r.public.json" "$G/r.proof.json" 2>&1 | grep -q 'OK!'; then
        ok "daemon: after the refusal it serves uid 65534's witness job and root's job with its program"
    else bad "daemon: after refusing another uid's program it did not carry on"; fi
    kill -TERM $upid 2>/dev/null; wait $upid 2>/dev/null
    rm -rf "$G"
else echo "note - SKIP the other-uid --program check: not root (or no setpriv)"; fi

kids_after=$(pgrep -P "$SERVE_PID" | sort | tr '\n' ' ')
deaths="$(sj .counters.synthd_deaths) $(sj .counters.gpud_deaths)"
if [ "$kids_before" = "$kids_after" ] && [ "$deaths" = "0 0" ]; then ok "daemon: no synthd or gpud restarted by failing witness programs (deaths synthd, gpud: $deaths)"
else bad "daemon: children changed ($kids_before -> $kids_after; deaths synthd, gpud: $deaths)"; fi

# synthd SIGKILLed while its witness program runs, 20 times (at most 40
# tries: a try whose program ends before it is seen kills nothing), a second
# job running beside it each time: the program dies with it (PDEATHSIG), the
# partition is retried, both jobs are proved.
killed=0 orphans=0 lost=0
gpud=$(pgrep -P "$SERVE_PID" -x gpud)
n=0
while [ $killed -lt 20 ] && [ $n -lt 40 ]; do
    n=$((n + 1))
    a=$(sub --key slow --input "$FIX/circuits/chain.input.json")
    b=$(sub --key chain --input "$CIN")
    prog="" s=""
    for t in $(seq 1 100); do
        for s in $(pgrep -P "$SERVE_PID" -x synthd); do
            prog=$(pgrep -P "$s" | head -1)
            [ -n "$prog" ] && break
        done
        [ -n "$prog" ] && break
        sleep 0.05
    done
    if [ -n "$prog" ]; then
        kill -9 "$s" && killed=$((killed + 1))
        t=0
        while kill -0 "$prog" 2>/dev/null && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
        kill -0 "$prog" 2>/dev/null && { orphans=$((orphans + 1)); kill -9 "$prog"; }
    fi
    for id in $a $b; do
        $BIN wait --socket "$SOCK" --proof "$D/k.proof.json" --public "$D/k.public.json" "$id" 2>"$TMP/err" || lost=$((lost + 1))
    done
done
if [ $killed -eq 20 ] && [ $orphans -eq 0 ] && [ $lost -eq 0 ]; then
    ok "daemon: synthd SIGKILLed mid-witness $killed times: no orphan program, no job lost"
else bad "daemon: SIGKILL mid-witness: $killed kills, $orphans orphan programs, $lost jobs lost"; fi
# each killed synthd left its run's private directory; the synthd started
# after it removes it: none of a dead synthd's remains
left=0
for d in "${TMPDIR:-/tmp}"/slotprove-witness-*-*; do
    [ -d "$d" ] || continue
    p=${d#"${TMPDIR:-/tmp}"/slotprove-witness-}
    kill -0 "${p%%-*}" 2>/dev/null || left=$((left + 1))
done
if [ $left -eq 0 ]; then ok "daemon: no private witness directory of a killed synthd is left"
else bad "daemon: $left private witness directories of killed synthds are left"; fi
if $SNARKJS groth16 verify "$FIX/bn128/chain.vk.json" "$D/k.public.json" "$D/k.proof.json" 2>&1 | grep -q 'OK!'; then
    ok "daemon: the last proof after the kills verifies"
else bad "daemon: the last proof after the kills does not verify"; fi
if [ "$(pgrep -P "$SERVE_PID" -x gpud)" = "$gpud" ]; then ok "daemon: gpud kept its pid through the kills"
else bad "daemon: gpud changed"; fi

echo "witness: $pass passed, $fail failed"
[ $fail -eq 0 ]
