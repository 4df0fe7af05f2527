#!/bin/sh
# make bench: slotprove against snarkjs on the bundled circuits, measured side
# by side in one run (A B A B … so drift hits both), medians of N runs each.
# Prints the ratio snarkjs / slotprove; absolute times are this machine's.
set -eu
cd "$(dirname "$0")/.."
N=${BENCH_RUNS:-5}
SNARKJS=tests/node_modules/.bin/snarkjs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ms() { # run a command, print its wall time in ms
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); $(date -u +%Y-%m-%d)"
printf '%-18s %8s %14s %12s %8s\n' circuit domain "slotprove ms" "snarkjs ms" ratio
for curve in bn128 bls12381; do
    for c in chain nopub; do
        z=tests/fixtures/$curve/$c.zkey w=tests/fixtures/$curve/$c.wtns
        [ -f "$z" ] || continue
        : > "$TMP/a"; : > "$TMP/b"
        for i in $(seq "$N"); do
            ms build/slotprove prove -q "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/a"
            ms $SNARKJS groth16 prove "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/b"
        done
        a=$(median < "$TMP/a"); b=$(median < "$TMP/b")
        dom=$(build/slotprove prove "$z" "$w" "$TMP/p.json" "$TMP/q.json" 2>&1 | sed -n 's/.*domain \(2^[0-9]*\).*/\1/p')
        printf '%-18s %8s %14s %12s %7.1fx\n' "$curve/$c" "$dom" "$a" "$b" "$(echo "$b $a" | awk '{print $1/$2}')"
    done
done
echo "(median of $N runs each, wall clock per whole command: process start, key load, proof, output)"

# Verification per proof (issue: < 3 ms BN254, < 5 ms BLS12-381 on one core):
# slotprove verify's own timer over many runs (key prepared once: e(alpha,
# beta)), with full input checks (subgroups); snarkjs's whole command beside.
echo
printf '%-18s %16s %16s %16s\n' circuit "verify wall ms" "verify CPU ms" "snarkjs cmd ms"
for curve in bn128 bls12381; do
    c=chain
    vk=tests/fixtures/$curve/$c.vk.json pub=tests/fixtures/$curve/$c.public.json
    prf=tests/fixtures/$curve/$c.snarkjs.proof.json
    line=$(build/slotprove verify -q --repeat 200 "$vk" "$pub" "$prf" 2>&1)
    w=$(echo "$line" | sed -n 's/.*verification \([0-9.]*\) ms wall.*/\1/p')
    cpu=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms CPU per proof.*/\1/p')
    : > "$TMP/b"
    for i in $(seq "$N"); do ms $SNARKJS groth16 verify "$vk" "$pub" "$prf" >> "$TMP/b"; done
    printf '%-18s %16s %16s %16s\n' "$curve/$c" "$w" "$cpu" "$(median < "$TMP/b")"
done
echo "(slotprove: median of 200 verifications in one process, one thread; snarkjs: median of $N"
echo " whole commands, node start included; gpud also verifies each proof: 'verify' in prove's stage timings)"
