#!/usr/bin/env bash
# tests/bench_pipeline.sh — the whole pipeline under load: `slotprove serve`
# with a chosen number of synthds and slots, a queue of partitions many times
# the number of slots, and what it gives: proofs per second in steady state,
# latency per partition, how busy the prover is, each process's peak memory
# against the memory bound, device memory, slot and queue waits, and
# synthesis speed per core. `make bench-pipeline` runs it.
#
# Needs bash (for $EPOCHREALTIME), awk and the three binaries; no node,
# no jq, no bc, so it runs as is on a bare GPU host with binaries built
# elsewhere. nvidia-smi, when present, adds GPU utilization and memory.
#
# Usage: tests/bench_pipeline.sh [SIZE...]     (SIZE overrides PIPE_SIZES)
# Environment (defaults run on a 2-core box in about two minutes):
#   PIPE_SIZES    domain sizes, log2 (default "12 14 16"); "K:N" makes the key
#                 with N constraints instead of 2^K − public − 1 (its domain is
#                 then the smallest power of two ≥ N + public + 1); "K:N:V"
#                 also gives keygen --vars V (nVars: a large domain, a smaller key)
#   PIPE_CURVES   "bn128 bls12381" (default both)
#   PIPE_SYNTHDS  synthd processes (default 2; auto: serve's own pick, see
#                 status "synthesis", used with PIPE_THREADS=auto)
#   PIPE_SLOTS    slots (default 2)
#   PIPE_GPUDS    gpud processes (default 1)
#   PIPE_BACKEND  serve --backend (default auto: the GPU where there is one)
#   PIPE_GPU_MEM  serve --gpu-mem (default unset: serve's own budget), e.g. 16G
#                 to hold the pipeline to a consumer card's device memory
#   PIPE_THREADS  serve --threads, per process (default 0: all CPUs; auto: not
#                 given, serve picks the synthds' threads)
#   PIPE_PARTS    partitions measured per size (default 32 at ≤ 2^12, 16 at
#                 2^13–2^14, 8 above), all submitted at once
#   PIPE_JOBS     jobs they are spread over (default: one per partition; a job
#                 holds at most 64)
#   PIPE_WARMUP   completions left out at the start of the steady-state
#                 window (default 2)
#   PIPE_SAMPLE_S seconds between memory samples (default 0.2; read from
#                 /proc here; status, for the slots in use, is asked every
#                 0.2 s up to 2^18 and proportionally less often above, as
#                 it has the supervisor read every process's smaps_rollup)
#   PIPE_PUBLIC   public inputs of the generated keys (default 4)
#   PIPE_PROOFS   a folder: the measured batch's proofs are kept under
#                 PIPE_PROOFS/CURVE-K/ as N.proof.json, N.public.json and
#                 N.vk.json (tests/gpu_prove_verify.sh checks them)
#   PIPE_INPUTS   1 (default): every second job of the measured batch is an
#                 input job (submit --input), whose witness synthd gets from
#                 a witness program it runs (keygen's circuits have no circom
#                 program: a replay program, tests/witness/fault_program.c
#                 built here with cc, writes the key's witness), so the
#                 bound's witness-program term is exercised; 0: witnesses only
#   PIPE_WITNESS_MEM  serve --witness-mem with PIPE_INPUTS (default 64M: the
#                 replay program needs a few MiB; serve's own default, 8G,
#                 would make the term dwarf the rest at these sizes)
#   PIPE_KEYS     key cache (default $OUT/pipe-keys): keys are made once with
#                 `slotprove keygen` (INSECURE test keys) and reused
#   PIPE_MACHINE  text for the machine column (default: CPU model, cores)
#   OUT           where results go (default build): bench_pipeline.txt (the
#                 tables) and bench_pipeline.tsv (one row per run, named
#                 columns, times in ms, memory in KiB)
#   BIN           slotprove binary (default build/slotprove)
#
# What each figure is (all from the supervisor's own reports: serve
# --trace-times writes one TIMES line per proved partition, status's
# "pipeline" counters sum them; clocks are CLOCK_MONOTONIC):
# - steady state: from completion no. PIPE_WARMUP of the measured batch to
#   its last; the batch's jobs are submitted one after another without
#   waiting, then waited for (a warm-up job of one partition per synthd has
#   loaded the key everywhere before).
# - proofs/s: completions in the window / its length.
# - latency: a partition's synthd start (SYNTH sent) to its proof; with the
#   queue full this includes the wait for a slot and for the prover.
# - prover busy: the union of gpud's busy intervals (slot taken to checked
#   proof) over the window, / (window × gpuds). GPU util: nvidia-smi's
#   utilization.gpu averaged over the window and the GPUs; device memory:
#   the most memory.used of all GPUs together, and before the batch.
# - slot wait: a synthd, holding a partition, waiting for a FREE slot; queue
#   wait: a partition waiting for an idle synthd (no buffer is held then).
# - synthesis: witness read plus a = A·w, b = B·w, c = a∘b into the slot;
#   constraints/s/core = domain rows / synthd CPU seconds (all its threads).
# - memory: VmHWM of every process (each counts the shared slots it touched),
#   and the group's Pss (smaps_rollup, the pool once) read every
#   PIPE_SAMPLE_S. The bound (DESIGN, faults s9): baseline (the group's Pss
#   at rest after the warm-up, less the slots) + slots × slot_bytes
#   (prefaulted) + margins: gpuds × (2 × one proof's copied-off data ((3 ×
#   domain + nVars) × 32 B: a, b and the witness off the slot, the c = a∘b
#   gpud forms beside them) + 4 MiB: the vectors, as much again for the
#   backend's scratch, its MSM buckets and allocator slack) + synthds ×
#   scratch (64 KiB of stack a thread, the witness header, and for a
#   witness of at least SYNTH_WCOPY_MIN_BYTES while THP is madvise or
#   always its private huge-page copy, nVars × 32 B rounded up to 2 MiB:
#   synthd/witness_read.h) + 4 KiB a
#   submitted partition in the supervisor (its job entry and the proofs kept
#   for --result-ttl) + with input jobs synthds × --witness-mem (one witness
#   program per synthd at a time, each under that limit; the group's Pss
#   then includes every program alive at the sample: synthds' children and
#   theirs). Queued partitions hold a witness descriptor (or a pinned input
#   of at most 16 MiB), never a buffer, so the peak must not grow with the
#   queue: the table gives the most queued (from the TIMES lines) beside
#   the peak.
set -u

BIN=${BIN:-build/slotprove}
OUTDIR=${OUT:-build}
SIZES=${PIPE_SIZES:-"12 14 16"}
[ $# -gt 0 ] && SIZES="$*"
CURVES=${PIPE_CURVES:-"bn128 bls12381"}
SYNTHDS=${PIPE_SYNTHDS:-2}
SLOTS=${PIPE_SLOTS:-2}
GPUDS=${PIPE_GPUDS:-1}
BACKEND=${PIPE_BACKEND:-auto}
THREADS=${PIPE_THREADS:-0}
WARMUP=${PIPE_WARMUP:-2}
SAMPLE_S=${PIPE_SAMPLE_S:-0.2}
PUBLIC=${PIPE_PUBLIC:-4}
INPUTS=${PIPE_INPUTS:-1}
WMEM=${PIPE_WITNESS_MEM:-64M}
KEYS=${PIPE_KEYS:-$OUTDIR/pipe-keys}
NCPU=$(nproc)
MACHINE=${PIPE_MACHINE:-"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo | tr -s ' '), $NCPU cores"}

die() { echo "bench_pipeline: $*" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME)"
[ -x "$BIN" ] || die "$BIN: not built (make NVCC= all)"
HAVE_SMI=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && HAVE_SMI=1
mkdir -p "$OUTDIR" "$KEYS" || die "cannot create $OUTDIR, $KEYS"
# --witness-mem in KiB (SIZE: a number with K, M, G or T, as serve reads it)
WMEM_KIB=$(awk -v s="$WMEM" 'BEGIN { u = toupper(substr(s, length(s))); n = s + 0
    m = u == "K" ? 1 : u == "M" ? 1024 : u == "G" ? 1048576 : u == "T" ? 1073741824 : 1 / 1024
    printf "%d\n", n * m }')
# synthd's private huge-page copy of a large witness: part of a synthd's
# scratch and the other margins below (mem_margins)
. "$(dirname "$0")/wcopy_bytes.sh"
TXT=$OUTDIR/bench_pipeline.txt
TSV=$OUTDIR/bench_pipeline.tsv
D=$(mktemp -d "${TMPDIR:-/tmp}/bench_pipeline.XXXXXX") || die "mktemp"
chmod 700 "$D"
SERVE_PID=
SAMPLER_PID=
cleanup() {
    [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
    if [ -n "$SERVE_PID" ]; then
        kill -TERM "$SERVE_PID" 2>/dev/null
        wait "$SERVE_PID" 2>/dev/null
    fi
    rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$INPUTS" = 1 ]; then
    if ! cc -O2 -o "$D/replay" tests/witness/fault_program.c 2>"$D/err"; then
        echo "bench_pipeline: cannot build the replay witness program (cc, tests/witness/fault_program.c): witnesses only" >&2
        INPUTS=0
    fi
    echo '{}' >"$D/in.json"
fi
[ "$INPUTS" = 1 ] || WMEM_KIB=0

# $EPOCHREALTIME in µs (its decimal mark follows the locale: dropped)
now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }
now_ms() { echo $(($(now_us) / 1000)); }

# The first "KEY": value of an indented JSON text (status --json) on stdin.
jget() { awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }'; }
# The count of slots in STATE.
jslots() { awk -v s="\"$1\":" '$1 == s { f = 1 } f && $1 == "\"count\":" { v = $2; sub(/,$/, "", v); print v; exit }'; }
status() { "$BIN" status --socket "$D/s.sock" --json 2>/dev/null; }

# A size spec "K", "K:N" or "K:N:V" into SPEC_K, SPEC_N (constraints,
# default 2^K − public − 1) and SPEC_V (keygen --vars, empty: the default)
parse_spec() {
    local rest
    SPEC_K=${1%%:*} SPEC_V=
    if [ "$1" = "$SPEC_K" ]; then SPEC_N=$(((1 << SPEC_K) - PUBLIC - 1)); return; fi
    rest=${1#*:}
    SPEC_N=${rest%%:*}
    [ "$rest" != "$SPEC_N" ] && SPEC_V=${rest#*:}
}

# keygen once per (curve, size); prints the key's directory
make_key() { # curve spec
    local curve=$1 k n v dir vars=()
    parse_spec "$2"
    k=$SPEC_K n=$SPEC_N v=$SPEC_V
    [ -n "$v" ] && vars=(--vars "$v")
    dir=$KEYS/$curve-$n-p$PUBLIC${v:+-v$v}
    if [ ! -s "$dir/circuit.zkey" ] || [ ! -s "$dir/circuit.wtns" ]; then
        mkdir -p "$dir" || return 1
        echo "bench_pipeline: $curve: slotprove keygen --constraints $n --public $PUBLIC ${vars[*]} (INSECURE test key, cached in $dir)" >&2
        "$BIN" keygen --curve "$curve" --constraints "$n" --public "$PUBLIC" "${vars[@]}" --seed "$k" --out "$dir" >&2 ||
            return 1
    fi
    echo "$dir"
}

# Pss of each role, "supervisor synthds gpuds" (KiB), from status --json
role_pss() { awk '$1 == "\"role\":" { gsub(/[",]/, "", $2); r = $2 } $1 == "\"pss_kib\":" { v = $2; sub(/,$/, "", v); p[r] += v }
    END { printf "%d %d %d\n", p["supervisor"], p["synthd"], p["gpud"] }'; }

# "role pid" of each process, from status --json
role_pids() { awk '$1 == "\"role\":" { gsub(/[",]/, "", $2); r = $2 } $1 == "\"pid\":" { v = $2; sub(/,$/, "", v); print r, v }'; }

# Pss of the group's processes ("role pid" lines on stdin), read here from
# /proc rather than through status: status has the supervisor read every
# smaps_rollup itself, which with GiBs of slots mapped in every process takes
# long enough to hold up its loop. Prints "total supervisor synthds gpuds".
group_pss() {
    local role pid v c tot=0 sup=0 syn=0 gpu=0 wit=0
    while read -r role pid; do
        v=$(awk '/^Pss:/ { print $2; exit }' "/proc/$pid/smaps_rollup" 2>/dev/null)
        v=${v:-0}
        tot=$((tot + v))
        case $role in
        supervisor) sup=$((sup + v)) ;;
        synthd)
            syn=$((syn + v))
            # its witness program, and that one's children (node)
            for c in $(descendants "$pid"); do
                v=$(awk '/^Pss:/ { print $2; exit }' "/proc/$c/smaps_rollup" 2>/dev/null)
                wit=$((wit + ${v:-0}))
            done
            ;;
        gpud) gpu=$((gpu + v)) ;;
        esac
    done
    echo "$((tot + wit)) $sup $syn $gpu $wit"
}

# the pids below pid (children, theirs, …), from /proc/PID/task/*/children
descendants() {
    local c
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}

# realtime in ns, from $EPOCHREALTIME
rt_ns() { echo $(($(now_us) * 1000)); }

# Background: every $SAMPLE_S s one line "mono_ns group_pss_kib slots_in_use
# - gpu_util_pct gpu_mem_mib sup_pss synthds_pss gpuds_pss witness_pss"
# (group_pss_kib includes the witness programs'); slots_in_use
# from status every $1 samples ("-" between), util and mem "-" without
# nvidia-smi. mono_ns is CLOCK_MONOTONIC (the TIMES lines' clock): realtime
# plus $2, the offset status's now_ns gave.
sampler() {
    local every=$1 off=$2 i=0 s free total inuse util mem smi
    while [ ! -e "$D/stop" ]; do
        inuse=-
        if [ $((i % every)) = 0 ] && s=$(status); then
            free=$(printf '%s\n' "$s" | jslots FREE)
            total=$(printf '%s\n' "$s" | jget total)
            [ -n "$free" ] && [ -n "$total" ] && inuse=$((total - free))
        fi
        util=- mem=-
        if [ $HAVE_SMI = 1 ]; then
            smi=$(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits 2>/dev/null |
                awk -F', *' '{ u += $1; m += $2 } END { if (NR) printf "%.0f %d\n", u / NR, m }')
            [ -n "$smi" ] && set -- $smi && util=$1 mem=$2
        fi
        set -- $(group_pss <"$D/pids")
        echo "$(($(rt_ns) + off)) $1 $inuse - $util $mem $2 $3 $4 $5"
        i=$((i + 1))
        sleep "$SAMPLE_S"
    done
}

stop_serve() {
    if [ -n "$SERVE_PID" ]; then
        kill -TERM "$SERVE_PID" 2>/dev/null
        wait "$SERVE_PID" 2>/dev/null
        SERVE_PID=
    fi
}

# submit JOBS jobs over PARTS partitions of witness W; job ids to $D/jobs;
# with PIPE_INPUTS every second job (the 2nd, 4th, …) is an input job of
# $D/in.json, the replay program writing W
submit_batch() { # key wtns parts jobs
    local w=$2 parts=$3 jobs=$4 i k n args
    : >"$D/jobs"
    for ((i = 0; i < jobs; i++)); do
        n=$(((parts - i + jobs - 1) / jobs)) # spread evenly
        [ "$n" -gt 0 ] || continue
        args=()
        for ((k = 0; k < n; k++)); do
            if [ "$INPUTS" = 1 ] && [ $((i % 2)) = 1 ]; then args+=(--input "$D/in.json")
            else args+=(--witness "$w"); fi
        done
        "$BIN" submit --socket "$D/s.sock" --key "$1" "${args[@]}" >>"$D/jobs" 2>"$D/err" ||
            { echo "bench_pipeline: submit: $(cat "$D/err")" >&2; return 1; }
    done
}

wait_batch() {
    local id nok=0 n=0
    while read -r id; do
        n=$((n + 1))
        if "$BIN" wait --socket "$D/s.sock" --proof "$D/proof.json" --public "$D/public.json" "$id" \
            >/dev/null 2>"$D/err"; then
            nok=$((nok + 1))
            # PIPE_PROOFS: every measured proof kept, for snarkjs elsewhere
            if [ -n "${KEEP_DIR:-}" ]; then
                cp "$D/proof.json" "$KEEP_DIR/$n.proof.json" && cp "$D/public.json" "$KEEP_DIR/$n.public.json" &&
                    cp "$KEEP_DIR/vk" "$KEEP_DIR/$n.vk.json"
            fi
        else
            echo "bench_pipeline: job $id: $(cat "$D/err")" >&2
        fi
    done <"$D/jobs"
    [ "$nok" = "$n" ]
}

vmhwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

COLS="date machine backend curve log_domain constraints n_vars synthds slots gpuds threads parts queued_max proofs_per_s window_s latency_p50_ms latency_p95_ms prover_busy_pct gpu_util_pct queue_wait_p50_ms queue_wait_p95_ms slot_wait_p50_ms slot_wait_p95_ms slot_wait_max_ms slot_waits ready_wait_p50_ms synth_p50_ms synth_cpu_p50_ms synth_constraints_per_s_core prove_p50_ms rss_supervisor_kib rss_synthd_max_kib rss_gpud_max_kib rss_sum_kib rss_each_kib idle_pss_kib peak_pss_kib idle_pss_roles_kib peak_pss_roles_kib baseline_kib slots_kib margins_kib bound_kib copied_off_kib gpud_proof_kib synthd_scratch_kib supervisor_margin_kib slots_in_use_max device_mem_mib input_parts witness_mem_kib witness_pss_max_kib"
[ -s "$TSV" ] && [ "$(head -1 "$TSV")" = "$(echo $COLS | tr ' ' '\t')" ] || echo $COLS | tr ' ' '\t' >"$TSV"
: >"$D/rows"

run_one() { # curve spec
    local curve=$1 spec=$2 dir k parts jobs
    KEEP_DIR= # set for the measured batch only: the warm-up's proofs are not kept
    dir=$(make_key "$curve" "$spec") || { echo "bench_pipeline: $curve $spec: keygen failed" >&2; return 1; }
    parse_spec "$spec"
    k=$SPEC_K
    if [ -n "${PIPE_PARTS:-}" ]; then parts=$PIPE_PARTS
    elif [ "$k" -le 12 ]; then parts=32
    elif [ "$k" -le 14 ]; then parts=16
    else parts=8; fi
    jobs=${PIPE_JOBS:-$parts}
    [ "$jobs" -gt "$parts" ] && jobs=$parts
    [ $(((parts + jobs - 1) / jobs)) -le 64 ] || { echo "bench_pipeline: $parts partitions in $jobs jobs: over 64 a job" >&2; return 1; }
    [ "$parts" -gt "$WARMUP" ] || { echo "bench_pipeline: PIPE_PARTS $parts must exceed PIPE_WARMUP $WARMUP" >&2; return 1; }

    rm -f "$D/s.sock" "$D/stop" "$D/samples"
    local picks=() iparts=0 ii
    [ "$SYNTHDS" = auto ] || picks+=(--synth "$SYNTHDS")
    if [ "$INPUTS" = 1 ] && [ "$(stat -c %s "$dir/circuit.wtns")" -gt $((256 << 20)) ]; then
        # the replay program reads its witness from its pinned .dat (the
        # witness sandbox shows it no other file), at most 256 MiB
        echo "bench_pipeline: 2^$k: the witness is over the 256 MiB a pinned .dat may hold: witness jobs only" >&2
        INPUTS=0
    fi
    if [ "$INPUTS" = 1 ]; then
        cp "$dir/circuit.wtns" "$D/replay.dat" # the witness it replays, read in its sandbox
        picks+=(--witness-program k="$D/replay" --witness-mem "$WMEM")
        for ((ii = 1; ii < jobs; ii += 2)); do iparts=$((iparts + (parts - ii + jobs - 1) / jobs)); done
    fi
    [ "$THREADS" = auto ] || picks+=(--threads "$THREADS")
    [ -n "${PIPE_GPU_MEM:-}" ] && picks+=(--gpu-mem "$PIPE_GPU_MEM")
    "$BIN" serve --socket "$D/s.sock" "${picks[@]}" --slots "$SLOTS" --gpuds "$GPUDS" \
        --backend "$BACKEND" --trace-times --key k="$dir/circuit.zkey" \
        2>"$D/serve.log" &
    SERVE_PID=$!
    local t0=$SECONDS
    until [ -S "$D/s.sock" ]; do
        kill -0 "$SERVE_PID" 2>/dev/null || { echo "bench_pipeline: serve exited: $(tail -3 "$D/serve.log")" >&2; SERVE_PID=; return 1; }
        [ $((SECONDS - t0)) -lt 600 ] || { echo "bench_pipeline: serve did not start" >&2; stop_serve; return 1; }
        sleep 0.1
    done
    # nVars and the domain: keygen's shape (nVars = 1 + K + N; domain ≥ N + K + 1)
    local nvars domain n=$SPEC_N
    nvars=${SPEC_V:-$((1 + PUBLIC + n))}
    domain=1
    while [ "$domain" -lt $((n + PUBLIC + 1)) ]; do domain=$((domain * 2)); done
    local logd=0
    while [ $((1 << logd)) -lt "$domain" ]; do logd=$((logd + 1)); done

    # serve's pick when auto (status "synthesis"): synthds, and the synthds'
    # threads (gpud keeps all CPUs)
    local syn=$SYNTHDS thr=$THREADS
    [ "$SYNTHDS" = auto ] && syn=$(status | jget synthds)
    [ "$THREADS" = auto ] && thr=$(status | jget threads)
    echo "bench_pipeline: $curve 2^$logd: synthesis $(status | sed -n 's/.*"plan": "\(.*\)".*/\1/p')" >&2
    # warm-up: one partition per synthd (every idle synthd gets one), so each
    # process has loaded the key (the first built its synthesis index, the
    # others mapped it) and touched its buffers once
    submit_batch k "$dir/circuit.wtns" "$syn" 1 && wait_batch ||
        { echo "bench_pipeline: warm-up failed: $(tail -3 "$D/serve.log")" >&2; stop_serve; return 1; }
    sleep 0.5
    local s idle=0 idle_roles p i slot_bytes
    for i in 1 2 3; do # the largest of three idle samples
        s=$(status)
        p=$(printf '%s\n' "$s" | jget group_pss_kib)
        [ "${p:-0}" -gt "$idle" ] && idle=$p && idle_roles=$(printf '%s\n' "$s" | role_pss | tr ' ' /)
        sleep 0.1
    done
    s=$(status)
    slot_bytes=$(printf '%s\n' "$s" | jget slot_bytes)
    # for reference (the TSV's gpud_proof_kib): one proof's working set in
    # gpud during the warm-up, VmHWM − VmRSS at rest (its private peak over
    # its private memory now; the slots it maps count in both)
    local gpud_proof=0 role pid w
    while read -r role pid; do
        [ "$role" = gpud ] || continue
        w=$(awk '/^VmHWM:/ { h = $2 } /^VmRSS:/ { r = $2 } END { print h - r }' "/proc/$pid/status" 2>/dev/null)
        [ "${w:-0}" -gt "$gpud_proof" ] && gpud_proof=$w
    done < <(printf '%s\n' "$s" | role_pids)
    local smi_base=-
    [ $HAVE_SMI = 1 ] && smi_base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | awk '{ m += $1 } END { print m }')
    local warm_lines
    warm_lines=$(grep -c ' event=times ' "$D/serve.log")

    # the group's pids, and CLOCK_MONOTONIC - realtime from one status call
    local t1 t2 mono every
    printf '%s\n' "$s" | role_pids >"$D/pids"
    t1=$(rt_ns)
    mono=$(status | jget now_ns)
    t2=$(rt_ns)
    # status (slots in use) every 0.2 s at 2^18 and below, more rarely above
    every=$(awk -v d="$domain" -v s="$SAMPLE_S" 'BEGIN { e = 0.2 * d / 262144 / s; print e < 1 ? 1 : int(e) }')
    sampler "$every" $((mono - (t1 + t2) / 2)) >"$D/samples" &
    SAMPLER_PID=$!
    local tw0
    tw0=$(now_ms)
    if [ -n "${PIPE_PROOFS:-}" ]; then
        KEEP_DIR=$PIPE_PROOFS/$curve-$k
        mkdir -p "$KEEP_DIR" && cp "$dir/vk.json" "$KEEP_DIR/vk" || KEEP_DIR=
    fi
    submit_batch k "$dir/circuit.wtns" "$parts" "$jobs" && wait_batch ||
        { echo "bench_pipeline: measured batch failed" >&2; touch "$D/stop"; wait "$SAMPLER_PID"; SAMPLER_PID=; stop_serve; return 1; }
    local wall_ms=$(($(now_ms) - tw0))
    touch "$D/stop"
    wait "$SAMPLER_PID"
    SAMPLER_PID=
    # peak RSS of each process, read before it exits
    s=$(status)
    local rsup rsyn=0 rgpu=0 rsum=0 r each=
    while read -r role pid; do
        r=$(vmhwm "$pid")
        rsum=$((rsum + r))
        each="$each${each:+,}$role:$r"
        case $role in
        supervisor) rsup=$r ;;
        synthd) [ "$r" -gt "$rsyn" ] && rsyn=$r ;;
        gpud) [ "$r" -gt "$rgpu" ] && rgpu=$r ;;
        esac
    done < <(printf '%s\n' "$s" | role_pids)
    stop_serve
    grep ' event=times ' "$D/serve.log" | tail -n +$((warm_lines + 1)) >"$D/times"
    awk -v warm="$WARMUP" -v gpuds="$GPUDS" -v nvars="$nvars" -v domain="$domain" \
        -v idle="$idle" -v slots="$SLOTS" -v slot_bytes="$slot_bytes" -v synthds="$syn" \
        -v smi_base="$smi_base" -v samples="$D/samples" -v idle_roles="$idle_roles" \
        -v gpud_proof="$gpud_proof" -v parts="$parts" -v iparts="$iparts" -v wmem="$WMEM_KIB" \
        -v margins4="$(mem_margins "$nvars" "$domain" "$GPUDS" "$syn" \
            "$([ "$thr" = 0 ] && echo "$NCPU" || echo "$thr")" "$parts" \
            "$(dirname "$0")/../synthd/witness_read.h")" \
        -v pre="$(date -u +%F)	$MACHINE	$BACKEND	$curve	$logd	$n	$nvars	$syn	$SLOTS	$GPUDS	$thr	$parts" \
        -v rss="$rsup	$rsyn	$rgpu	$rsum	$each" '
    function field(name,   i) { for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2) + 0; return 0 }
    function pct(a, n, q,   i, j, t, idx) { # q-quantile of a[1..n] (nearest rank)
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        idx = int(q * n + 0.999999); if (idx < 1) idx = 1; if (idx > n) idx = n
        return a[idx]
    }
    function ms(ns) { return sprintf("%.1f", ns / 1e6) }
    {
        n++
        done[n] = field("done_ns"); busy_b[n] = done[n] - field("prove_ns") - field("verify_ns")
        g[n] = field("gpud")
        lat[n] = field("latency_ns"); qw[n] = field("queue_ns"); sw[n] = field("slot_wait_ns")
        rw[n] = field("ready_ns"); sy[n] = field("synth_ns"); sc[n] = field("synth_cpu_ns")
        pv[n] = field("prove_ns"); rows[n] = field("rows")
    }
    END {
        if (n <= warm) { print "bench_pipeline: only " n " completions" > "/dev/stderr"; exit 1 }
        # order by completion
        for (i = 1; i <= n; i++) ord[i] = i
        for (i = 2; i <= n; i++) { t = ord[i]; for (j = i - 1; j >= 1 && done[ord[j]] > done[t]; j--) ord[j + 1] = ord[j]; ord[j + 1] = t }
        w0 = done[ord[warm]]; w1 = done[ord[n]]; win = w1 - w0
        m = 0
        for (r = warm + 1; r <= n; r++) {
            i = ord[r]; m++
            L[m] = lat[i]; Q[m] = qw[i]; S[m] = sw[i]; R[m] = rw[i]; Y[m] = sy[i]; C[m] = sc[i]; P[m] = pv[i]
            if (sw[i] > swmax) swmax = sw[i]
            nw += sw[i] > 1e6
            if (sc[i] > 0) { cps[++nc] = rows[i] / (sc[i] / 1e9) }
        }
        # union of each gpud busy intervals, clipped to the window
        busy = 0
        for (gg = 0; gg < gpuds; gg++) {
            k = 0
            for (i = 1; i <= n; i++) if (g[i] == gg) { k++; b[k] = busy_b[i]; e[k] = done[i] }
            for (x = 2; x <= k; x++) { tb = b[x]; te = e[x]; for (y = x - 1; y >= 1 && b[y] > tb; y--) { b[y + 1] = b[y]; e[y + 1] = e[y] } b[y + 1] = tb; e[y + 1] = te }
            cb = -1; ce = -1
            for (x = 1; x <= k; x++) {
                lo = b[x] < w0 ? w0 : b[x]; hi = e[x] > w1 ? w1 : e[x]
                if (hi <= lo) continue
                if (cb < 0) { cb = lo; ce = hi; continue }
                if (lo <= ce) { if (hi > ce) ce = hi } else { busy += ce - cb; cb = lo; ce = hi }
            }
            if (cb >= 0) busy += ce - cb
        }
        # most partitions queued at once: each waited from done - latency -
        # queue (dispatchable) to done - latency (SYNTH sent; no retries here)
        for (i = 1; i <= n; i++) { ev[2 * i - 1] = (done[i] - lat[i] - qw[i]) " 1"; ev[2 * i] = (done[i] - lat[i]) " -1" }
        ne = 2 * n
        for (x = 2; x <= ne; x++) { t = ev[x]; split(t, tv, " "); for (y = x - 1; y >= 1; y--) { split(ev[y], yv, " "); if (yv[1] + 0 < tv[1] + 0 || (yv[1] + 0 == tv[1] + 0 && yv[2] + 0 <= tv[2] + 0)) break; ev[y + 1] = ev[y] } ev[y + 1] = t }
        q = 0; qmax = 0
        for (x = 1; x <= ne; x++) { split(ev[x], tv, " "); q += tv[2]; if (q > qmax) qmax = q }
        # samples: peak group Pss, slots in use, queue, GPU figures in the window
        peak = 0; inuse = 0; umax = 0; usum = 0; un = 0; memmax = -1
        while ((getline line < samples) > 0) {
            split(line, f, " ")
            if (f[2] + 0 > peak) { peak = f[2] + 0; peak_roles = f[7] "/" f[8] "/" f[9] }
            if (f[3] != "-" && f[3] + 0 > inuse) inuse = f[3] + 0
            if (f[5] != "-" && f[1] >= w0 && f[1] <= w1) { usum += f[5]; un++ }
            if (f[6] != "-" && f[6] + 0 > memmax) memmax = f[6] + 0
            if (f[10] + 0 > witmax) witmax = f[10] + 0
        }
        # one proof copied off, all gpuds, all synthds, the supervisor
        # (tests/wcopy_bytes.sh mem_margins)
        split(margins4, mm, " ")
        copied = mm[1] + 0; proofs = mm[2] + 0; scratch = mm[3] + 0; supm = mm[4] + 0
        slots_kib = int(slots * slot_bytes / 1024)
        base = idle - slots_kib
        wit = iparts > 0 ? synthds * wmem : 0
        margins = proofs + scratch + supm + wit
        bound = base + slots_kib + margins
        printf "%s\t%d\t%.3f\t%.2f\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.0f\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\n",
            pre, qmax, (n - warm) / (win / 1e9), win / 1e9,
            ms(pct(L, m, 0.5)), ms(pct(L, m, 0.95)), 100 * busy / (win * gpuds),
            un ? sprintf("%.0f", usum / un) : "-",
            ms(pct(Q, m, 0.5)), ms(pct(Q, m, 0.95)), ms(pct(S, m, 0.5)), ms(pct(S, m, 0.95)), ms(swmax), nw,
            ms(pct(R, m, 0.5)), ms(pct(Y, m, 0.5)), ms(pct(C, m, 0.5)), nc ? pct(cps, nc, 0.5) : 0,
            ms(pct(P, m, 0.5)), rss, idle, peak, idle_roles, peak_roles, base, slots_kib, margins, bound,
            copied, gpud_proof, scratch, supm, inuse,
            memmax < 0 ? "-" : (smi_base == "-" ? memmax : memmax " (idle " smi_base ")"),
            iparts, wit, witmax
    }' "$D/times" >>"$D/rows" || return 1
    tail -1 "$D/rows" >>"$TSV"
    echo "bench_pipeline: $curve 2^$logd: $parts partitions in $((wall_ms / 1000)).$(printf %03d $((wall_ms % 1000))) s" >&2
}

for spec in $SIZES; do
    for curve in $CURVES; do
        run_one "$curve" "$spec" || echo "bench_pipeline: $curve $spec: FAILED" >&2
    done
done

[ -s "$D/rows" ] || die "no run finished"
# The tables: the rows of this run, columns picked by name.
{
    echo "slotprove bench-pipeline, $(date -u '+%F %H:%M') UTC, $MACHINE, backend $BACKEND, $SYNTHDS synthds, $SLOTS slots, $GPUDS gpud(s), threads ${THREADS/#0/all}"
    echo "(steady state: from completion no. $WARMUP of a batch submitted at once to its last; times per partition)"
    echo
    printf '%s\n' "$COLS" | tr ' ' '\t' | cat - "$D/rows" | awk -F'\t' '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { row[NR] = $0 }
    END {
        fmt = "| %-8s | %4s | %5s | %8s | %8s | %8s | %8s | %6s | %5s | %9s | %9s | %9s | %8s | %9s | %12s |\n"
        printf fmt, "curve", "2^k", "parts", "proofs/s", "ms/proof", "lat p50", "lat p95", "busy%", "GPU%", "queue p50", "slot p50", "slot max", "synth", "synth cpu", "Mcons/s/core"
        print "|----------|------|-------|----------|----------|----------|----------|--------|-------|-----------|-----------|-----------|----------|-----------|--------------|"
        for (r = 2; r <= NR; r++) {
            split(row[r], f, "\t")
            printf fmt, f[c["curve"]], f[c["log_domain"]], f[c["parts"]], f[c["proofs_per_s"]],
                sprintf("%.1f", 1000 / f[c["proofs_per_s"]]), f[c["latency_p50_ms"]], f[c["latency_p95_ms"]], f[c["prover_busy_pct"]], f[c["gpu_util_pct"]],
                f[c["queue_wait_p50_ms"]], f[c["slot_wait_p50_ms"]], f[c["slot_wait_max_ms"]],
                f[c["synth_p50_ms"]], f[c["synth_cpu_p50_ms"]], sprintf("%.2f", f[c["synth_constraints_per_s_core"]] / 1e6)
        }
        print "(times in ms, medians unless p95/max; ms/proof = 1000 / proofs/s in steady state; lat = synthd start to proof;"
        print " busy = prover busy over the window; GPU = nvidia-smi utilization; queue = waiting for a synthd, no buffer held;"
        print " slot = synthd holding a partition, waiting for a free slot; synth = witness read + a, b, c (wall, CPU of all"
        print " threads); Mcons/s/core = domain rows / synthd CPU seconds, in millions)"
        print ""
        fmt = "| %-8s | %4s | %6s | %9s | %9s | %9s | %9s | %9s | %6s | %10s | %5s | %6s | %9s | %8s | %9s | %10s | %9s | %9s | %s\n"
        printf fmt, "curve", "2^k", "queued", "slots", "baseline", "margins", "bound", "peak Pss", "within", "above rest", "busy", "inputs", "wit term", "prog Pss", "sup HWM", "synthd HWM", "gpud HWM", "sum HWM", "device MiB"
        print "|----------|------|--------|-----------|-----------|-----------|-----------|-----------|--------|------------|-------|--------|-----------|----------|-----------|------------|-----------|-----------|-----------"
        for (r = 2; r <= NR; r++) {
            split(row[r], f, "\t")
            printf fmt, f[c["curve"]], f[c["log_domain"]], f[c["queued_max"]], f[c["slots_kib"]],
                f[c["baseline_kib"]], f[c["margins_kib"]], f[c["bound_kib"]], f[c["peak_pss_kib"]],
                f[c["peak_pss_kib"]] <= f[c["bound_kib"]] ? "yes" : "NO",
                f[c["peak_pss_kib"]] - f[c["idle_pss_kib"]], f[c["slots_in_use_max"]],
                f[c["input_parts"]], f[c["witness_mem_kib"]], f[c["witness_pss_max_kib"]],
                f[c["rss_supervisor_kib"]], f[c["rss_synthd_max_kib"]], f[c["rss_gpud_max_kib"]], f[c["rss_sum_kib"]], f[c["device_mem_mib"]]
        }
        print "(KiB. queued: most partitions waiting at once; slots: slots x slot_bytes; baseline: the group at rest after the warm-up"
        print " without the slots; margins: gpuds x (2 x the copied-off data (3 x domain + nVars) x 32 B + 4 MiB: the vectors,"
        print " as much again for backend scratch, MSM buckets and allocator slack) + synthds x scratch (64 KiB stack a thread,"
        print " the witness header, the private huge-page copy of a witness of 64 MiB or more) + 4 KiB a submitted partition"
        print " in the supervisor + with input jobs the witness term,"
        print " synthds x --witness-mem; bound = baseline + slots + margins; peak Pss: the group (the slots once, and the"
        print " witness programs alive), sampled every 0.2 s; within: peak <= bound; above rest: peak - baseline - slots;"
        print " busy: most slots not FREE; inputs: partitions of input jobs (a witness program each); prog Pss: most Pss"
        print " of the witness programs in one sample; HWM: VmHWM, which counts the slots each process touched)"
    }'
} | tee "$TXT"
echo "bench_pipeline: wrote $TXT and $TSV (one row per run, appended)" >&2
