/*
 * stuck.h — children that would not die: left behind, their slots quarantined.
 *
 * A child the supervisor SIGKILLs (a stall, its RSS limit: kids.h) exits at
 * once unless it sleeps in the kernel uninterruptibly: a read of a file on a
 * hung NFS hard mount or FUSE filesystem (state D) takes the signal only when
 * the read returns, which may be never. Waiting for it would keep its place
 * in the child table, and the work it holds, for as long as the mount hangs.
 * So a child not reaped STUCK_GRACE_NS after the supervisor's SIGKILL is
 * left behind (kids_leave_behind): its place goes to a new process, its work
 * is written off (core.c: a synthd's partition fails its job with the
 * reason; a gpud's partitions are synthesized again), and the process moves
 * to this table, watched through its pidfd.
 *
 * Its slots are quarantined: the slots its incarnation owns (FILLING for a
 * synthd, PROVING for a gpud) are left in that state, so no other process
 * can claim them (only FREE slots are claimed), and are not reclaimed until
 * its pidfd says it has exited. It has the pool's payload memfd mapped, and
 * a read that finally returns writes into its slot (synthd preads witnesses
 * straight into the slot) before the pending SIGKILL ends it. When it exits
 * the supervisor reaps it and frees its slots (core.c).
 *
 * Nothing here depends on the state letter: a child killed and not gone
 * after the grace period is left behind whether it shows D, S or anything
 * else. At shutdown a stuck child is not waited for (kids_shutdown): the
 * supervisor exits, and the process, orphaned, exits when its read returns
 * (init reaps it); the pool's memory is released with its last mapping.
 */
#ifndef SLOTPROVE_STUCK_H
#define SLOTPROVE_STUCK_H

#include <stdint.h>

#include "pool.h"
#include "proc.h"

#define STUCK_GRACE_NS (5ull * 1000000000ull) /* SIGKILLed and not gone this long: stuck */
#define STUCK_MAX 64                          /* left behind at once; more wait in place */

struct stuck_child {
    struct child_proc p;   /* pid, pidfd, incarnation; its control socket is closed */
    int gpud;              /* 1: gpud index; 0: synthd index */
    unsigned index;
    uint64_t killed_ns;    /* the supervisor's SIGKILL */
    uint64_t left_ns;      /* left behind */
    char state;            /* its /proc state letter at the last sample (D, S, …) */
    char reason[160];      /* why it was killed */
    char work[200];        /* what it held when left behind, or "" */
};

struct stuck_table {
    struct stuck_child c[STUCK_MAX];
    unsigned n;
    uint64_t total;        /* ever left behind */
    uint64_t exited;       /* of those, reaped since */
};

/* The entry whose pidfd is fd, or NULL. */
struct stuck_child *stuck_by_fd(struct stuck_table *t, int fd);

/* Reaps s (its pidfd is readable: it has exited), logs it with how long it
 * stayed stuck, and drops it from the table. The caller frees its slots
 * first (they are still owned by s->p.incarnation). */
void stuck_reap(struct stuck_table *t, struct stuck_child *s, uint64_t now);

/* The slots owned by incarnation inc (FILLING or PROVING): up to max
 * indices in out; returns how many there are. */
unsigned stuck_slots(const struct pool *pool, uint32_t inc, uint32_t *out, unsigned max);

/* At shutdown: logs each stuck child as left running, closes its pidfd. */
void stuck_forget_all(struct stuck_table *t);

#endif
