# tests/wcopy_bytes.sh: sourced (POSIX sh) by the scripts that compute the
# memory bound (faults.sh s9, bench_pipeline.sh), so both check one bound.
#   wcopy_bytes NVARS [HEADER]  prints the bytes synthd's private huge-page copy of
#                       an NVARS-wire witness takes while a partition is
#                       synthesized, as synth_wcopy_bytes does
#                       (synthd/witness_read.h): NVARS × 32 rounded up to
#                       2 MiB when that is at least SYNTH_WCOPY_MIN_BYTES
#                       (read from HEADER, default synthd/witness_read.h
#                       from the repository root) and THP is madvise or always
#                       on this host; else 0
wcopy_bytes() {
    _wc_min=$(sed -n 's/^#define SYNTH_WCOPY_MIN_BYTES (\([0-9]*\)ull << \([0-9]*\)).*/\1 \2/p' \
        "${2:-synthd/witness_read.h}" | awk '{ printf "%.0f\n", $1 * 2 ^ $2 }')
    # header not found: count the copy at every size
    if grep -q '\[\(madvise\|always\)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
        [ $(($1 * 32)) -ge "${_wc_min:-0}" ]; then
        echo $((($1 * 32 + 2097151) / 2097152 * 2097152))
    else
        echo 0
    fi
}

# mem_margins NVARS DOMAIN GPUDS SYNTHDS THREADS PARTS [HEADER]  prints the
#   memory bound's margins above baseline + slots (README "Memory bound"), in
#   KiB: "COPIED PROOFS SCRATCH SUPERVISOR" —
#   COPIED      one proof's copied-off data, (3 × domain + nVars) × 32 B: a,
#               b and the witness off the slot and the c gpud forms
#   PROOFS      all gpuds: each twice COPIED (as much again for the backend's
#               scratch) + 4 MiB (MSM buckets, allocator slack). A CPU gpud's
#               working set is freed to the system between proofs, so the
#               baseline at rest does not hold it.
#   SCRATCH     all synthds: 64 KiB of stack a thread and the witness
#               header (4 KiB) each, plus the private huge-page copy of a
#               witness (wcopy_bytes; the synthesis index and the key's
#               coefficients are shared, built at key load: in the baseline)
#   SUPERVISOR  4 KiB a submitted partition (its job entry, the proof kept
#               for --result-ttl): 2.1–2.5 KiB measured on the 2-core box
#               (2026-12-03, 60 and 120 one-partition jobs, the supervisor's
#               anonymous memory at rest), 6.2 KiB before an input job's
#               program path left the job entry (run/sup/jobs.h)
mem_margins() {
    _mm_copied=$((((3 * $2 + $1) * 32 + 1023) / 1024))
    _mm_wcopy=$(($(wcopy_bytes "$1" ${7:+"$7"}) / 1024))
    echo "$_mm_copied $(($3 * (2 * _mm_copied + 4096))) $((($4 * (65536 * $5 + 4096) + 1023) / 1024 + $4 * _mm_wcopy)) $((4 * $6))"
}
