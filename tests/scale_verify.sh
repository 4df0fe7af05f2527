#!/bin/sh
# tests/scale_verify.sh DIR — verifies the proofs tests/scale_device.sh wrote
# to DIR (on the GPU host, which has no node) with snarkjs and with
# `slotprove verify`, here. Prints one line per proof and "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
DIR=${1:?usage: tests/scale_verify.sh DIR}
pass=0
fail=0
for p in "$DIR"/*.proof.json; do
    [ -f "$p" ] || continue
    base=${p%.proof.json}
    if tests/node_modules/.bin/snarkjs groth16 verify "$base.vk.json" "$base.public.json" "$p" 2>&1 | grep -q 'OK!' &&
        build/slotprove verify -q "$base.vk.json" "$base.public.json" "$p"; then
        pass=$((pass + 1)); echo "ok   - $(basename "$base"): snarkjs and slotprove verify accept it"
    else
        fail=$((fail + 1)); echo "FAIL - $(basename "$base")"
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
