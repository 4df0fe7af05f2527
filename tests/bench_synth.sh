#!/bin/bash
# make bench-synth: synthd's hot path (witness read, a = A·w, b = B·w;
# builds before issue 19's slot without c also c = a∘b) on keygen keys, in
# Mcons/s/core = domain rows per CPU-second of all threads, as
# bench-pipeline counts synthd's figure; optionally side by side with an
# older build, run alternately (new old new old …) so load drift hits both.
# Prints figures; the one check is that both builds write the same a, b
# (sha256 of a‖b), and a difference fails the run.
#
# env: SYNTH_SIZES   size specs as bench-pipeline's PIPE_SIZES: K (domain
#                    2^K, 2^K − 5 constraints), K:N or K:N:V (keygen --vars V)
#                    (default 18)
#      SYNTH_CURVES  default "bn128 bls12381"
#      SLOTPROVE_OLD an older build to compare with: a git revision (built
#                    once into build/bench-old/REV), a source tree, a build
#                    folder holding bench_synth, or a bench_synth binary
#      BENCH_RUNS    alternations (default 3); BENCH_REPS partitions per run
#                    (default 3, the median kept); BENCH_THREADS (default all)
#      SYNTH_PAYLOAD how a, b (c) and the witness are mapped: shm (default: a
#                    memfd, as the slot pool), anon, anon-huge (MADV_HUGEPAGE:
#                    what 4 KiB pages cost the witness's random reads)
#      SYNTH_KEYS    key cache (default build/pipe-keys, shared with
#                    bench-pipeline); BIN (default build), OUT (default build)
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BIN_DIR=${BIN:-build}
OUTDIR=${OUT:-build}
SIZES=${SYNTH_SIZES:-18}
CURVES=${SYNTH_CURVES:-"bn128 bls12381"}
OLD=${SLOTPROVE_OLD:-}
RUNS=${BENCH_RUNS:-3}
REPS=${BENCH_REPS:-3}
TH=${BENCH_THREADS:-0}
PAYLOAD=${SYNTH_PAYLOAD:-shm}
PUBLIC=4
KEYS=${SYNTH_KEYS:-$OUTDIR/pipe-keys}
NEW=$BIN_DIR/bench_synth
TXT=$OUTDIR/bench_synth.txt
die() { echo "bench_synth: $*" >&2; exit 1; }
[ -x "$NEW" ] || die "$NEW missing (make build/bench_synth)"
[ -x "$BIN_DIR/slotprove" ] || die "$BIN_DIR/slotprove missing (make all)"
mkdir -p "$KEYS" "$OUTDIR" || die "cannot create $KEYS, $OUTDIR"

# The old build's bench_synth: tests/bench_synth.c uses only the interface
# every synthd has had since the row index, so it builds against an older
# tree (its own libsynthd.a and libcommon.a).
old_bench() {
    local src=$1 dir
    if [ -f "$src" ] && [ -x "$src" ]; then echo "$src"; return; fi
    if [ -d "$src" ] && [ -x "$src/bench_synth" ]; then echo "$src/bench_synth"; return; fi
    if [ -d "$src" ] && [ -f "$src/synthd/synth.h" ]; then
        dir=$src
    else
        local rev
        rev=$(git rev-parse --verify -q "$src^{commit}") || die "SLOTPROVE_OLD=$src: not a revision, tree or binary"
        dir=$ROOT/build/bench-old/$rev
        if [ ! -f "$dir/Makefile" ]; then
            mkdir -p "$dir" && git archive "$rev" | tar -x -C "$dir" || die "cannot extract $rev"
        fi
    fi
    if [ ! -x "$dir/build/bench_synth.old" ] || [ "$ROOT/tests/bench_synth.c" -nt "$dir/build/bench_synth.old" ]; then
        echo "bench_synth: building the old synthd in $dir" >&2
        nice make -s -C "$dir" -j"$(nproc)" NVCC= build/libsynthd.a build/libcommon.a >&2 || die "old build failed in $dir"
        cc -O2 -std=c11 -D_GNU_SOURCE -pthread -I"$dir/common" -I"$dir/shm" -I"$dir/synthd" \
            "$ROOT/tests/bench_synth.c" "$dir/build/libsynthd.a" "$dir/build/libcommon.a" \
            -o "$dir/build/bench_synth.old" -l:liburing.a -lbsd -lmd -ljansson -lgmp -lpthread -lm ||
            die "cannot build tests/bench_synth.c against $dir"
    fi
    echo "$dir/build/bench_synth.old"
}
OLDBIN=
if [ -n "$OLD" ]; then OLDBIN=$(old_bench "$OLD") || exit 1; fi

# keygen once per (curve, size), named as bench-pipeline names its keys
make_key() { # curve spec
    local curve=$1 k=${2%%:*} n v= rest dir vars=()
    if [ "$2" = "$k" ]; then
        n=$(((1 << k) - PUBLIC - 1))
    else
        rest=${2#*:}
        n=${rest%%:*}
        [ "$rest" != "$n" ] && v=${rest#*:}
    fi
    [ -n "$v" ] && vars=(--vars "$v")
    dir=$KEYS/$curve-$n-p$PUBLIC${v:+-v$v}
    if [ ! -s "$dir/circuit.zkey" ] || [ ! -s "$dir/circuit.wtns" ]; then
        mkdir -p "$dir" || return 1
        echo "bench_synth: $curve: slotprove keygen --constraints $n --public $PUBLIC ${vars[*]} (INSECURE test key, cached in $dir)" >&2
        "$BIN_DIR/slotprove" keygen --curve "$curve" --constraints "$n" --public "$PUBLIC" "${vars[@]}" \
            --seed "$k" --out "$dir" >&2 || return 1
    fi
    echo "$dir"
}

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rc=0
{
    echo "slotprove bench-synth, $(date -u '+%F %H:%M') UTC, $(nproc) CPUs ($(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')), threads ${TH/#0/all}, payload $PAYLOAD (THP $(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null), shmem $(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)), commit $(git rev-parse --short HEAD 2>/dev/null)${OLD:+, old = $OLD}"
    printf '%-9s %-16s %8s %9s %13s %9s %9s %9s %10s' curve size coefs index_MiB "index ms/cpu" read_cpu abc_cpu wall_ms Mcons/s/c
    [ -n "$OLDBIN" ] && printf ' %10s %8s %6s' "old Mc/s/c" "old abc" ratio
    printf '\n'
} | tee "$TXT"
for curve in $CURVES; do
    for spec in $SIZES; do
        dir=$(make_key "$curve" "$spec") || { echo "$curve $spec: keygen failed" | tee -a "$TXT"; rc=1; continue; }
        : > "$TMP/new"; : > "$TMP/old"
        for i in $(seq "$RUNS"); do
            "$NEW" "$dir/circuit.zkey" "$dir/circuit.wtns" "$REPS" "$TH" "$PAYLOAD" >> "$TMP/new" || rc=1
            [ -z "$OLDBIN" ] || "$OLDBIN" "$dir/circuit.zkey" "$dir/circuit.wtns" "$REPS" "$TH" "$PAYLOAD" >> "$TMP/old" || rc=1
        done
        [ -s "$TMP/new" ] || { echo "$curve $spec: FAILED" | tee -a "$TXT"; rc=1; continue; }
        classes=$(sed -n 's/^index_bytes=[0-9]* //p' "$TMP/new" | head -1)
        m() { field "$2" < "$TMP/$1" | median; }
        line=$(printf '%-9s %-16s %8s %9s %13s %9s %9s %9s %10s' "$curve" "$spec" "$(field coefs < "$TMP/new" | head -1)" \
            "$(sed -n 's/^index_bytes=\([0-9]*\).*/\1/p' "$TMP/new" | head -1 | awk '{printf "%.1f", $1 / 1048576}')" \
            "$(m new index_ms)/$(m new index_cpu_ms)" "$(m new read_cpu_ms)" "$(m new abc_cpu_ms)" "$(m new wall_ms)" "$(m new mcons_core)")
        if [ -n "$OLDBIN" ]; then
            mn=$(m new mcons_core) mo=$(m old mcons_core)
            line="$line $(printf ' %10s %8s %5.2fx' "$mo" "$(m old abc_cpu_ms)" "$(awk -v a="$mn" -v b="$mo" 'BEGIN { print a / b }')")"
            if [ "$(field sha256 < "$TMP/new" | sort -u)" != "$(field sha256 < "$TMP/old" | sort -u)" ] ||
                [ "$(field sha256 < "$TMP/new" | sort -u | wc -l)" != 1 ]; then
                line="$line  a,b DIFFER from the old build"
                rc=1
            else
                line="$line  a,b identical"
            fi
        fi
        echo "$line" | tee -a "$TXT"
        [ -z "$classes" ] || echo "          terms: $classes" | tee -a "$TXT"
    done
done
{
    echo "(medians of $RUNS runs x $REPS partitions; CPU ms are all threads'; read = witness pread + range check (+ synthd's"
    echo " private huge-page copy of a witness of 64 MiB or more, in builds that make it);"
    echo " abc = a, b (and c in builds before issue 19's slot without c); Mcons/s/c = domain rows / (read + abc CPU seconds) / 1e6, as bench-pipeline's synthd figure;"
    echo " index = the key's synthesis index, built once at key load (size; wall and CPU ms); ratio = new / old Mcons/s/core)"
} | tee -a "$TXT"
exit $rc
