#!/bin/sh
# tests/gpu_prove_verify.sh DIR — snarkjs checks every proof that
# tests/gpu_prove.sh brought back from the GPU machine (which has no node):
# DIR/NAME.proof.json with DIR/NAME.public.json and DIR/NAME.vk.json.
# Prints "ok - NAME" / "FAIL - NAME" and "gpu_prove_verify: N passed, M failed".
set -u
cd "$(dirname "$0")/.." || exit 1
DIR=${1:?usage: tests/gpu_prove_verify.sh DIR}
SNARKJS=tests/node_modules/.bin/snarkjs
pass=0
fail=0
for p in "$DIR"/*.proof.json; do
    n=$(basename "$p" .proof.json)
    if [ -f "$DIR/$n.vk.json" ] && $SNARKJS groth16 verify "$DIR/$n.vk.json" "$DIR/$n.public.json" "$p" 2>&1 | grep -q 'OK!'; then
        pass=$((pass + 1)); echo "ok   - $n: snarkjs groth16 verify accepts it"
    else
        fail=$((fail + 1)); echo "FAIL - $n: snarkjs rejects it (or its vk.json is missing)"
    fi
done
echo "gpu_prove_verify: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
