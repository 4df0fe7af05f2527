#!/bin/sh
# make bench-witness: inputs to proof, whole commands side by side in one run
# (A B C … rounds, so load drift hits all), medians of BENCH_RUNS (default 5):
#   - slotprove fullprove with the native program (circom --c)
#   - slotprove fullprove with the .wasm program (node)
#   - snarkjs groth16 fullprove (the same .wasm and key)
#   - the witness step alone: the native program, and node on the .wasm
# on the bundled chain circuit (BN254, domain 2^12), and on circomlib's
# SHA-256 (2^15) when `make bench-sha256` has built its key
# (build/bench-sha256/). Programs are compiled here with circom2 and cached
# in build/witness-programs/ (tests/witness.sh shares them). Every proof is
# checked with snarkjs groth16 verify. Prints figures only; no assertion.
set -eu
cd "$(dirname "$0")/.."
N=${BENCH_RUNS:-5}
BIN=build/slotprove
SNARKJS=tests/node_modules/.bin/snarkjs
CIRCOM=tests/node_modules/.bin/circom2
PROGS=build/witness-programs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
say() { printf 'bench-witness: %s\n' "$*"; }

# ms CMD...: wall milliseconds of CMD (output to $TMP/out), or fails
ms() {
    t0=$(date +%s%N)
    "$@" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; return 1; }
    echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench NAME INPUT NATIVE WASM ZKEY VK
bench() {
    name=$1 in=$2 native=$3 wasm=$4 zkey=$5 vk=$6
    : >"$TMP/a"; : >"$TMP/b"; : >"$TMP/c"; : >"$TMP/d"; : >"$TMP/e"
    for r in $(seq 1 "$N"); do
        ms $BIN fullprove -q "$in" "$native" "$zkey" "$TMP/pa.json" "$TMP/qa.json" >>"$TMP/a"
        ms $BIN fullprove -q "$in" "$wasm" "$zkey" "$TMP/pb.json" "$TMP/qb.json" >>"$TMP/b"
        ms $SNARKJS groth16 fullprove "$in" "$wasm" "$zkey" "$TMP/pc.json" "$TMP/qc.json" >>"$TMP/c"
        ms "$native" "$in" "$TMP/n.wtns" >>"$TMP/d"
        ms node "$(dirname "$wasm")/generate_witness.js" "$wasm" "$in" "$TMP/w.wtns" >>"$TMP/e"
        for p in a b c; do
            $SNARKJS groth16 verify "$vk" "$TMP/q$p.json" "$TMP/p$p.json" 2>&1 | grep -q 'OK!' ||
                { say "$name: proof $p of round $r does not verify"; exit 1; }
        done
    done
    a=$(median <"$TMP/a") b=$(median <"$TMP/b") c=$(median <"$TMP/c")
    d=$(median <"$TMP/d") e=$(median <"$TMP/e")
    printf '| %s | %s | %s | %s | %.1f× | %s | %s |\n' "$name" "$a" "$b" "$c" \
        "$(awk -v c="$c" -v a="$a" 'BEGIN { print c / a }')" "$d" "$e"
}

# prog SRC CURVE NAME [-l DIR]: native and wasm programs of SRC, cached
prog() {
    src=$1 curve=$2 n=$3
    shift 3
    d=$PROGS/$curve
    mkdir -p "$d"
    if ! [ -x "$d/${n}_cpp/$n" ] || ! [ -f "$d/${n}_js/$n.wasm" ] || ! cmp -s "$src" "$d/$n.circom"; then
        say "compiling $src (circom2 --c --wasm, then make)"
        rm -rf "$d/${n}_cpp" "$d/${n}_js"
        nice "$CIRCOM" "$src" --c --wasm --O1 -p "$curve" "$@" -o "$d" >"$TMP/out" 2>&1 &&
            nice make -C "$d/${n}_cpp" -j2 >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; exit 1; }
        cp "$src" "$d/$n.circom"
    fi
}

echo "| circuit | slotprove fullprove, native (ms) | slotprove fullprove, wasm (ms) | snarkjs groth16 fullprove (ms) | snarkjs / slotprove native | witness alone: native (ms) | witness alone: node + wasm (ms) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
F=tests/fixtures
prog $F/circuits/chain.circom bn128 chain
bench "chain (BN254, 2^12)" $F/circuits/chain.input.json $PROGS/bn128/chain_cpp/chain \
    $PROGS/bn128/chain_js/chain.wasm $F/bn128/chain.zkey $F/bn128/chain.vk.json
S=build/bench-sha256
sha=$(ls $S/sha256_*.circom 2>/dev/null | head -1 || true)
if [ -n "$sha" ] && [ -f "${sha%.circom}.zkey" ] && [ -f "$S/input.json" ]; then
    n=$(basename "${sha%.circom}")
    prog "$sha" bn128 "$n" -l tests/node_modules
    bench "circomlib SHA-256 (BN254, 2^15)" $S/input.json $PROGS/bn128/${n}_cpp/$n \
        $PROGS/bn128/${n}_js/$n.wasm "${sha%.circom}.zkey" "${sha%.circom}.vk.json"
else
    say "no SHA-256 key in $S: run make bench-sha256 once for that row"
fi
