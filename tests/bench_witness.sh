#!/bin/sh
# make bench-witness: inputs to proof, whole commands side by side in one run
# (A B C … rounds, so load drift hits all), medians of BENCH_RUNS (default 5):
#   - slotprove fullprove with the native program (circom --c)
#   - slotprove fullprove with the .wasm program (node)
#   - snarkjs groth16 fullprove (the same .wasm and key)
#   - the rapidsnark workflow: circom's native program writes the .wtns,
#     then rapidsnark's `prover` proves it (RAPIDSNARK=path to a `prover`
#     you built, never committed; the column is left out without it)
#   - the witness step alone: the native program, and node on the .wasm
# on the bundled chain circuit (BN254, domain 2^12), on circomlib's SHA-256
# of one block (2^15) when `make bench-sha256` has built its key
# (build/bench-sha256/), and of two blocks (a 64-byte message, 2^16) when
# `make bench-sha256x2` has (build/bench-sha256x2/; its 2^16 powers of tau
# take about 40 CPU minutes once). Programs are compiled here with circom2 and cached
# in build/witness-programs/ (tests/witness.sh shares them). Every proof is
# checked with snarkjs groth16 verify. Prints figures only; no assertion:
# the ratios slotprove fullprove (native) / the rapidsnark workflow (the
# issue's target: at most 0.8) and snarkjs fullprove / slotprove fullprove
# (target: at least 10), of the medians, and in brackets the median of the
# per-round ratios (steadier on a loaded machine). `make bench` runs it too.
# env: BENCH_RUNS (default 5), RAPIDSNARK, BENCH_WITNESS_CIRCUITS (a list of
# chain, sha256, sha256x2; default all three, in that order)
set -eu
cd "$(dirname "$0")/.."
N=${BENCH_RUNS:-5}
RS=${RAPIDSNARK:-}
CIRCUITS=${BENCH_WITNESS_CIRCUITS:-chain sha256 sha256x2}
for c in $CIRCUITS; do
    case $c in chain | sha256 | sha256x2) ;; *)
        echo "bench-witness: BENCH_WITNESS_CIRCUITS: no circuit '$c' (chain, sha256, sha256x2)" >&2; exit 1 ;;
    esac
done
if [ -n "$RS" ] && [ ! -x "$RS" ]; then echo "bench-witness: RAPIDSNARK=$RS is not an executable" >&2; exit 1; fi
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
# ratio_median A B [DIGITS]: the median of the per-round ratios A/B (line i
# over line i of two result files; DIGITS decimals, default 2)
ratio_median() {
    paste "$1" "$2" | awk '{ print $1 / $2 }' | median | awk -v d="${3:-2}" '{ printf "%.*f", d, $1 }'
}

# the rapidsnark workflow as one command: native program, then prover
rapidsnark_workflow() { # native input zkey wtns proof public
    "$1" "$2" "$4" && "$RS" "$3" "$4" "$5" "$6"
}

# bench NAME INPUT NATIVE WASM ZKEY VK
bench() {
    name=$1 in=$2 native=$3 wasm=$4 zkey=$5 vk=$6
    : >"$TMP/a"; : >"$TMP/b"; : >"$TMP/c"; : >"$TMP/d"; : >"$TMP/e"; : >"$TMP/r"
    ps="a b c"
    [ -n "$RS" ] && ps="a b c r"
    for r in $(seq 1 "$N"); do
        ms $BIN fullprove -q "$in" "$native" "$zkey" "$TMP/pa.json" "$TMP/qa.json" >>"$TMP/a"
        [ -n "$RS" ] && ms rapidsnark_workflow "$native" "$in" "$zkey" "$TMP/r.wtns" "$TMP/pr.json" "$TMP/qr.json" >>"$TMP/r"
        ms $BIN fullprove -q "$in" "$wasm" "$zkey" "$TMP/pb.json" "$TMP/qb.json" >>"$TMP/b"
        ms $SNARKJS groth16 fullprove "$in" "$wasm" "$zkey" "$TMP/pc.json" "$TMP/qc.json" >>"$TMP/c"
        ms "$native" "$in" "$TMP/n.wtns" >>"$TMP/d"
        ms node "$(dirname "$wasm")/generate_witness.js" "$wasm" "$in" "$TMP/w.wtns" >>"$TMP/e"
        for p in $ps; do
            $SNARKJS groth16 verify "$vk" "$TMP/q$p.json" "$TMP/p$p.json" 2>&1 | grep -q 'OK!' ||
                { say "$name: proof $p of round $r does not verify"; exit 1; }
        done
        cmp -s "$TMP/qa.json" "$TMP/qc.json" || { say "$name: public.json of slotprove and snarkjs differ (round $r)"; exit 1; }
        say "$name round $r: fullprove native $(tail -n1 "$TMP/a") ms$([ -n "$RS" ] && printf ', rapidsnark workflow %s ms' "$(tail -n1 "$TMP/r")"), fullprove wasm $(tail -n1 "$TMP/b") ms, snarkjs fullprove $(tail -n1 "$TMP/c") ms; load $(cut -d' ' -f1 /proc/loadavg)" >&2
    done
    a=$(median <"$TMP/a") b=$(median <"$TMP/b") c=$(median <"$TMP/c")
    d=$(median <"$TMP/d") e=$(median <"$TMP/e")
    rw=- ratio=-
    if [ -n "$RS" ]; then
        rw=$(median <"$TMP/r")
        ratio=$(awk -v a="$a" -v r="$rw" 'BEGIN { printf "%.2f×", a / r }')
        ratio="$ratio ($(ratio_median "$TMP/a" "$TMP/r")×)"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %.1f× (%s×) | %s | %s |\n' "$name" "$a" "$rw" "$b" "$c" "$ratio" \
        "$(awk -v c="$c" -v a="$a" 'BEGIN { print c / a }')" "$(ratio_median "$TMP/c" "$TMP/a" 1)" "$d" "$e"
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

echo "machine: $(nproc) CPUs ($(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')), $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ); $N alternating rounds, medians"
[ -n "$RS" ] || say "RAPIDSNARK is not set: the rapidsnark workflow is left out"
echo "| circuit | slotprove fullprove, native (ms) | rapidsnark workflow: native program + prover (ms) | slotprove fullprove, wasm (ms) | snarkjs groth16 fullprove (ms) | slotprove / rapidsnark workflow (target ≤ 0.8; per round) | snarkjs / slotprove native (target ≥ 10; per round) | witness alone: native (ms) | witness alone: node + wasm (ms) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
F=tests/fixtures
for c in $CIRCUITS; do
    case $c in
    chain)
        prog $F/circuits/chain.circom bn128 chain
        bench "chain (BN254, 2^12)" $F/circuits/chain.input.json $PROGS/bn128/chain_cpp/chain \
            $PROGS/bn128/chain_js/chain.wasm $F/bn128/chain.zkey $F/bn128/chain.vk.json
        ;;
    sha256 | sha256x2)
        # bench_sha256.sh's cache: one circuit per folder (the newest
        # sha256_BITS.circom if BENCH_SHA_MSG changed its length)
        if [ $c = sha256 ]; then
            S=build/bench-sha256 label="circomlib SHA-256 (BN254, 2^15)" make=bench-sha256
        else
            S=build/bench-sha256x2 label="circomlib SHA-256, 2 blocks (BN254, 2^16)" make=bench-sha256x2
        fi
        sha=$(ls -t $S/sha256_*.circom 2>/dev/null | head -1 || true)
        if [ -n "$sha" ] && [ -f "${sha%.circom}.zkey" ] && [ -f "$S/input.json" ]; then
            n=$(basename "${sha%.circom}")
            prog "$sha" bn128 "$n" -l tests/node_modules
            bench "$label" $S/input.json $PROGS/bn128/${n}_cpp/$n \
                $PROGS/bn128/${n}_js/$n.wasm "${sha%.circom}.zkey" "${sha%.circom}.vk.json"
        else
            say "no SHA-256 key in $S: run make $make once for that row"
        fi
        ;;
    esac
done
