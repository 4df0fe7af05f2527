#!/bin/bash
# tests/gpu_session.sh — one call on the GPU machine (no node, no compiler
# needed): the binaries built elsewhere (make BUILD=build-cuda CUDA_ARCHS=90)
# run the stages named in GPU_SESSION, in order, writing under $OUT:
#   build     make the binaries the stages run, here (CUDA_ARCHS default 90;
#             GPU_SYSROOT: carried -dev headers and static libraries)
#   check     the kernels against the CPU backend (gpu_test, sizes up to
#             2^$GPU_TEST_LOG, default 22) → gpu_test.log
#   fixtures  tests/gpu_prove.sh sections 1–2 (every fixture proved with
#             --backend cuda, then serve) → gpu_prove.log, and proofs.tgz for
#             tests/gpu_prove_verify.sh on a machine with snarkjs
#   faults    tests/gpu_prove.sh section 3 (GPU faults at the defaults)
#   multi     tests/gpu_prove.sh section 5 (one gpud per GPU; needs two or
#             more: the nvidia-h200-x2 kind)
#   bench     gpu_bench up to 2^$GPU_BENCH_LOG (default 24) → gpu_bench.log
#   synth     tests/bench_synth.sh: synthd's a, b, c alone in Mcons/s/core on
#             both curves at 2^$GPU_SYNTH_SIZES (default 24; any bench-synth size
#             specs), side by side with $GPU_SYNTH_OLD (an older bench_synth
#             binary or its build folder, built elsewhere: SLOTPROVE_OLD=REV
#             make bench-synth leaves one in build/bench-old/REV/build) →
#             synth.log, synth/bench_synth.txt; needs $GPU_BIN/bench_synth
#             (make BUILD=build-cuda build-cuda/bench_synth); keys as for pipe;
#             SYNTH_PAYLOAD=anon-huge measures what 4 KiB pages cost there;
#             GPU_SYNTH_VARIANT="-DNAME=V ..." builds this tree's bench_synth
#             again with those flags (build-variant/) as the old side, e.g.
#             -DSYNTH_NT_STORES=0 (plain stores of a, b at 2^24 too) or
#             -DSYNTH_BATCH_ROWS=32
#   budget    the device memory budget (--gpu-mem, issue 20) → budget.log:
#             gpu_test's streamed-MSM, ledger and injected-allocation checks
#             (2^16; GPU_BUDGET_TEST_LOG=20 adds 2^20) with its pinned_check
#             (8 GiB of host memory page-locked through gpu_mem_register: the
#             line "# 8 GiB page-locked: measured X MiB, charged Y MiB"; with
#             GPU_BUDGET_BIG=only, `gpu_test 10 pinned` runs it alone, its
#             line copied into budget.log); then keygen keys of both curves at
#             2^$GPU_BUDGET_LOG (default 22) proved with `prove --backend
#             cuda` with no budget and under each of GPU_BUDGETS (default
#             "24G 16G 4G 3G": at 2^22 4G and 3G make the points stream), device
#             memory sampled by nvidia-smi every 50 ms (peak over the idle
#             baseline, checked ≤ the budget) and gpud's ledger line; a
#             budget below one worker's buffers refused at start with the
#             figure, and that figure + 64 MiB (gpud starts) refused when
#             the 2^22 key is loaded, with the key's figure; an injected
#             allocation failure of the streaming path under --backend auto
#             proved on the CPU with CUDA's error named; a budget that
#             fits one lean worker only (LDEs in place); two gpuds on one
#             GPU dividing the default budget; GPU_BUDGET_BIG=1 adds the
#             2^27 BLS12-381 partition (keygen into $GPU_KEYS,
#             --constraints 67108865 --vars $GPU_BUDGET_BIG_VARS, default
#             4194304: a 23.5 GiB key; 67108870, the most wires that
#             constraint count has, makes a 51.45 GiB key and a 2 GiB
#             witness, which the device machine's 64 GiB disk holds;
#             GPU_BUDGET_BIG=only: that alone, after pinned_check)
#             proved under GPU_BUDGET_BIG_BUDGETS (default "none 24G 16G"),
#             its proofs, publics and vk.json in $OUT/budget-big.tgz; e.g.
#             GPU_SESSION="build budget" GPU_BUDGET_BIG=only
#             GPU_BUDGET_BIG_VARS=67108870 GPU_BUDGET_BIG_BUDGETS=16G
#   witness   inputs to proof through serve with a circom --c witness program
#             (issue 18): partitions/s as --input and as --witness jobs, which
#             process is the bound → witness.log, witness.tgz; once per
#             folder of GPU_WIT_DIR (default .devroot/sha256; the folder's
#             files: see the stage below)
#   keygen    `slotprove keygen --backend cuda` against --backend cpu (the
#             same files byte for byte) and times → keygen.log; the same
#             for `keygen --format bellperson` at 2^$GPU_KEYGEN_BP (default
#             16; its seven files)
#   pipe      tests/bench_pipeline.sh once per entry of GPU_PIPE, each
#             "CURVE/SPEC/SYNTHDS/SLOTS/PARTS[/GPUMEM]" (SPEC as PIPE_SIZES takes it:
#             K, K:N or K:N:V; SYNTHDS "auto": serve's own pick of synthds
#             and threads) → pipe/bench_pipeline.{txt,tsv}, the measured
#             proofs with their publics and vk.json in pipe-proofs.tgz; keys are
#             made by keygen under $GPU_KEYS (default /tmp/gpu-keys) and
#             deleted after their run unless GPU_KEEP_KEYS=1, as a 2^27 key
#             and the next one need not fit the disk together
#   bellperson  Filecoin's key format on the GPU (issue 23) → bellperson.log:
#             gpu_test's bellperson quotient (the device's monomial h against
#             the CPU's bp_quotient, up to 2^$GPU_TEST_LOG, default 22); a
#             keygen --format bellperson key at 2^$GPU_BP_LOG (default 16)
#             proved by `prove --params --backend cuda`, with no budget and
#             under --gpu-mem $GPU_BP_SMALL_MEM (default 2G: above the 1.2 GiB context floor, below the points resident + buffers), and by --backend cpu, every proof checked with `verify
#             --bellperson`; then serve --backend cuda with the key, a
#             3-partition submit --bellperson, verified, and an unsatisfied
#             witness failing only its job
#   bellperson-scale  issue 23 item 6, apart from the small stage: a
#             bellperson key with a 2^$GPU_BP_SCALE_LOG domain (default 27;
#             GPU_BP_SCALE_CONSTRAINTS rows, default 2^(log−1) + 1, the
#             fewest that need that domain; wires: the first of
#             GPU_BP_SCALE_VARS, default "8388608 4194304 1048576", whose
#             files fit the disk, as keygen's own bound says: at 2^27 up to
#             51.4, 47.5 and 44.6 GiB: .params ~12.4 GiB (h: (2^27 − 1) ×
#             96 B) + ~0.5 KiB a wire, PCE ~11 GiB, the zkey twin ~21 GiB +
#             ~0.5 KiB a wire; the device machine's disk is 64 GiB) made by
#             keygen --backend ${GPU_BP_SCALE_KEYGEN:-cuda} under $GPU_KEYS
#             (the point sections on the GPU, streamed to the files; its
#             phases' times in the log), proved with `prove
#             --params --backend cuda --gpu-mem ${GPU_BP_SCALE_MEM:-24G}` on
#             $GPU_BP_SCALE_PARTS (default 2) partitions; time per partition
#             and peak device memory (nvidia-smi, 50 ms) → bellperson-scale.log;
#             the keys are deleted unless GPU_KEEP_KEYS=1. GPU_BP_SCALE_STEP
#             "keygen" makes the key and keeps it, "prove" proves a key an
#             earlier call made (two calls: the 2^27 keygen alone may take
#             most of the machine's 10-minute limit); default both. The key is loaded with
#             --no-subgroup-check (on-curve checks stay) unless
#             GPU_BP_SCALE_SUBGROUP=1: at 2^27 the subgroup tests alone would
#             take ~13 minutes on 16 cores
#   supraseal  SupraSeal C2 beside slotprove on the same bellperson keys
#             (issue 38): see the stage's comment → supraseal.log
# Environment: GPU_BIN (binaries, default build), OUT (default
# build/gpu-session). Prints each stage's time; exit status 1 if a stage
# failed.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BIN_DIR=$ROOT/${GPU_BIN:-build}
OUT=${OUT:-$ROOT/build/gpu-session}
KEYS=${GPU_KEYS:-/tmp/gpu-keys}
STAGES=${GPU_SESSION:-check fixtures pipe}
mkdir -p "$OUT" || exit 1
# GPU_SYSROOT (relative to the repository): include/ and lib/ with the -dev
# headers and libraries the GPU host lacks (static where Debian ships them;
# libmicrohttpd.so.12 is also found there at run time)
if [ -n "${GPU_SYSROOT:-}" ]; then
    export CPATH=$ROOT/$GPU_SYSROOT/include${CPATH:+:$CPATH}
    export LIBRARY_PATH=$ROOT/$GPU_SYSROOT/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
    export LD_LIBRARY_PATH=$ROOT/$GPU_SYSROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
rc=0
say() { echo "# gpu_session $(date -u +%T): $*"; }

nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm --format=csv \
    2>&1 | tee "$OUT/device.txt"
echo "# host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "disk free $(df -h --output=avail /tmp | tail -1 | tr -d ' ')" | tee -a "$OUT/device.txt"

for stage in $STAGES; do
    t0=$SECONDS
    say "$stage"
    case $stage in
    build)
        # builds the binaries on the GPU host itself (its nvcc, all its
        # cores): GPU_SYSROOT, when set, is a folder with include/ and lib/
        # holding the -dev headers and static libraries (liburing, libbsd,
        # libmd, libjansson, libgmp) that host lacks, copied from a Debian box
        # what the stages run (not the fleet's program: the GPU host has no libpq)
        b=${GPU_BIN:-build}
        make -j"$(nproc)" BUILD="$b" CUDA_ARCHS="${CUDA_ARCHS:-90}" "$b/slotprove" "$b/synthd" \
            "$b/gpud" "$b/slotprove-keygen-gpu" "$b/gpu_test" "$b/gpu_bench" "$b/bench_synth" \
            >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; rc=1; break; }
        ;;
    check)
        "$BIN_DIR/gpu_test" "${GPU_TEST_LOG:-22}" 2>&1 | tee "$OUT/gpu_test.log"
        tail -1 "$OUT/gpu_test.log" | grep -q ' 0 failed' || rc=1
        ;;
    bench)
        "$BIN_DIR/gpu_bench" "${GPU_BENCH_LOG:-24}" 2>&1 | tee "$OUT/gpu_bench.log"
        ;;
    fixtures | faults | multi)
        secs="1 2"
        [ "$stage" = faults ] && secs=3
        [ "$stage" = multi ] && secs=5
        mkdir -p "$OUT/gp"
        GPU_BIN=${GPU_BIN:-build} GPU_PROVE_SECTIONS=$secs GPU_PROVE_OUT=$OUT/gp \
            bash tests/gpu_prove.sh 2>&1 | tee -a "$OUT/gpu_prove.log"
        tail -1 "$OUT/gpu_prove.log" | grep -q ' 0 failed' || rc=1
        if [ -d "$OUT/gp/proofs" ]; then
            tar czf "$OUT/proofs-$stage.tgz" -C "$OUT/gp" proofs && rm -rf "$OUT/gp/proofs"
            mkdir -p "$OUT/$stage" && mv "$OUT"/gp/* "$OUT/$stage/" 2>/dev/null # logs, status
            rm -rf "$OUT/gp"
        fi
        ;;
    pipe)
        for e in ${GPU_PIPE:-bls12381/24/3/4/10}; do
            IFS=/ read -r curve spec synthds slots parts gpumem <<<"$e"
            say "pipe $curve $spec: $synthds synthds, $slots slots, $parts partitions${gpumem:+, --gpu-mem $gpumem}"
            PIPE_CURVES=$curve PIPE_SIZES=$spec PIPE_SYNTHDS=$synthds PIPE_SLOTS=$slots \
                PIPE_PARTS=$parts PIPE_BACKEND=${PIPE_BACKEND:-cuda} PIPE_KEYS=$KEYS PIPE_GPU_MEM=${gpumem:-} \
                PIPE_PROOFS=$OUT/pipe-proofs \
                PIPE_THREADS=${PIPE_THREADS:-$([ "$synthds" = auto ] && echo auto || echo 0)} \
                BIN=$BIN_DIR/slotprove OUT=$OUT/pipe bash tests/bench_pipeline.sh 2>&1 |
                tee -a "$OUT/pipe.log"
            grep -q "$curve $spec: FAILED\|keygen failed" "$OUT/pipe.log" && rc=1
            [ "${GPU_KEEP_KEYS:-0}" = 1 ] || rm -rf "$KEYS"
        done
        # every measured proof, for tests/gpu_prove_verify.sh's snarkjs
        [ -d "$OUT/pipe-proofs" ] && tar czf "$OUT/pipe-proofs.tgz" -C "$OUT" pipe-proofs && rm -rf "$OUT/pipe-proofs"
        ;;
    synth)
        mkdir -p "$OUT/synth"
        old=${GPU_SYNTH_OLD:-}
        : >"$OUT/synth.log"
        if [ -n "${GPU_SYNTH_VARIANT:-}" ]; then
            # this tree's bench_synth built again with the variant's -D flags, as the "old" side
            make -j"$(nproc)" BUILD=build-variant CC="${CC:-gcc} $GPU_SYNTH_VARIANT" NVCC= \
                build-variant/bench_synth >"$OUT/synth-variant-build.log" 2>&1 ||
                { tail -20 "$OUT/synth-variant-build.log"; rc=1; continue; }
            old=build-variant/bench_synth
            echo "# synth: old = this tree with $GPU_SYNTH_VARIANT" | tee -a "$OUT/synth.log"
        fi
        SYNTH_SIZES=${GPU_SYNTH_SIZES:-24} SYNTH_CURVES=${GPU_SYNTH_CURVES:-"bn128 bls12381"} \
            SYNTH_KEYS=$KEYS SLOTPROVE_OLD=$old BENCH_THREADS=${GPU_SYNTH_THREADS:-0} \
            BIN=$BIN_DIR OUT=$OUT/synth bash tests/bench_synth.sh 2>&1 | tee -a "$OUT/synth.log"
        [ "${PIPESTATUS[0]}" = 0 ] || rc=1
        [ "${GPU_KEEP_KEYS:-0}" = 1 ] || rm -rf "$KEYS"
        ;;
    budget)
        big=${GPU_BUDGET_BIG:-0}
        : >"$OUT/budget.log"
        if [ "$big" != only ]; then
            # the streamed-MSM and ledger checks, pinned_check among them
            "$BIN_DIR/gpu_test" "${GPU_BUDGET_TEST_LOG:-16}" stream 2>&1 | tee "$OUT/budget.log"
            tail -1 "$OUT/budget.log" | grep -q ' 0 failed' || rc=1
        else
            # pinned_check alone (what page-locking costs the device, and
            # its charge), its measurement and result lines into budget.log
            "$BIN_DIR/gpu_test" 10 pinned >"$OUT/pinned.log" 2>&1
            grep '^# outside the ledger\|^# 8 GiB page-locked\|pinned:\|passed,' "$OUT/pinned.log" |
                tee "$OUT/budget.log"
            tail -1 "$OUT/pinned.log" | grep -q ' 0 failed' || rc=1
        fi
        grep -q '^# 8 GiB page-locked: measured' "$OUT/budget.log" ||
            { echo "FAIL - budget: no pinned_check line" | tee -a "$OUT/budget.log"; rc=1; }
        lg=${GPU_BUDGET_LOG:-22}
        n=$(((1 << lg) - 5))
        mkdir -p "$KEYS"
        ok() { echo "ok   - budget: $*"; }
        bad() { echo "FAIL - budget: $*"; rc=1; }
        # peak device memory (MiB, nvidia-smi) of a command, over the idle baseline
        sampled() {
            local base peak
            base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | head -1)
            nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 50 \
                >"$KEYS/smi.txt" 2>/dev/null &
            local smi=$!
            "$@"
            local r=$?
            kill $smi 2>/dev/null
            wait $smi 2>/dev/null
            peak=$(sort -n "$KEYS/smi.txt" | tail -1)
            echo "$((peak - base))" >"$KEYS/peak.txt"
            return $r
        }
        # prove_budget LABEL DIR BUDGET PATTERN: `prove --backend cuda` of
        # DIR's circuit.zkey and circuit.wtns under --gpu-mem BUDGET (none:
        # no budget) into DIR/proof-BUDGET.json and public-BUDGET.json,
        # sampled; prints gpud's stderr lines matching PATTERN (grep -i),
        # then ok or FAIL: exit 0 and the peak over idle within the budget.
        # Status 0 when both hold.
        prove_budget() {
            local label=$1 d=$2 b=$3 pat=$4 opt=() t prc ms peak lim=0
            [ "$b" = none ] || opt=(--gpu-mem "$b")
            t=$EPOCHREALTIME
            sampled "$BIN_DIR/slotprove" prove --backend cuda "${opt[@]}" "$d/circuit.zkey" \
                "$d/circuit.wtns" "$d/proof-$b.json" "$d/public-$b.json" 2>"$d/err-$b.txt"
            prc=$? ms=$(((${EPOCHREALTIME/./} - ${t/./}) / 1000)) peak=$(cat "$KEYS/peak.txt")
            sed 's/^/#   /' "$d/err-$b.txt" | grep -i "$pat"
            case $b in *G) lim=$((${b%G} * 1024)) ;; *M) lim=${b%M} ;; esac
            if [ "$prc" != 0 ]; then
                bad "$label --gpu-mem $b: exit $prc"
                sed 's/^/#   /' "$d/err-$b.txt" | tail -5
                return 1
            elif [ "$lim" -gt 0 ] && [ "$peak" -gt "$lim" ]; then
                bad "$label --gpu-mem $b: device peak $peak MiB over the budget ($lim MiB)"
                return 1
            fi
            ok "$label --gpu-mem $b: proved and checked, device peak $peak MiB over idle, $ms ms whole command"
        }
        [ "$big" = only ] || for curve in bn128 bls12381; do
            d=$KEYS/b-$curve
            rm -rf "$d" && mkdir -p "$d"
            "$BIN_DIR/slotprove" keygen -q --backend cuda --curve $curve --constraints $n \
                --public 4 --seed $lg --out "$d" 2>>"$OUT/budget.log" || { bad "keygen $curve"; continue; }
            for b in none ${GPU_BUDGETS:-24G 16G 4G 3G}; do
                prove_budget "$curve 2^$lg" "$d" "$b" 'gpud: key\|gpud: slot pool\|budget\|device memory\|prove \|total'
            done 2>&1 | tee -a "$OUT/budget.log"
            (cd "$d" && tar czf "$OUT/budget-proofs-$curve.tgz" proof-*.json public-*.json vk.json)
        done
        [ "$big" = only ] || {
        d=$KEYS/b-bls12381
        {
            # a budget below one worker's buffers (and the CUDA context's
            # reserve): gpud refuses at start with the figure it needs
            floor=
            if timeout 120 "$BIN_DIR/slotprove" prove --backend cuda --gpu-mem 1M "$d/circuit.zkey" \
                "$d/circuit.wtns" "$d/p.json" "$d/q.json" 2>"$d/small.txt"; then
                bad "--gpu-mem 1M: exit 0"
            elif floor=$(grep -o 'one worker needs at least [0-9]* MiB' "$d/small.txt" | head -1 |
                grep -o '[0-9][0-9]*'); [ -n "$floor" ]; then
                ok "--gpu-mem 1M refused at start ($(grep -o 'too small[^;]*' "$d/small.txt" | head -1))"
            else
                bad "--gpu-mem 1M: refused at start without the figure"
                sed 's/^/#   /' "$d/small.txt" | tail -5
            fi
            # a budget that starts gpud (the floor it named, plus 64 MiB) but
            # where even one worker streaming the key's points cannot prove
            # it: refused when the key is loaded, with the figure the key needs
            if [ -n "$floor" ]; then
                kb=$((floor + 64))M
                if timeout 120 "$BIN_DIR/slotprove" prove --backend cuda --gpu-mem $kb "$d/circuit.zkey" \
                    "$d/circuit.wtns" "$d/p.json" "$d/q.json" 2>"$d/key.txt"; then
                    bad "2^$lg key under --gpu-mem $kb: exit 0"
                elif grep -q 'too small: one worker needs at least' "$d/key.txt"; then
                    bad "2^$lg key under --gpu-mem $kb: refused at start, not at key load"
                    sed 's/^/#   /' "$d/key.txt" | tail -3
                elif grep -q 'is too small for key' "$d/key.txt" && grep -q 'one worker needs [0-9.]* GiB' "$d/key.txt"; then
                    ok "2^$lg key under --gpu-mem $kb (gpud started) refused at key load ($(grep -o 'one worker needs [0-9.]* GiB' "$d/key.txt" | head -1))"
                    # the figure it named, on top of gpud's floor: proved with
                    # one lean worker (a, b, c only, LDEs in place), peak ≤ budget
                    need=$(grep -o 'one worker needs [0-9.]* GiB' "$d/key.txt" | head -1 | awk '{printf "%d", $4 * 1024 + 0.999}')
                    lb=$((floor + need + 32))M
                    sampled "$BIN_DIR/slotprove" prove --backend cuda --gpu-mem $lb "$d/circuit.zkey" \
                        "$d/circuit.wtns" "$d/proof-lean.json" "$d/public-lean.json" 2>"$d/lean.txt"
                    lrc=$? peak=$(cat "$KEYS/peak.txt")
                    sed 's/^/#   /' "$d/lean.txt" | grep -i 'gpud: key\|device memory' | head -3
                    if [ $lrc = 0 ] && grep -q 'lean (LDEs in place)' "$d/lean.txt" && [ "$peak" -le "${lb%M}" ]; then
                        ok "2^$lg key under --gpu-mem $lb: proved and checked with a lean worker, device peak $peak MiB"
                    else
                        bad "2^$lg key under --gpu-mem $lb (lean worker): exit $lrc, peak $peak MiB"
                        sed 's/^/#   /' "$d/lean.txt" | tail -5
                    fi
                else
                    bad "2^$lg key under --gpu-mem $kb: not refused at key load with the figure"
                    sed 's/^/#   /' "$d/key.txt" | tail -5
                fi
            fi
            # two gpuds on one GPU at the default budget: each takes half of
            # the free memory less the margin (serve passes --gpu-share 2)
            sd=$KEYS/share && rm -rf "$sd" && mkdir -m 700 "$sd"
            "$BIN_DIR/slotprove" serve --socket "$sd/s.sock" --backend cuda --gpuds 2 --synth 1 \
                --slot-bytes 16M 2>"$sd/serve.log" &
            sp=$!
            for _ in $(seq 1 600); do
                "$BIN_DIR/slotprove" status --socket "$sd/s.sock" --json >"$sd/status.json" 2>/dev/null &&
                    [ "$(grep -o 'device memory budget' "$sd/status.json" | wc -l)" -ge 2 ] && break
                kill -0 $sp 2>/dev/null || break
                sleep 0.1
            done
            kill $sp 2>/dev/null
            wait $sp 2>/dev/null
            if grep -q '1/2 of the free memory' "$sd/serve.log" "$sd/status.json"; then
                ok "two gpuds on one GPU: each budget 1/2 of the free memory less the margin ($(grep -ho 'device memory budget [0-9.]* GiB' "$sd/status.json" | tr '\n' ' '))"
            else
                bad "two gpuds on one GPU: the default budget is not divided"
                sed 's/^/#   /' "$sd/serve.log" | tail -5
            fi
            # an allocation of the streaming path fails: auto proves it on the CPU, CUDA's error named
            if SLOTPROVE_FAULT=gpu-alloc SLOTPROVE_FAULT_MATCH='msm stage' timeout 300 "$BIN_DIR/slotprove" prove \
                --backend auto --gpu-mem 3G "$d/circuit.zkey" "$d/circuit.wtns" "$d/p.json" "$d/q.json" \
                2>"$d/fault.txt" && grep -q 'cudaErrorMemoryAllocation' "$d/fault.txt" &&
                grep -q 'on the CPU' "$d/fault.txt"; then
                ok "injected failure of \"msm stage\" under auto: proved on the CPU, the CUDA error named"
            else
                bad "injected failure of \"msm stage\" under auto"
                sed 's/^/#   /' "$d/fault.txt" | tail -8
            fi
        } 2>&1 | tee -a "$OUT/budget.log"
        }
        # GPU_BUDGET_BIG=1: the 2^27 BLS12-381 partition of issue 20
        # (GPU_BUDGET_BIG_VARS wires, default 4194304: a 23.5 GiB key) made
        # by keygen under $KEYS, proved under each of GPU_BUDGET_BIG_BUDGETS
        # (default "none 24G 16G"): whole command and gpud's prove time,
        # nvidia-smi's peak; the proofs, publics and vk.json in
        # $OUT/budget-big.tgz for snarkjs
        if [ "$big" = 1 ] || [ "$big" = only ]; then
            bv=${GPU_BUDGET_BIG_VARS:-4194304}
            # the directory bench_pipeline.sh makes for "27:67108865:$bv" with
            # 4 public inputs (seed 27, the same key): with GPU_KEEP_KEYS=1 a
            # later pipe stage of that spec proves this key without a keygen
            d=$KEYS/bls12381-67108865-p4-v$bv && rm -rf "$d" && mkdir -p "$d" "$OUT/budget-big"
            {
                t=$EPOCHREALTIME
                if "$BIN_DIR/slotprove" keygen -q --backend cuda --curve bls12381 --constraints 67108865 \
                    --vars "$bv" --public 4 --seed 27 --out "$d" 2>"$d/keygen.txt"; then
                    echo "# keygen 2^27 BLS12-381, $bv wires: $(((${EPOCHREALTIME/./} - ${t/./}) / 1000)) ms, key $(du -h "$d/circuit.zkey" | cut -f1)"
                    cp "$d/vk.json" "$OUT/budget-big/"
                    for b in ${GPU_BUDGET_BIG_BUDGETS:-none 24G 16G}; do
                        prove_budget "2^27 bls12381 ($bv wires)" "$d" "$b" \
                            'gpud: key\|gpud: slot pool\|budget\|device memory\|prove \|total\|ntt\|msm' &&
                            cp "$d/proof-$b.json" "$d/public-$b.json" "$OUT/budget-big/"
                    done
                else
                    bad "keygen of the 2^27 BLS12-381 key"
                    tail -5 "$d/keygen.txt" | sed 's/^/#   /'
                fi
            } 2>&1 | tee -a "$OUT/budget.log"
            # one file: the device brings back a limited number of files
            (cd "$OUT" && tar czf budget-big.tgz budget-big && rm -rf budget-big)
            rm -f "$d"/proof-* "$d"/public-* "$d"/err-*
            [ "${GPU_KEEP_KEYS:-0}" = 1 ] || rm -rf "$d"
        fi
        grep -q '^FAIL - budget' "$OUT/budget.log" && rc=1 # (bad ran in a pipeline's subshell)
        rm -rf "$KEYS"
        ;;
    bellperson)
        lg=${GPU_BP_LOG:-16}
        d=$KEYS/bp
        log=$OUT/bellperson.log
        ok() { echo "ok   - bellperson: $*"; }
        bad() { echo "FAIL - bellperson: $*"; }
        {
            "$BIN_DIR/gpu_test" "${GPU_TEST_LOG:-22}" bellperson 2>&1
            rm -rf "$d" && mkdir -p "$d"
            # inputs 1 + 3 public: the domain is 2^lg with 2^lg − 4 constraints
            if ! "$BIN_DIR/slotprove" keygen -q --curve bls12381 --format bellperson \
                --constraints $(((1 << lg) - 4)) --public 3 --seed $lg --out "$d" 2>"$d/kg.txt"; then
                bad "keygen --format bellperson 2^$lg"; sed 's/^/#   /' "$d/kg.txt" | tail -3
            fi
            cp "$d/circuit.wtns" "$d/unsat.wtns"
            off=$(($(stat -c %s "$d/unsat.wtns") - 32)) # the last aux wire's low byte, xor 1
            byte=$(od -An -tu1 -j $off -N1 "$d/unsat.wtns" | tr -d ' ')
            printf "\\$(printf %03o $((byte ^ 1)))" | dd of="$d/unsat.wtns" bs=1 seek=$off conv=notrunc 2>/dev/null
            for run in "cuda:" "cuda:${GPU_BP_SMALL_MEM:-2G}" "cpu:"; do
                be=${run%%:*} mem=${run#*:}
                opt=(--backend "$be")
                [ -n "$mem" ] && opt+=(--gpu-mem "$mem")
                t=$EPOCHREALTIME
                if "$BIN_DIR/slotprove" prove "${opt[@]}" --params "$d/circuit.params" --pce "$d/circuit.pce" \
                    "$d/circuit.wtns" "$d/circuit.wtns" "$d/proof-$be$mem.bin" 2>"$d/err.txt" &&
                    "$BIN_DIR/slotprove" verify --bellperson -q "$d/circuit.vk" \
                        "$d/public.json,$d/public.json" "$d/proof-$be$mem.bin" 2>>"$d/err.txt"; then
                    if [ "$be" = cuda ] && grep -qi 'event=reproved\|proved again by its fallback\|proved on the CPU' "$d/err.txt"; then
                        bad "2^$lg ${opt[*]}: the device's proof was not the one written (the CPU proved it)"
                    else
                        ok "2^$lg, 2 partitions, ${opt[*]}: proved, verified ($(((${EPOCHREALTIME/./} - ${t/./}) / 1000)) ms whole command)"
                    fi
                else
                    bad "2^$lg ${opt[*]}"
                fi
                grep -i 'gpud: bellperson\|on the CPU\|partition\|error' "$d/err.txt" | sed 's/^/#   /' | head -6
            done
            # the daemon on the GPU: 3 partitions in order, a bad witness failing only its job
            s=$d/sock && mkdir -m 700 "$s"
            "$BIN_DIR/slotprove" serve --socket "$s/s.sock" --backend cuda \
                --key bp="$d/circuit.params:$d/circuit.pce" 2>"$d/serve.txt" &
            sp=$!
            for _ in $(seq 300); do [ -S "$s/s.sock" ] && break; sleep 0.2; done
            jb=$("$BIN_DIR/slotprove" submit --socket "$s/s.sock" --key bp --witness "$d/circuit.wtns" \
                --witness "$d/unsat.wtns" 2>/dev/null)
            if "$BIN_DIR/slotprove" submit --socket "$s/s.sock" --key bp --witness "$d/circuit.wtns" \
                --witness "$d/circuit.wtns" --witness "$d/circuit.wtns" --wait --bellperson "$d/job.bin" \
                >/dev/null 2>"$d/err.txt" && [ "$(stat -c %s "$d/job.bin")" = 576 ] &&
                "$BIN_DIR/slotprove" verify --bellperson -q "$d/circuit.vk" \
                    "$d/public.json,$d/public.json,$d/public.json" "$d/job.bin" 2>>"$d/err.txt"; then
                ok "serve --backend cuda: a 3-partition job, 576 bytes, each proof verified"
            else
                bad "serve --backend cuda: 3-partition job"; sed 's/^/#   /' "$d/err.txt" | tail -3
            fi
            if ! "$BIN_DIR/slotprove" wait --socket "$s/s.sock" "$jb" 2>"$d/err.txt" &&
                grep -q 'does not satisfy the circuit' "$d/err.txt"; then
                ok "serve --backend cuda: an unsatisfied witness fails its job only"
            else
                bad "serve --backend cuda: the unsatisfied witness"; sed 's/^/#   /' "$d/err.txt" | tail -3
            fi
            "$BIN_DIR/slotprove" status --socket "$s/s.sock" 2>&1 | grep -i 'backend\|memory' | sed 's/^/#   /'
            kill $sp; wait $sp 2>/dev/null
            grep -i 'bellperson key\|gpud:' "$d/serve.txt" | sed 's/^/#   /' | head -5
            # the unsatisfied witness's proof fails its check, is proved again on the
            # CPU and fails again (its job's error); a partition proved by the
            # fallback after its device proof failed the check is the device's fault
            ! grep -q 'event=reproved\|proved on the CPU' "$d/serve.txt" ||
                bad "serve --backend cuda: a device proof failed its check or fell back (the CPU proved it)"
        } 2>&1 | tee "$log"
        grep -q '^FAIL\|^[0-9]* passed, [1-9][0-9]* failed' "$log" && rc=1 # (not gpud's "partition 1 failed its check")
        rm -rf "$d"
        ;;
    bellperson-scale)
        lg=${GPU_BP_SCALE_LOG:-27}
        n=${GPU_BP_SCALE_CONSTRAINTS:-$(((1 << (lg - 1)) + 1))}
        # wire counts to try, largest first: keygen refuses one whose files
        # would not fit the disk (checked before any work), the next is tried
        vs=${GPU_BP_SCALE_VARS:-8388608 4194304 1048576}
        parts=${GPU_BP_SCALE_PARTS:-2}
        mem=${GPU_BP_SCALE_MEM:-24G}
        step=${GPU_BP_SCALE_STEP:-all}
        d=$KEYS/bp-scale
        log=$OUT/bellperson-scale.log
        [ "$step" = prove ] || { rm -rf "$d" && mkdir -p "$d"; }
        {
            echo "# bellperson at scale ($step): domain 2^$lg, $n constraints, $parts partitions, --gpu-mem $mem"
            echo "# disk free: $(df -h --output=avail "$KEYS" | tail -1 | tr -d ' ')"
            kg=0
            if [ "$step" != prove ]; then
                for v in $vs; do
                    t=$EPOCHREALTIME
                    "$BIN_DIR/slotprove" keygen --backend "${GPU_BP_SCALE_KEYGEN:-cuda}" --curve bls12381 \
                        --format bellperson --constraints $n --public 4 --vars $v --seed 27 --out "$d" 2>"$d/kg.txt"
                    kg=$?
                    if [ $kg != 0 ] && grep -q 'not enough free space' "$d/kg.txt"; then
                        echo "# $v wires do not fit: $(grep -o 'need up to [0-9]* bytes ([0-9.]* GiB' "$d/kg.txt")); fewer"
                        continue
                    fi
                    break
                done
                echo "# keygen --backend ${GPU_BP_SCALE_KEYGEN:-cuda}, $v wires: exit $kg, $(((${EPOCHREALTIME/./} - ${t/./}) / 1000)) ms; $(du -sh "$d" | cut -f1) on disk:" \
                    $(cd "$d" && ls -s --block-size=M circuit.params circuit.pce circuit.zkey 2>/dev/null | tr '\n' ' ')
                grep -E '^  |points on|up to' "$d/kg.txt" | sed 's/^/#   /'
            fi
            if [ "$step" = keygen ]; then
                [ $kg = 0 ] && echo "ok   - bellperson-scale: key made, kept in $d" ||
                    { echo "FAIL - bellperson-scale: keygen"; tail -5 "$d/kg.txt"; }
            elif [ $kg = 0 ] && [ -s "$d/circuit.params" ]; then
                wits=()
                for _ in $(seq "$parts"); do wits+=("$d/circuit.wtns"); done
                pubs=$(for _ in $(seq "$parts"); do printf '%s,' "$d/public.json"; done)
                base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | head -1)
                nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 50 >"$d/smi.txt" 2>/dev/null &
                smi=$!
                t=$EPOCHREALTIME
                # the subgroup tests of ~1.4e8 points would take ~13 min on 16 cores
                # (README-bellperson.md): on-curve checks only, unless GPU_BP_SCALE_SUBGROUP=1
                sub=(--no-subgroup-check)
                [ "${GPU_BP_SCALE_SUBGROUP:-0}" = 1 ] && sub=()
                "$BIN_DIR/slotprove" prove --backend cuda --gpu-mem "$mem" "${sub[@]}" \
                    --params "$d/circuit.params" --pce "$d/circuit.pce" "${wits[@]}" "$d/proofs.bin" 2>&1 |
                    sed 's/^/#   /'
                prc=${PIPESTATUS[0]}
                ms=$(((${EPOCHREALTIME/./} - ${t/./}) / 1000))
                kill $smi; wait $smi 2>/dev/null
                peak=$(( $(sort -n "$d/smi.txt" | tail -1) - base ))
                if [ "$prc" = 0 ] && "$BIN_DIR/slotprove" verify --bellperson -q "$d/circuit.vk" \
                    "${pubs%,}" "$d/proofs.bin" && ! grep -q 'on the CPU' "$log"; then
                    echo "ok   - bellperson-scale: 2^$lg, $parts partitions under --gpu-mem $mem: $ms ms whole command (key load and checks included; per-partition lines above), device peak $peak MiB over idle"
                else
                    echo "FAIL - bellperson-scale: prove exit $prc (device peak $peak MiB)"
                fi
                lim=$(( $(numfmt --from=iec "$mem") / 1048576 ))
                if [ "$peak" -le "$lim" ]; then
                    echo "ok   - bellperson-scale: device peak $peak MiB within the --gpu-mem $mem budget ($lim MiB)"
                else
                    echo "FAIL - bellperson-scale: device peak $peak MiB over the --gpu-mem $mem budget ($lim MiB)"
                fi
            else
                echo "FAIL - bellperson-scale: no key (keygen failed, or GPU_BP_SCALE_STEP=prove before keygen)"
                tail -5 "$d/kg.txt" 2>/dev/null
            fi
        } 2>&1 | tee "$log"
        grep -q '^FAIL' "$log" && rc=1
        [ "${GPU_KEEP_KEYS:-0}" = 1 ] || [ "$step" = keygen ] || rm -rf "$d"
        ;;
    witness)
        # issue 18 item 8: inputs to proof through serve on this machine, the
        # circuit's witness program run by the synthds, once per folder of
        # GPU_WIT_DIR (space separated, relative to the repository; default
        # .devroot/sha256; e.g. ".devroot/sha256 .devroot/sha256x2"). Each
        # folder is made elsewhere, as circom and node are not here; from
        # make bench-sha256 (bench-sha256x2) and make bench-witness, whose
        # caches are build/bench-sha256 (build/bench-sha256x2) and
        # build/witness-programs/bn128, for the circuit N (sha256_256,
        # sha256_512):
        #   circuit.zkey  build/bench-sha256*/N.zkey
        #   vk.json       build/bench-sha256*/N.vk.json
        #   input.json    build/bench-sha256*/input.json
        #   circuit.wtns  that input's witness: build/bench-sha256*/N.wtns
        #   program       circom --c's executable, N_cpp/N after its make
        #   program.dat   N_cpp/N.dat (the program reads ITS_PATH.dat)
        # (the program links libgmp dynamically: the GPU host's own, or
        # libgmp.so.10 in GPU_SYSROOT's lib/). GPU_WIT_PARTS partitions
        # (default 256) in jobs of 64 submitted at once, first as --input
        # jobs, then as --witness jobs of the same witness, each on a fresh
        # serve at its defaults: partitions per second, prover busy and
        # synthd CPU per partition → witness.log (one block per folder,
        # its lines named by the folder); the first job's proofs of each
        # folder in witness.tgz (witness/FOLDER/...) for snarkjs (a JSON
        # array of 64 proofs of one public input)
        bad() { echo "FAIL - $*"; }
        parts=${GPU_WIT_PARTS:-256}
        : >"$OUT/witness.log"
        rm -rf "$OUT/witness" && mkdir -p "$OUT/witness"
        for wdir in ${GPU_WIT_DIR:-.devroot/sha256}; do
            wd=$ROOT/$wdir wn=$(basename "$wdir") wo=$OUT/witness/$(basename "$wdir")
            ws=$(mktemp -d) && mkdir -p "$wo" && cp "$wd/vk.json" "$wo/" || {
                bad "witness $wdir: no vk.json (see the stage's comment for the folder's files)" | tee -a "$OUT/witness.log"
                rc=1; continue; }
            {
                echo "# witness $wdir: $(du -h "$wd/circuit.zkey" | cut -f1) key, program $(du -h "$wd/program" | cut -f1)"
                for kind in input witness; do
                    "$BIN_DIR/slotprove" serve --backend "${GPU_WIT_BACKEND:-cuda}" --socket "$ws/s.sock" --key w="$wd/circuit.zkey" \
                        --witness-program w="$wd/program" 2>"$wo/serve-$kind.log" &
                    spid=$!
                    for _ in $(seq 600); do
                        "$BIN_DIR/slotprove" status --socket "$ws/s.sock" >/dev/null 2>&1 && break
                        sleep 0.1
                    done
                    args=()
                    for _ in $(seq 64); do
                        if [ $kind = input ]; then args+=(--input "$wd/input.json"); else args+=(--witness "$wd/circuit.wtns"); fi
                    done
                    t=$EPOCHREALTIME pids=()
                    for j in $(seq $((parts / 64))); do
                        "$BIN_DIR/slotprove" submit --socket "$ws/s.sock" --key w "${args[@]}" --wait \
                            --proof "$wo/proof-$kind-$j.json" --public "$wo/public-$kind-$j.json" \
                            >/dev/null 2>"$wo/err-$kind-$j.txt" &
                        pids+=($!)
                    done
                    fails=0
                    for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
                    ms=$(((${EPOCHREALTIME/./} - ${t/./}) / 1000))
                    "$BIN_DIR/slotprove" status --socket "$ws/s.sock" --json >"$wo/status-$kind.json" 2>&1
                    kill "$spid" && wait "$spid"
                    grep -h 'synthesis\|synthd' "$wo/serve-$kind.log" | head -3 | sed 's/^/#   /'
                    if [ $fails != 0 ]; then
                        bad "witness $wn: $parts partitions as --$kind jobs: $fails of $((parts / 64)) jobs failed"
                        cat "$wo"/err-$kind-*.txt | head -5 | sed 's/^/#   /'
                        continue
                    fi
                    python3 - "$wo/status-$kind.json" "$ms" "$parts" "$kind" "$wn" <<'PY'
import json, sys
st, ms, parts, kind, name = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
p = st["pipeline"]
busy = p["prover_busy_ns"] / 1e6 / ms * 100
cpu = p["synth_cpu_ns"] / 1e6 / max(p["synth_partitions"], 1)
bound = "the prover (gpud)" if busy >= 90 else "synthesis (the synthds" + (", witness programs included)" if kind == "input" else ")")
print(f"ok   - witness {name}: {parts} partitions as --{kind} jobs: {ms} ms, {parts * 1000 / ms:.1f} partitions/s, "
      f"prover busy {busy:.0f}%, synthd CPU {cpu:.1f} ms a partition (its own threads): bound by {bound}")
PY
                done
            } 2>&1 | tee -a "$OUT/witness.log"
            rm -rf "$ws"
        done
        grep -q '^FAIL' "$OUT/witness.log" && rc=1
        (cd "$OUT" && tar czf witness.tgz witness/*/vk.json witness/*/proof-input-1.json witness/*/public-input-1.json \
            witness/*/proof-witness-1.json witness/*/public-witness-1.json witness/*/status-*.json witness/*/serve-*.log 2>/dev/null &&
            rm -rf witness)
        ;;
    keygen)
        # keygen's points on the GPU: the same files as the CPU's, byte for
        # byte (same seed), at each log size of GPU_KEYGEN_CMP (default
        # "16 20"), with both times; then GPU-only times for the entries of
        # GPU_KEYGEN_BIG ("CURVE/SPEC", SPEC as in pipe)
        mkdir -p "$KEYS"
        for curve in bn128 bls12381; do
            for lg in ${GPU_KEYGEN_CMP:-16 20}; do
                n=$(((1 << lg) - 5)) same=1 times=
                for b in cuda cpu; do
                    rm -rf "$KEYS/kg-$b" && mkdir -p "$KEYS/kg-$b"
                    t=$EPOCHREALTIME
                    "$BIN_DIR/slotprove" keygen -q --backend $b --curve $curve --constraints $n \
                        --public 4 --seed $lg --out "$KEYS/kg-$b" 2>>"$OUT/keygen.log" || same=0
                    times="$times${times:+, }$b $(( (${EPOCHREALTIME/./} - ${t/./}) / 1000 )) ms"
                done
                for f in circuit.zkey circuit.wtns vk.json public.json; do
                    cmp -s "$KEYS/kg-cuda/$f" "$KEYS/kg-cpu/$f" || same=0
                done
                if [ $same = 1 ]; then echo "ok   - keygen $curve 2^$lg: --backend cuda writes the CPU's files byte for byte"
                else echo "FAIL - keygen $curve 2^$lg: the GPU's files differ from the CPU's"; fi
                echo "# keygen $curve 2^$lg: $times (whole command)"
            done
        done 2>&1 | tee -a "$OUT/keygen.log"
        # keygen --format bellperson: the point sections on the GPU helper,
        # streamed to the files in batches; all seven files the CPU's, byte
        # for byte (same seed), at each log size of GPU_KEYGEN_BP (default 16)
        for lg in ${GPU_KEYGEN_BP:-16}; do
            n=$(((1 << lg) - 5)) same=1 times=
            for b in cuda cpu; do
                rm -rf "$KEYS/kgbp-$b" && mkdir -p "$KEYS/kgbp-$b"
                t=$EPOCHREALTIME
                "$BIN_DIR/slotprove" keygen -q --backend $b --curve bls12381 --format bellperson \
                    --constraints $n --public 4 --seed $lg --out "$KEYS/kgbp-$b" 2>>"$OUT/keygen.log" || same=0
                times="$times${times:+, }$b $(( (${EPOCHREALTIME/./} - ${t/./}) / 1000 )) ms"
            done
            for f in circuit.params circuit.vk circuit.pce circuit.zkey circuit.wtns vk.json public.json; do
                cmp -s "$KEYS/kgbp-cuda/$f" "$KEYS/kgbp-cpu/$f" || { same=0; echo "#   $f differs"; }
            done
            if [ $same = 1 ]; then echo "ok   - keygen --format bellperson 2^$lg: --backend cuda writes the CPU's seven files byte for byte"
            else echo "FAIL - keygen --format bellperson 2^$lg: the GPU's files differ from the CPU's"; fi
            echo "# keygen --format bellperson 2^$lg: $times (whole command)"
            rm -rf "$KEYS/kgbp-cuda" "$KEYS/kgbp-cpu"
        done 2>&1 | tee -a "$OUT/keygen.log"
        # the GPU context lost in the first G2 batch (after the G1 sections
        # A and B1 were made on the GPU): --backend auto says so, the CPU
        # makes the rest and the files are still the CPU's byte for byte
        # (kg-cpu holds bls12381 at the last size of GPU_KEYGEN_CMP);
        # --backend cuda fails with the reason
        lg=${GPU_KEYGEN_CMP:-16 20}
        lg=${lg##* }
        n=$(((1 << lg) - 5))
        rm -rf "$KEYS/kg-fault" && mkdir -p "$KEYS/kg-fault"
        SLOTPROVE_FAULT=keygen-gpu-trap SLOTPROVE_FAULT_MATCH=g2 "$BIN_DIR/slotprove" keygen -q \
            --backend auto --curve bls12381 --constraints $n --public 4 --seed $lg \
            --out "$KEYS/kg-fault" 2>"$KEYS/fault.err"
        frc=$? same=1
        for f in circuit.zkey circuit.wtns vk.json public.json; do
            cmp -s "$KEYS/kg-fault/$f" "$KEYS/kg-cpu/$f" || same=0
        done
        if [ $frc = 0 ] && [ $same = 1 ] && grep -q 'the GPU failed' "$KEYS/fault.err"; then
            echo "ok   - keygen --backend auto, GPU lost mid-way: the CPU finishes, the same files byte for byte"
        else
            echo "FAIL - keygen --backend auto, GPU lost mid-way: exit $frc, same files $same"
            sed 's/^/#   /' "$KEYS/fault.err"
        fi 2>&1 | tee -a "$OUT/keygen.log"
        rm -rf "$KEYS/kg-fault" && mkdir -p "$KEYS/kg-fault"
        if SLOTPROVE_FAULT=keygen-gpu-trap SLOTPROVE_FAULT_MATCH=g2 "$BIN_DIR/slotprove" keygen -q \
            --backend cuda --curve bls12381 --constraints $n --public 4 --seed $lg \
            --out "$KEYS/kg-fault" 2>"$KEYS/fault.err"; then
            echo "FAIL - keygen --backend cuda, GPU lost mid-way: exit 0"
        elif grep -q 'injected kernel trap' "$KEYS/fault.err" && [ -z "$(ls -A "$KEYS/kg-fault")" ]; then
            echo "ok   - keygen --backend cuda, GPU lost mid-way: fails with the reason, writes nothing ($(tail -1 "$KEYS/fault.err"))"
        else
            echo "FAIL - keygen --backend cuda, GPU lost mid-way: no reason given"
            sed 's/^/#   /' "$KEYS/fault.err"
        fi 2>&1 | tee -a "$OUT/keygen.log"
        grep -q '^FAIL - keygen' "$OUT/keygen.log" && rc=1
        for e in ${GPU_KEYGEN_BIG:-}; do
            IFS=/ read -r curve spec <<<"$e"
            IFS=: read -r lg n v <<<"$spec"
            [ -n "$n" ] || n=$(((1 << lg) - 5))
            rm -rf "$KEYS/kg-big" && mkdir -p "$KEYS/kg-big"
            t=$EPOCHREALTIME
            "$BIN_DIR/slotprove" keygen --backend cuda --curve $curve --constraints $n --public 4 \
                ${v:+--vars $v} --seed 1 --out "$KEYS/kg-big" 2>&1 | grep -v '%' | tee -a "$OUT/keygen.log"
            echo "# keygen $curve $spec on the GPU: $(( (${EPOCHREALTIME/./} - ${t/./}) / 1000 )) ms" |
                tee -a "$OUT/keygen.log"
            rm -rf "$KEYS/kg-big"
        done
        rm -rf "$KEYS"
        ;;
    supraseal)
        # issue 38 item 4: SupraSeal C2 (the seed's engine) and slotprove on
        # the same bellperson key in this one call → supraseal.log. Needs
        # .bench/run.sh and .bench/supraseal_bench/dist (built elsewhere by
        # the measuring stick's build.sh, never committed; carried). Once per
        # entry of GPU_SSB ("NAME:N:KEYGEN ARGS..." with the args' spaces as
        # commas), e.g. "k20:3:--constraints,1000000,--vars,800000"; the key
        # made by slotprove keygen under $KEYS, proved N times by each,
        # slotprove under GPU_SSB_MEM (default 16G) and unconstrained.
        [ -f .bench/run.sh ] || { say "supraseal: .bench/run.sh missing"; rc=1; continue; }
        for ent in ${GPU_SSB:-k16:3:--constraints,60000,--vars,50000}; do
            IFS=: read -r name n kargs <<<"$ent"
            d=$KEYS/ssb-$name
            rm -rf "$d"
            mem=${GPU_SSB_MEM:-16G}
            say "supraseal $name: $n partitions; slotprove under --gpu-mem $mem, then unconstrained"
            SSB_LIB=${GPU_SYSROOT:+$ROOT/$GPU_SYSROOT/lib} SLOTPROVE=$BIN_DIR/slotprove \
                KEYGEN_ARGS="--backend cuda ${kargs//,/ }" SLOTPROVE_PROVE=1 \
                SLOTPROVE_PROVE_ARGS="--backend cuda --no-subgroup-check --gpu-mem $mem" OUT=$OUT/ssb-$name \
                bash .bench/run.sh "$d" "$n" --mode part 2>&1 | tee -a "$OUT/supraseal.log"
            [ "${PIPESTATUS[0]}" = 0 ] || rc=1
            ws=()
            for _ in $(seq "$n"); do ws+=("$d/circuit.wtns"); done
            t=$EPOCHREALTIME
            if "$BIN_DIR/slotprove" prove --params "$d/circuit.params" --pce "$d/circuit.pce" --backend cuda \
                --no-subgroup-check "${ws[@]}" "$d/unc.bin" >"$d/unc.txt" 2>&1; then
                echo "slotprove unconstrained: $n partitions $(((${EPOCHREALTIME/./} - ${t/./}) / 1000)) ms (whole command)"
                grep -iE 'partition|gpud: bellperson|proved' "$d/unc.txt" | sed 's/^/slotprove unconstrained: /' | head -20
            else
                echo "FAIL - slotprove unconstrained prove"
                tail -5 "$d/unc.txt"
                rc=1
            fi 2>&1 | tee -a "$OUT/supraseal.log"
            grep -q '^FAIL - slotprove unconstrained' "$OUT/supraseal.log" && rc=1
            rm -rf "$d"
        done
        ;;
    *)
        say "unknown stage $stage"
        rc=1
        ;;
    esac
    say "$stage took $((SECONDS - t0)) s"
done
exit $rc
