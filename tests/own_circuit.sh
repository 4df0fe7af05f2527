#!/bin/sh
# The top README's "Your own circuit" block, run as it stands (make
# test-own-circuit; part of make test), so that the README cannot drift:
# the ```sh block after the marker line "tests/own_circuit.sh runs the next
# block" is taken from README.md and run by bash -e in an empty directory,
# with circom (circom2), snarkjs and slotprove (build/) first on PATH and
# circomlib copied into node_modules/ (circom2 runs under WASI and cannot
# follow a link out of its directory). Checked: the block exits 0 within
# 15 minutes; snarkjs printed OK! for each of its three verifications; the
# two public files are [a + b, a < b] of input.json, computed here; and
# `slotprove verify` accepts both proofs. Then every `submit` form (with
# --witness, --input, --program, --bellperson) is in `slotprove --help`,
# `submit --help` and the README.
set -u
cd "$(dirname "$0")/.."
SUITE=own_circuit
. tests/lib.sh

W=$TMP/w
mkdir -p "$W/bin" "$W/node_modules"
ln -s "$ROOT/build/slotprove" "$W/bin/slotprove"
ln -s "$ROOT/tests/node_modules/.bin/circom2" "$W/bin/circom"
ln -s "$ROOT/tests/node_modules/.bin/snarkjs" "$W/bin/snarkjs"
cp -rL tests/node_modules/circomlib "$W/node_modules/"
awk '/tests\/own_circuit.sh runs the next block/ { m = 1; next }
     m == 1 && /^```sh$/ { m = 2; next }
     m == 2 && /^```$/ { exit }
     m == 2 { print }' README.md >"$TMP/block.sh"
if [ "$(wc -l <"$TMP/block.sh")" -gt 20 ] && grep -q 'slotprove fullprove' "$TMP/block.sh" &&
    grep -q 'submit .*--input' "$TMP/block.sh"; then
    ok "the README's block: $(wc -l <"$TMP/block.sh") lines taken from README.md"
else bad "no \"Your own circuit\" block found in README.md" "$TMP/block.sh"; fi

(cd "$W" && PATH="$W/bin:$PATH" timeout 900 bash -e "$TMP/block.sh") >"$TMP/out" 2>&1
rc=$?
cp "$TMP/out" "$TMP/err"
if [ $rc -eq 0 ]; then ok "the README's block ran, exit 0"
else bad "the README's block failed (exit $rc)"; fi
n=$(grep -c 'OK!' "$TMP/out")
if [ "$n" -eq 3 ]; then ok "snarkjs accepted the block's 3 proofs (fullprove wasm, native, the daemon's)"
else bad "snarkjs printed OK! $n times, not 3"; fi
a=$(jq -r .a "$W/input.json") b=$(jq -r .b "$W/input.json")
want=$(printf '["%s","%s"]' $((a + b)) $((a < b)))
for f in public pub; do
    if [ -f "$W/$f.json" ] && [ "$(jq -c . "$W/$f.json")" = "$want" ]; then ok "$f.json is [a + b, a < b] = $want"
    else bad "$f.json is $(jq -c . "$W/$f.json" 2>&1), not $want"; fi
done
for v in "public proof" "pub p"; do
    set -- $v
    if build/slotprove verify "$W/vk.json" "$W/$1.json" "$W/$2.json" >/dev/null 2>"$TMP/err"; then
        ok "slotprove verify accepts $2.json"
    else bad "slotprove verify rejects $2.json"; fi
done

# every submit form in both helps and the README
build/slotprove --help >"$TMP/help" 2>&1
build/slotprove submit --help >"$TMP/shelp" 2>&1
for form in "--witness W" "--input IN.json" "--program PROGRAM" "--bellperson"; do
    for doc in "$TMP/help" "$TMP/shelp" README.md; do
        if sed -n '/slotprove submit \[--socket/,/\(^$\|slotprove wait\)/p' "$doc" | grep -q -- "$form"; then
            ok "submit $form: in $(basename "$doc")'s submit synopsis"
        else bad "submit $form: missing from $(basename "$doc")'s submit synopsis" /dev/null; fi
    done
done
finish
