#!/bin/sh
# make bench: whole proofs, slotprove against other provers, measured side by
# side in one run (A B C D, B C D A, … so load drift hits all), medians of N runs.
# Prints each prover's median and its ratio to slotprove (> 1: slotprove is
# faster); absolute times are this machine's.
#
# env: BENCH_RUNS   runs per prover and key (default 5)
#      BENCH_KEYS   extra directories holding circuit.zkey and circuit.wtns
#                   (as `slotprove keygen --out DIR` writes them), besides the
#                   bundled fixtures
#      SLOTPROVE_OLD another slotprove binary (e.g. an older build)
#      RAPIDSNARK   iden3 rapidsnark's `prover` binary (built by you; BN254)
#      BENCH_SNARKJS 0 to leave snarkjs out (slow at 2^15 and up)
#      BENCH_FIXTURES 0 to leave the bundled fixtures out
set -eu
cd "$(dirname "$0")/.."
N=${BENCH_RUNS:-5}
SNARKJS=tests/node_modules/.bin/snarkjs
OLD=${SLOTPROVE_OLD:-}
RS=${RAPIDSNARK:-}
USE_SNARKJS=${BENCH_SNARKJS:-1}
[ -x "$SNARKJS" ] || USE_SNARKJS=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ms() { # run a command, print its wall time in ms (-1 if it failed)
    t0=$(date +%s%N)
    if "$@" >/dev/null 2>&1; then
        t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000000 ))
    else
        echo -1
    fi
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "machine: $(nproc) CPUs ($(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); $(date -u +%Y-%m-%dT%H:%MZ)"
keys=""
if [ "${BENCH_FIXTURES:-1}" != 0 ]; then
    for curve in bn128 bls12381; do
        for c in chain nopub; do
            [ -f "tests/fixtures/$curve/$c.zkey" ] && keys="$keys tests/fixtures/$curve/$c"
        done
    done
fi
for d in ${BENCH_KEYS:-}; do
    keys="$keys $d/circuit"
done
printf '%-34s %6s %10s' key domain "slotprove"
[ -n "$OLD" ] && printf ' %16s' "old (ratio)"
[ -n "$RS" ] && printf ' %16s' "rapidsnark (r.)"
[ "$USE_SNARKJS" = 1 ] && printf ' %16s' "snarkjs (ratio)"
printf '\n'
for k in $keys; do
    z=$k.zkey w=$k.wtns
    info=$(build/slotprove prove "$z" "$w" "$TMP/p.json" "$TMP/q.json" 2>&1 || true)
    dom=$(echo "$info" | sed -n 's/.*domain \(2^[0-9]*\).*/\1/p')
    curve=$(echo "$info" | sed -n 's/^slotprove: \([a-z0-9]*\), domain.*/\1/p')
    rs=$RS
    [ "$curve" = bn128 ] || rs=""
    : > "$TMP/a"; : > "$TMP/b"; : > "$TMP/c"; : > "$TMP/d"
    for i in $(seq "$N"); do
        # the order rotates each round (A B C D, B C D A, ...): a prover's
        # leftovers (snarkjs's worker threads winding down) would otherwise
        # always land on the same next prover
        for j in 0 1 2 3; do
            case $(( (i + j) % 4 )) in
            0) ms build/slotprove prove -q "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/a" ;;
            1) [ -z "$OLD" ] || ms "$OLD" prove -q "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/b" ;;
            2) [ -z "$rs" ] || ms "$rs" "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/c" ;;
            3) [ "$USE_SNARKJS" != 1 ] || ms $SNARKJS groth16 prove "$z" "$w" "$TMP/p.json" "$TMP/q.json" >> "$TMP/d" ;;
            esac
        done
    done
    a=$(median < "$TMP/a")
    printf '%-34s %6s %8s ms' "$k" "$dom" "$a"
    for f in b c d; do
        [ -s "$TMP/$f" ] || { [ "$f" = c ] && [ -n "$RS" ] && printf ' %16s' "-"; continue; }
        if grep -q -- -1 "$TMP/$f"; then
            printf ' %16s' "failed"
            continue
        fi
        m=$(median < "$TMP/$f")
        printf ' %8s (%4.2fx)' "$m" "$(echo "$m $a" | awk '{print $1/$2}')"
    done
    printf '\n'
done
echo "(median of $N runs each, wall clock per whole command: process start, key load, proof, output;"
echo " ratio = that prover's median / slotprove's: above 1 slotprove is faster)"

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
