#!/bin/sh
# make bench-cpu: the CPU prover's components (tests/bench_cpu.c: NTT stage,
# dense G1 MSM, witness-shaped G1 and G2 MSMs) on random data at 2^15 and
# 2^16, optionally side by side with another build of bench_cpu.
#
#   sh tests/bench_cpu.sh [OTHER_BENCH_CPU]
#   env: BENCH_SIZES (default "15 16"), BENCH_CURVES ("bn254 bls12381"),
#        BENCH_THREADS (default: all CPUs), BENCH_RUNS (alternations, 3),
#        BENCH_REPS (repetitions inside one run, minimum kept, 3)
#
# With OTHER_BENCH_CPU (e.g. the same program built from an older commit)
# the two run alternately, A B A B …, so load drift on a shared machine hits
# both, and the ratio other/this of the medians is printed. Needs only sh,
# awk and the binaries (no bc, no node).
set -eu
cd "$(dirname "$0")/.."
A=build/bench_cpu
B=${1:-}
SIZES=${BENCH_SIZES:-"15 16"}
CURVES=${BENCH_CURVES:-"bn254 bls12381"}
TH=${BENCH_THREADS:-0}
RUNS=${BENCH_RUNS:-3}
REPS=${BENCH_REPS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -x "$A" ] || { echo "bench_cpu.sh: $A missing (make build/bench_cpu)" >&2; exit 1; }
[ -z "$B" ] || [ -x "$B" ] || { echo "bench_cpu.sh: $B is not executable" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# "PART MS" lines of one run, appended to $TMP/<tag>.<part>
record() {
    "$@" | awk '{print $1, $2}' | while read -r part ms; do
        echo "$ms" >> "$TMP/$tag.$part"
    done
}

nproc_=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
cpu=$(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null | sed 's/^ *//')
echo "machine: $nproc_ CPUs ($cpu), threads ${TH} (0 = all); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "parts: n = 3 coset LDEs (one proof's NTT stage), h = G1 MSM dense scalars,"
echo "       w = G1 MSM witness-shaped scalars, g = G2 MSM witness-shaped scalars"
if [ -n "$B" ]; then
    printf '%-9s %5s %4s %12s %12s %8s\n' curve log_n part "this ms" "other ms" other/this
else
    printf '%-9s %5s %4s %12s\n' curve log_n part "this ms"
fi
for curve in $CURVES; do
    for k in $SIZES; do
        rm -f "$TMP"/a.* "$TMP"/b.*
        for i in $(seq "$RUNS"); do
            tag=a record "$A" "$curve" "$k" "$TH" "$REPS"
            [ -z "$B" ] || tag=b record "$B" "$curve" "$k" "$TH" "$REPS"
        done
        for part in n h w g; do
            [ -f "$TMP/a.$part" ] || continue
            a=$(median < "$TMP/a.$part")
            if [ -n "$B" ]; then
                b=$(median < "$TMP/b.$part")
                printf '%-9s %5s %4s %12s %12s %7.2fx\n' "$curve" "2^$k" "$part" "$a" "$b" \
                    "$(echo "$b $a" | awk '{print $1/$2}')"
            else
                printf '%-9s %5s %4s %12s\n' "$curve" "2^$k" "$part" "$a"
            fi
        done
    done
done
echo "(median of $RUNS runs, each the minimum of $REPS repetitions)"
