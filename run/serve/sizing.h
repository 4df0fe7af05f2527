/*
 * sizing.h — what `slotprove serve` picks when a flag is not given: the
 * slot pool from the memory this process may use, one gpud per visible GPU.
 *
 * Memory it may use ("usable"): MemAvailable from /proc/meminfo, lowered to
 * limit - usage of this process's memory cgroup and each of its ancestors
 * that sets a limit (/proc/self/cgroup; v2: memory.max - memory.current
 * under /sys/fs/cgroup, v1: memory.limit_in_bytes - memory.usage_in_bytes
 * under /sys/fs/cgroup/memory).
 *
 * The pool gets one eighth of that, at most SIZING_POOL_MAX (the rest is for
 * the children's own memory: a CPU prover needs several times a slot):
 *   slots       synthds + 2 x gpuds (each synthd filling one, each gpud
 *               proving one with one more waiting), at most 256; when the
 *               slot size is given (--slot-bytes, or auto from --key) and
 *               that many do not fit the pool budget, as many as fit, at
 *               least 2
 *   slot bytes  --slot-bytes, else auto: the largest --key's need, else
 *               (no --key) the pool budget / slots, rounded down to MiB,
 *               between SIZING_SLOT_MIN and SIZING_SLOT_MAX
 * A --zkey job whose key needs larger slots fails with both sizes named
 * (keys.c), as with any --slot-bytes.
 */
#ifndef SLOTPROVE_SIZING_H
#define SLOTPROVE_SIZING_H

#include <stdint.h>

#define SIZING_POOL_MAX (64ull << 30)
#define SIZING_SLOT_MIN (16ull << 20)
#define SIZING_SLOT_MAX (16ull << 30)

struct sizing {
    uint64_t usable_bytes;      /* memory this process may use, see above */
    const char *usable_from;    /* "MemAvailable" or "cgroup <path>" */
    uint64_t pool_budget_bytes; /* min(usable / 8, SIZING_POOL_MAX) */
    const char *slots_from;     /* "--slots", "default", "default, memory-limited" */
    const char *slot_bytes_from;/* "--slot-bytes", "largest --key", "memory" */
    const char *gpuds_from;     /* "--gpus", "--gpuds", "visible GPUs", "one CPU gpud ..." */
    char cgroup[200];           /* the limiting cgroup's path, for usable_from */
};

/* Bytes of memory this process may use (see above); *from names where the
 * figure came from (a static string or s->cgroup). 0 when /proc/meminfo
 * cannot be read. */
uint64_t sizing_usable(struct sizing *s);

/* Fills *slots (when slots_given is 0) and *slot_bytes (when it is 0 on
 * entry: no --slot-bytes and no --key) by the rules above, and records in s
 * where each came from. key_slot_bytes: the largest --key's need, 0 without
 * one (the caller has already put it in *slot_bytes for auto). */
void sizing_pick(struct sizing *s, unsigned synthds, unsigned gpuds, int slots_given,
                 int slot_bytes_given, uint64_t key_slot_bytes, unsigned *slots,
                 uint64_t *slot_bytes);

#endif
