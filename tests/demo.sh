#!/bin/sh
# make demo: prove each bundled circuit through the multi-process pipeline
# (gpud checks each proof before returning it) and verify every proof twice:
# with `slotprove verify` and with snarkjs, the independent oracle.
set -eu
cd "$(dirname "$0")/.."
SNARKJS=tests/node_modules/.bin/snarkjs
OUT=build/demo
mkdir -p "$OUT"
for curve in bn128 bls12381; do
    for c in chain nopub allpub; do
        zkey=tests/fixtures/$curve/$c.zkey
        [ -f "$zkey" ] || continue
        echo "== $curve/$c"
        build/slotprove prove "$zkey" "tests/fixtures/$curve/$c.wtns" \
            "$OUT/$curve-$c.proof.json" "$OUT/$curve-$c.public.json"
        printf '   slotprove verify: '
        build/slotprove verify "tests/fixtures/$curve/$c.vk.json" \
            "$OUT/$curve-$c.public.json" "$OUT/$curve-$c.proof.json"
        printf '   snarkjs groth16 verify: '
        $SNARKJS groth16 verify "tests/fixtures/$curve/$c.vk.json" \
            "$OUT/$curve-$c.public.json" "$OUT/$curve-$c.proof.json" | sed 's/.*snarkJS[^:]*: //'
    done
done
echo "proofs and public signals are in $OUT/"
