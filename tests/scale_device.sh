#!/bin/bash
# tests/scale_device.sh — keys and proofs at scale on a big machine (the GPU
# host's CPUs: no node, no bc there), in one run:
#   1. `slotprove keygen` at 2^20 for both curves, timed; each key proved by
#      `slotprove prove` (CPU backend, every core), 3 runs; the proof, public
#      signals and vk.json are written to $OUT for `snarkjs groth16 verify`
#      back on a machine with node (tests/scale_verify.sh does that);
#   2. with RAPIDSNARK=path/to/prover: rapidsnark on the same bn128 key, runs
#      alternating with slotprove's (A B A B), so the ratio is side by side;
#   3. keygen at 2^24 for both curves, timed, while the time budget allows
#      (SCALE_BUDGET_S, default 420 s from the start), then deleted.
# Figures go to $OUT/scale.txt. Times are wall clock from $EPOCHREALTIME.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-build}
OUT=${OUT:-/tmp/slotprove-scale}
WORK=${SCALE_WORK:-/tmp/slotprove-scale-work}
BUDGET=${SCALE_BUDGET_S:-420}
RUNS=${SCALE_RUNS:-3}
LOG2=${SCALE_LOG2:-20}
BIG=${SCALE_BIG_LOG2:-24}
mkdir -p "$OUT" "$WORK"
REPORT=$OUT/scale.txt
T0=$EPOCHREALTIME

us() { local s=${1/./}; echo $((10#$s)); }
elapsed_s() { echo $(( ($(us $EPOCHREALTIME) - $(us $T0)) / 1000000 )); }
say() { echo "$*" | tee -a "$REPORT"; }
# ms CMD...: runs CMD quietly, prints its wall time in ms; the exit status is CMD's
ms() {
    local t0=$EPOCHREALTIME rc
    "$@" >/dev/null 2>>"$WORK/stderr"
    rc=$?
    echo $(( ($(us $EPOCHREALTIME) - $(us $t0)) / 1000 ))
    return $rc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

: >"$REPORT"
say "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d)"
# keygen makes N constraints and K = 2 public inputs: domain 2^L needs N + 3 <= 2^L
for curve in bn128 bls12381; do
    d=$WORK/$curve-$LOG2
    mkdir -p "$d"
    t=$(ms "$BIN/slotprove" keygen --curve $curve --constraints $(((1 << LOG2) - 3)) --seed 1 -q --out "$d") \
        || { say "$curve 2^$LOG2: keygen failed: $(tail -3 "$WORK/stderr")"; continue; }
    say "keygen $curve 2^$LOG2: $t ms ($(du -m "$d/circuit.zkey" | cut -f1) MiB key)"
    : >"$WORK/a"
    : >"$WORK/b"
    for i in $(seq "$RUNS"); do
        ms "$BIN/slotprove" prove -q "$d/circuit.zkey" "$d/circuit.wtns" "$d/p.json" "$d/q.json" >>"$WORK/a" \
            || say "$curve 2^$LOG2: prove failed: $(tail -3 "$WORK/stderr")"
        if [ $curve = bn128 ] && [ -n "${RAPIDSNARK:-}" ]; then
            ms "$RAPIDSNARK" "$d/circuit.zkey" "$d/circuit.wtns" "$d/rp.json" "$d/rq.json" >>"$WORK/b" \
                || say "rapidsnark failed: $(tail -3 "$WORK/stderr")"
        fi
    done
    a=$(median <"$WORK/a")
    line="prove $curve 2^$LOG2 (slotprove, CPU backend, $(nproc) threads): median $a ms of $RUNS"
    if [ -s "$WORK/b" ]; then
        b=$(median <"$WORK/b")
        line="$line; rapidsnark median $b ms; slotprove/rapidsnark = $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
    fi
    say "$line"
    echo "stages of one more proof:" >>"$REPORT"
    "$BIN/slotprove" prove "$d/circuit.zkey" "$d/circuit.wtns" "$d/p.json" "$d/q.json" 2>>"$REPORT"
    cp "$d/p.json" "$OUT/$curve-$LOG2.proof.json"
    cp "$d/q.json" "$OUT/$curve-$LOG2.public.json"
    cp "$d/vk.json" "$OUT/$curve-$LOG2.vk.json"
    rm -rf "$d"
done
for curve in bn128 bls12381; do
    if [ "$(elapsed_s)" -gt "$BUDGET" ]; then
        say "keygen $curve 2^$BIG: skipped (time budget of $BUDGET s spent)"
        continue
    fi
    d=$WORK/$curve-$BIG
    mkdir -p "$d"
    t=$(ms "$BIN/slotprove" keygen --curve $curve --constraints $(((1 << BIG) - 3)) --seed 1 -q --out "$d") \
        && say "keygen $curve 2^$BIG: $t ms ($(du -m "$d/circuit.zkey" | cut -f1) MiB key)" \
        || say "keygen $curve 2^$BIG: failed: $(tail -3 "$WORK/stderr")"
    rm -rf "$d"
done
say "total $(elapsed_s) s"
