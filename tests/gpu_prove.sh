#!/bin/bash
# tests/gpu_prove.sh — the CUDA backend through the real pipeline, on a
# machine with a GPU (make test-gpu-prove; tests/gpu.sh runs the kernels'
# own checks). Needs no node: every proof is checked here with `slotprove
# verify`, and copied under $OUT/proofs/ so snarkjs can check it on a
# machine that has it (tests/gpu_prove_verify.sh).
#
#   1. every fixture proved with `prove --backend cuda`;
#   2. `serve` (defaults: --backend auto, one gpud per visible GPU): jobs
#      of both curves, `status` naming the GPU and the resident keys, its
#      device memory (budget, held) in status and in --metrics;
#   3. GPU faults at the defaults (SLOTPROVE_FAULT, once each): a kernel
#      launch error, a lost context (trap), a device allocation failure, a
#      key too large for the GPU, a silently wrong result — each job still
#      completes with a proof that verifies;
#   4. with GPU_PROVE_LOGS="20 22" (sizes; make bench-gpu: 20 22 24), keygen keys proved end to end
#      on the CUDA backend and on the CPU backend (all cores), side by side.
# Output: "ok - …" / "FAIL - …", figures as "# …", last "gpu_prove: N
# passed, M failed". Binaries from $GPU_BIN (default build/).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
B=$ROOT/${GPU_BIN:-build}
OUT=${GPU_PROVE_OUT:-$ROOT/build/gpu-prove}
FIX=$ROOT/tests/fixtures
mkdir -p "$OUT/proofs"
SUITE=gpu_prove
. tests/lib.sh
SERVE=""
suite_cleanup() {
    [ -n "$SERVE" ] && kill "$SERVE" 2>/dev/null
    wait 2>/dev/null
}
now() { echo "${EPOCHREALTIME/./}"; } # µs
ms() { echo $(( ($2 - $1) / 1000 )); }

nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1 | sed 's/^/# gpu: /'

# GPU_PROVE_SECTIONS="1 2 3 4 5" (default all) runs some sections only.
SECTIONS=" ${GPU_PROVE_SECTIONS:-1 2 3 4 5} "
want() { case "$SECTIONS" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# ---- 1. fixtures, prove --backend cuda ------------------------------------
want 1 && for curve in bn128 bls12381; do
    for c in chain nopub allpub; do
        name=$curve-$c
        if "$B/slotprove" prove --backend cuda "$FIX/$curve/$c.zkey" "$FIX/$curve/$c.wtns" \
            "$OUT/proofs/$name.proof.json" "$OUT/proofs/$name.public.json" 2>"$TMP/err"; then
            grep -q "backend cuda: " "$TMP/err" && ok "$name: proved on the CUDA backend ($(sed -n 's/.*backend cuda: \([^,]*\).*/\1/p' "$TMP/err" | head -1))" \
                || bad "$name: the start-up line does not name the GPU" "$TMP/err"
            cp "$FIX/$curve/$c.vk.json" "$OUT/proofs/$name.vk.json"
            if "$B/slotprove" verify "$FIX/$curve/$c.vk.json" "$OUT/proofs/$name.public.json" \
                "$OUT/proofs/$name.proof.json" >"$TMP/v" 2>&1; then ok "$name: slotprove verify accepts it"
            else bad "$name: slotprove verify rejects it" "$TMP/v"; fi
        else
            bad "$name: prove --backend cuda failed" "$TMP/err"
        fi
    done
done

# ---- 2. serve at the defaults ---------------------------------------------
# start_serve LOGNAME [serve options]: starts a daemon on $TMP/s/s.sock
start_serve() {
    local log=$1
    shift
    rm -rf "$TMP/s" && mkdir -m 700 "$TMP/s"
    "$B/slotprove" serve --socket "$TMP/s/s.sock" "$@" 2>"$OUT/$log.log" &
    SERVE=$!
    for _ in $(seq 1 1800); do # 3 minutes: a large --key is hashed and checked first
        [ -S "$TMP/s/s.sock" ] && "$B/slotprove" status --socket "$TMP/s/s.sock" >/dev/null 2>&1 && return 0
        kill -0 "$SERVE" 2>/dev/null || { SERVE=""; return 1; }
        sleep 0.1
    done
    return 1
}
stop_serve() {
    [ -n "$SERVE" ] || return
    kill "$SERVE" 2>/dev/null
    wait "$SERVE" 2>/dev/null
    SERVE=""
}
# prove_job NAME CURVE CIRCUIT: submit --wait, verify; 0 when the proof verifies
prove_job() {
    local name=$1 curve=$2 c=$3
    "$B/slotprove" submit --socket "$TMP/s/s.sock" --zkey "$FIX/$curve/$c.zkey" \
        --witness "$FIX/$curve/$c.wtns" --wait --proof "$OUT/proofs/$name.proof.json" \
        --public "$OUT/proofs/$name.public.json" >/dev/null 2>"$TMP/err" || return 1
    cp "$FIX/$curve/$c.vk.json" "$OUT/proofs/$name.vk.json"
    "$B/slotprove" verify "$FIX/$curve/$c.vk.json" "$OUT/proofs/$name.public.json" \
        "$OUT/proofs/$name.proof.json" >"$TMP/v" 2>&1
}

if ! want 2; then
    :
elif start_serve serve --slot-bytes 64M --metrics 127.0.0.1:19464; then
    ok "serve started at the defaults"
    for curve in bn128 bls12381; do
        if prove_job "serve-$curve-chain" "$curve" chain; then ok "serve: $curve/chain proved and verified"
        else bad "serve: $curve/chain" "$TMP/err"; fi
    done
    # gpud reports its backend's state at most once a second: poll briefly
    for _ in $(seq 1 30); do
        "$B/slotprove" status --socket "$TMP/s/s.sock" --json >"$OUT/status.json" 2>&1
        grep -q 'resident keys:[^"]*chain' "$OUT/status.json" && break
        sleep 0.1
    done
    grep -q '"backend": *"NVIDIA\|"backend":"NVIDIA' "$OUT/status.json" && ok "status names the GPU" \
        || bad "status does not name the GPU" "$OUT/status.json"
    grep -q 'resident keys:[^"]*chain' "$OUT/status.json" && ok "status lists the resident keys" \
        || bad "status does not list resident keys" "$OUT/status.json"
    grep -o '"backend": *"[^"]*"' "$OUT/status.json" | sed 's/^/# /'
    # device memory: status's figures (the ledger's, from gpud's report) and
    # the metrics page's (bash's /dev/tcp: no curl needed)
    dm=$(tr -d ' \n' <"$OUT/status.json" | grep -o '"device_memory":{"budget_bytes":[0-9]*,"held_bytes":[0-9]*}' | head -1)
    sb=$(echo "$dm" | sed -n 's/.*"budget_bytes":\([0-9]*\).*/\1/p')
    sh=$(echo "$dm" | sed -n 's/.*"held_bytes":\([0-9]*\).*/\1/p')
    sleep 0.5 # the page is rendered every 250 ms
    page=$(exec 3<>/dev/tcp/127.0.0.1/19464 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3)
    mb=$(echo "$page" | sed -n 's/^slotprove_gpud_device_memory_budget_bytes{index="0"} \([0-9]*\).*/\1/p')
    mh=$(echo "$page" | sed -n 's/^slotprove_gpud_device_memory_held_bytes{index="0"} \([0-9]*\).*/\1/p')
    [ -n "$sb" ] && [ "$sb" -gt 0 ] && [ "$sh" -gt 0 ] && [ "$sh" -le "$sb" ] && [ "$mb" = "$sb" ] \
        && [ -n "$mh" ] && [ "$mh" -le "$mb" ] \
        && ok "device memory: budget $sb B, held $sh B (status); metrics budget $mb B, held $mh B" \
        || bad "device memory: status '$dm', metrics budget '$mb' held '$mh'" "$OUT/status.json"
    stop_serve
else
    bad "serve did not start" "$OUT/serve.log"
fi

# ---- 3. GPU faults, at the defaults ---------------------------------------
want 3 && for f in gpu-kernel gpu-trap gpu-oom gpu-alloc gpu-key-large gpu-wrong; do
    rm -f "$TMP/once"
    export SLOTPROVE_FAULT=$f SLOTPROVE_FAULT_ONCE=$TMP/once
    if ! start_serve "fault-$f" --slot-bytes 64M; then
        bad "$f: serve did not start" "$OUT/fault-$f.log"
        unset SLOTPROVE_FAULT SLOTPROVE_FAULT_ONCE
        continue
    fi
    unset SLOTPROVE_FAULT SLOTPROVE_FAULT_ONCE
    for curve in bn128 bls12381; do
        if prove_job "fault-$f-$curve" "$curve" nopub; then ok "$f: the $curve job completes and its proof verifies"
        else bad "$f: the $curve job" "$TMP/err"; fi
    done
    [ -f "$TMP/once" ] && ok "$f: the fault fired" || bad "$f: the fault never fired"
    "$B/slotprove" status --socket "$TMP/s/s.sock" --json >"$TMP/st" 2>&1
    echo "# $f: $(grep -o '"gpud_deaths": *[0-9]*' "$TMP/st") ; log: $(grep -c . "$OUT/fault-$f.log") lines"
    grep -i "gpu\|cpu" "$OUT/fault-$f.log" | grep -v "^$" | head -4 | sed 's/^/#   /'
    stop_serve
done

# ---- 4. keygen keys, CUDA against the CPU backend -------------------------
want 4 && for lg in ${GPU_PROVE_LOGS:-}; do
    for curve in bn128 bls12381; do
        d=$TMP/k$lg-$curve
        mkdir -p "$d"
        t0=$(now)
        "$B/slotprove" keygen --curve "$curve" --constraints $(( (1 << lg) - 8 )) --public 4 --out "$d" >/dev/null 2>"$TMP/err" \
            || { bad "keygen 2^$lg $curve" "$TMP/err"; continue; }
        t1=$(now)
        echo "# keygen 2^$lg $curve: $(ms "$t0" "$t1") ms"
        zk=$(ls "$d"/*.zkey | head -1)
        wt=$(ls "$d"/*.wtns | head -1)
        # variants: the G2 MSM on a CPU thread, uploads staged (slot pool not page-locked)
        for v in cuda cpu cuda cuda:g2cpu cuda:staged; do
            be=${v%%:*}
            case $v in *g2cpu) export SLOTPROVE_G2=cpu ;; *staged) export SLOTPROVE_NO_HOST_REGISTER=1 ;; esac
            t0=$(now)
            if "$B/slotprove" prove --backend $be "$zk" "$wt" "$OUT/proofs/k$lg-$curve-$be.proof.json" \
                "$OUT/proofs/k$lg-$curve-$be.public.json" 2>"$TMP/err-$be"; then
                t1=$(now)
                echo "# prove 2^$lg $curve $v: $(ms "$t0" "$t1") ms wall;$(grep -E '^  (ntt|msm|prove|synthesis)' "$TMP/err-$be" | awk '{printf " %s %s", $1, $2}')"
            else
                bad "prove 2^$lg $curve $v" "$TMP/err-$be"
            fi
            unset SLOTPROVE_G2 SLOTPROVE_NO_HOST_REGISTER
        done
        # throughput through serve on one GPU: one worker against two
        if [ "$lg" -ge "${GPU_THROUGHPUT_MIN_LOG:-22}" ]; then
            for w in 1 2; do
                export SLOTPROVE_GPUD_WORKERS=$w
                if start_serve "tp-$lg-$curve-$w" --key big="$zk" --gpus 0 --synth 6 --slots 8; then
                    unset SLOTPROVE_GPUD_WORKERS
                    t0=$(now)
                    pids=""
                    for i in $(seq 1 12); do
                        "$B/slotprove" submit --socket "$TMP/s/s.sock" --key big --witness "$wt" --wait \
                            --proof "$TMP/tp-$i.proof.json" --public "$TMP/tp-$i.public.json" >/dev/null 2>&1 &
                        pids="$pids $!"
                    done
                    n=0
                    for p in $pids; do wait "$p" && n=$((n + 1)); done
                    t1=$(now)
                    echo "# serve 2^$lg $curve, 1 GPU, $w gpud worker(s), 6 synthds: $n of 12 proofs in $(ms "$t0" "$t1") ms"
                    [ "$n" -eq 12 ] || bad "throughput run 2^$lg $curve with $w workers: $n of 12" "$OUT/tp-$lg-$curve-$w.log"
                    stop_serve
                else
                    unset SLOTPROVE_GPUD_WORKERS
                    bad "serve for the throughput run" "$OUT/tp-$lg-$curve-$w.log"
                fi
            done
        fi
        cp "$d/vk.json" "$OUT/proofs/k$lg-$curve-cuda.vk.json" 2>/dev/null
        cp "$d/vk.json" "$OUT/proofs/k$lg-$curve-cpu.vk.json" 2>/dev/null
        for be in cuda cpu; do
            "$B/slotprove" verify "$d/vk.json" "$OUT/proofs/k$lg-$curve-$be.public.json" \
                "$OUT/proofs/k$lg-$curve-$be.proof.json" >"$TMP/v" 2>&1 \
                && ok "2^$lg $curve: the $be proof verifies" || bad "2^$lg $curve: the $be proof" "$TMP/v"
        done
        rm -rf "$d"
    done
done

# ---- 5. one gpud per GPU (with two or more GPUs) ---------------------------
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if want 5 && [ "$ngpu" -ge 2 ]; then
    lg=${GPU_MULTI_LOG:-18}
    d=$TMP/multi
    mkdir -p "$d"
    "$B/slotprove" keygen --curve bls12381 --constraints $(( (1 << lg) - 8 )) --public 4 --out "$d" >/dev/null 2>"$TMP/err" \
        || bad "keygen for the multi-GPU run" "$TMP/err"
    zk=$(ls "$d"/*.zkey | head -1)
    wt=$(ls "$d"/*.wtns | head -1)
    if start_serve multi --key big="$zk" --synth 4 --slots 8; then
        nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 200 >"$OUT/multi-util.csv" 2>/dev/null &
        SMI=$!
        t0=$(now)
        pids=""
        for i in $(seq 1 24); do
            "$B/slotprove" submit --socket "$TMP/s/s.sock" --key big --witness "$wt" --wait \
                --proof "$TMP/multi-$i.proof.json" --public "$TMP/multi-$i.public.json" >/dev/null 2>"$TMP/merr-$i" &
            pids="$pids $!"
        done
        okjobs=0
        for p in $pids; do wait "$p" && okjobs=$((okjobs + 1)); done
        t1=$(now)
        kill "$SMI" 2>/dev/null
        [ "$okjobs" -eq 24 ] && ok "24 jobs of 2^$lg on $ngpu GPUs completed" || bad "only $okjobs of 24 multi-GPU jobs completed" "$TMP/merr-1"
        echo "# multi-GPU: 24 proofs of 2^$lg BLS12-381 in $(ms "$t0" "$t1") ms"
        "$B/slotprove" status --socket "$TMP/s/s.sock" --json >"$OUT/multi-status.json" 2>&1
        ngpud=$(grep -c 'gpud [0-9]*: backend cuda' "$OUT/multi.log")
        [ "$ngpud" -eq "$ngpu" ] && ok "serve started one CUDA gpud per GPU ($ngpud)" \
            || bad "serve started $ngpud CUDA gpuds for $ngpu GPUs" "$OUT/multi.log"
        # status --json is indented: one line first, then each gpud's count
        counts=$(tr -d ' \n' <"$OUT/multi-status.json" | grep -o '"role":"gpud"[^}]*"proofs":[0-9]*' | sed 's/.*://')
        busy=$(echo "$counts" | awk '$1 > 0' | wc -l)
        [ "$busy" -ge "$ngpu" ] && ok "every gpud proved partitions (proofs per gpud: $(echo $counts))" \
            || bad "not every gpud proved partitions" "$OUT/multi-status.json"
        for g in $(seq 0 $((ngpu - 1))); do
            echo "# GPU $g utilization samples > 0: $(awk -F', ' -v g=$g '$1 == g && $2 > 0' "$OUT/multi-util.csv" | wc -l) of $(awk -F', ' -v g=$g '$1 == g' "$OUT/multi-util.csv" | wc -l)"
        done
        vok=0
        for i in $(seq 1 24); do
            "$B/slotprove" verify "$d/vk.json" "$TMP/multi-$i.public.json" "$TMP/multi-$i.proof.json" >/dev/null 2>&1 && vok=$((vok + 1))
        done
        [ "$vok" -eq 24 ] && ok "every multi-GPU proof verifies" || bad "$vok of 24 multi-GPU proofs verify"
        for i in $(seq 1 24); do # for snarkjs where node is (tests/gpu_prove_verify.sh)
            cp "$TMP/multi-$i.proof.json" "$OUT/proofs/multi-$i.proof.json" 2>/dev/null
            cp "$TMP/multi-$i.public.json" "$OUT/proofs/multi-$i.public.json" 2>/dev/null
            cp "$d/vk.json" "$OUT/proofs/multi-$i.vk.json"
        done
        stop_serve
    else
        bad "serve with $ngpu GPUs did not start" "$OUT/multi.log"
    fi
fi

want 5 && [ "$ngpu" -lt 2 ] && echo "# section 5 skipped: $ngpu GPU visible (it needs two or more)"

finish
