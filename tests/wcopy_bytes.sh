# tests/wcopy_bytes.sh: sourced (POSIX sh) by the scripts that compute the
# memory bound (faults.sh s9, bench_pipeline.sh).
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
