/* test_shm.c - Criterion tests for the shm/ module (pool, slots, ring, futex).
 * Multi-process tests fork; children report through their exit status and
 * always leave with _exit so Criterion's own state is left alone. */
#include <criterion/criterion.h>

#include "futex.h"
#include "pool.h"
#include "pool_scan.h"
#include "publish.h"
#include "ring.h"
#include "slot.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(shm_futex, .timeout = 120);
TestSuite(shm_pool, .timeout = 120);
TestSuite(shm_ring, .timeout = 120);
TestSuite(shm_slot, .timeout = 120);
TestSuite(shm_stress, .timeout = 300);

static uint64_t ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static void mkpool(struct pool *p, uint32_t n, uint64_t bytes)
{
    int rc = pool_create(p, n, bytes);

    cr_assert_eq(rc, 0, "pool_create: %s", strerror(-rc));
}

static uint32_t state_of(const struct pool *p, uint32_t s)
{
    return slot_state_of(slot_word(p, s));
}

/* Deterministic payload pattern for a job. */
static void fill_pattern(uint8_t *buf, size_t len, uint64_t job)
{
    uint64_t *w = (uint64_t *)buf;

    for (size_t i = 0; i < len / 8; i++)
        w[i] = job * 0x9e3779b97f4a7c15ULL + i;
}

static int check_pattern(const uint8_t *buf, size_t len, uint64_t job)
{
    const uint64_t *w = (const uint64_t *)buf;

    for (size_t i = 0; i < len / 8; i++)
        if (w[i] != job * 0x9e3779b97f4a7c15ULL + i)
            return 0;
    return 1;
}

/* Claim + header + publish, asserting each step; returns the slot. */
static uint32_t publish_one(struct pool *p, uint32_t owner, uint64_t job,
                            uint32_t partition, uint32_t *gen)
{
    struct slot_header h = { .job_id = job, .partition = partition,
                             .key_id = 1, .domain_size = 1024, .n_vars = 9,
                             .payload_bytes = 64 };
    uint32_t s, g;

    cr_assert_eq(slot_claim(p, owner, &s, &g), 0);
    fill_pattern(pool_payload(p, s), 64, job);
    slot_write_header(p, s, &h);
    cr_assert_eq(slot_publish(p, 0, s, g, owner), 0);
    *gen = g;
    return s;
}

/* ---- pool ---------------------------------------------------------------- */

Test(shm_pool, create_attach_roundtrip, .timeout = 5)
{
    struct pool p, a, b;
    uint32_t s, g;

    mkpool(&p, 3, 5000);
    cr_assert_eq(p.nslots, 3);
    cr_assert_eq(p.slot_bytes % (uint64_t)sysconf(_SC_PAGESIZE), 0);
    cr_assert_geq(p.slot_bytes, 5000);
    cr_assert_eq(p.hdr->ring_cap, 8);
    cr_assert_eq(p.hdr->magic, POOL_MAGIC);

    cr_assert_eq(pool_attach(&a, p.ctl_fd, p.payload_fd, PROT_READ | PROT_WRITE), 0);
    cr_assert_eq(pool_attach(&b, p.ctl_fd, p.payload_fd, PROT_READ), 0);
    cr_assert_neq(a.hdr, p.hdr);
    cr_assert_neq(b.hdr, a.hdr);
    cr_assert_neq(a.ctl_fd, p.ctl_fd);
    cr_assert_eq(a.nslots, 3);
    cr_assert_eq(b.slot_bytes, p.slot_bytes);
    cr_assert_eq(b.ring_mask, 7);
    cr_assert_eq(a.hdr->version, POOL_VERSION);

    /* State and payload written through one view are seen through the others. */
    cr_assert_eq(slot_claim(&a, 5, &s, &g), 0);
    cr_assert_eq(slot_word(&b, s), slot_word_make(SLOT_FILLING, 5, 1));
    memcpy(pool_payload(&a, s), "hello", 6);
    cr_assert_str_eq((char *)pool_payload(&b, s), "hello");
    cr_assert_str_eq((char *)pool_payload(&p, s), "hello");
    cr_assert_null(pool_payload(&b, 3));

    pool_detach(&a);
    pool_detach(&a);                    /* idempotent */
    pool_detach(&b);
    cr_assert_eq(fcntl(p.ctl_fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    pool_detach(&p);
}

Test(shm_pool, attach_rejects_mismatch, .timeout = 5)
{
    struct pool p, a;
    int odd = memfd_create("odd", MFD_CLOEXEC | MFD_ALLOW_SEALING);

    mkpool(&p, 2, 4096);
    /* Sealed but one page too large: size does not match the header. */
    cr_assert_eq(ftruncate(odd, (off_t)(p.payload_bytes + 4096)), 0);
    cr_assert_eq(fcntl(odd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
    cr_assert_eq(pool_attach(&a, p.ctl_fd, odd, PROT_READ), -EINVAL);
    cr_assert_eq(a.hdr, NULL);
    cr_assert_eq(a.ctl_fd, -1);
    cr_assert_eq(pool_attach(&a, odd, p.payload_fd, PROT_READ), -EINVAL);
    cr_assert_eq(pool_attach(&a, p.payload_fd, p.ctl_fd, PROT_READ), -EINVAL);
    cr_assert_eq(pool_attach(&a, p.ctl_fd, p.payload_fd, PROT_WRITE), -EINVAL);
    cr_assert_eq(pool_attach(&a, p.ctl_fd, 987, PROT_READ), -EBADF);
    cr_assert_eq(pool_create(&a, 0, 4096), -EINVAL);
    cr_assert_eq(pool_create(&a, POOL_MAX_SLOTS + 1, 4096), -EINVAL);
    cr_assert_eq(pool_create(&a, 2, 0), -EINVAL);
    close(odd);
    pool_detach(&p);
}

Test(shm_pool, sealed_and_allocated, .timeout = 5)
{
    struct pool p;
    struct stat st;

    mkpool(&p, 2, 8192);
    for (int i = 0; i < 2; i++) {
        int fd = i ? p.payload_fd : p.ctl_fd;
        uint64_t size = i ? p.payload_bytes : p.ctl_bytes;

        errno = 0;
        cr_assert_eq(ftruncate(fd, (off_t)size * 2), -1);
        cr_assert_eq(errno, EPERM);
        errno = 0;
        cr_assert_eq(ftruncate(fd, 0), -1);
        cr_assert_eq(errno, EPERM);
        errno = 0;
        cr_assert_eq(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
        cr_assert_eq(errno, EPERM);
        cr_assert_eq(fstat(fd, &st), 0);
        cr_assert_eq((uint64_t)st.st_size, size);
        cr_assert_geq((uint64_t)st.st_blocks * 512, size, "not preallocated");
    }
    pool_detach(&p);
}

Test(shm_pool, readonly_payload_faults, .timeout = 5, .signal = SIGSEGV)
{
    struct pool p, ro;

    mkpool(&p, 1, 4096);
    cr_assert_eq(pool_attach(&ro, p.ctl_fd, p.payload_fd, PROT_READ), 0);
    *(volatile uint8_t *)pool_payload(&ro, 0) = 1;
}

/* ---- slot transitions ----------------------------------------------------- */

Test(shm_slot, legal_transitions, .timeout = 5)
{
    struct pool p;
    struct slot_header h;
    uint32_t s, g, fs;

    mkpool(&p, 2, 4096);
    fs = pool_free_seq(&p);
    s = publish_one(&p, 7, 1234, 5, &g);
    cr_assert_eq(g, 1);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_READY, 0, 1));
    cr_assert_eq(pool_ready_seq(&p), 1);
    cr_assert_eq(slot_read_header(&p, s, &h), 0);
    cr_assert_eq(h.gen, 1);
    cr_assert_eq(h.job_id, 1234);
    cr_assert_eq(h.partition, 5);
    cr_assert_eq(h.publish_seq, 1);
    cr_assert(h.t_claim_ns > 0 && h.t_publish_ns >= h.t_claim_ns);

    cr_assert_eq(slot_take(&p, s, g, 9), 0);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_PROVING, 9, 1));
    cr_assert_eq(slot_read_header(&p, s, &h), 0);
    cr_assert_geq(h.t_take_ns, h.t_publish_ns);
    cr_assert(check_pattern(pool_payload(&p, s), 64, 1234));
    cr_assert_eq(slot_release(&p, s, g, 9), 0);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_FREE, 0, 2));
    cr_assert_eq(pool_free_seq(&p), fs + 1);

    /* FILLING -> abandon */
    cr_assert_eq(slot_claim(&p, 7, &s, &g), 0);
    cr_assert_eq(slot_abandon(&p, s, g, 7), 0);
    cr_assert_eq(state_of(&p, s), SLOT_FREE);
    cr_assert_eq(slot_gen_of(slot_word(&p, s)), g + 1);

    /* PROVING -> invalidate */
    s = publish_one(&p, 7, 1, 1, &g);
    cr_assert_eq(slot_take(&p, s, g, 9), 0);
    cr_assert_eq(slot_invalidate(&p, s, g, 9), 0);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_FREE, 0, g + 1));

    /* force_free from READY and from PROVING */
    s = publish_one(&p, 7, 2, 1, &g);
    cr_assert_eq(slot_force_free(&p, s, g), 0);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_FREE, 0, g + 1));
    s = publish_one(&p, 7, 3, 1, &g);
    cr_assert_eq(slot_take(&p, s, g, 9), 0);
    cr_assert_eq(slot_force_free(&p, s, g), 0);
    cr_assert_eq(state_of(&p, s), SLOT_FREE);

    cr_assert_str_eq(slot_state_name(SLOT_PROVING), "PROVING");
    cr_assert_str_eq(slot_state_name(9), "INVALID");
    pool_detach(&p);
}

Test(shm_slot, illegal_transitions, .timeout = 5)
{
    struct pool p;
    uint32_t s, g, s2, g2;

    mkpool(&p, 2, 4096);
    cr_assert_eq(slot_claim(&p, 7, &s, &g), 0);
    /* FILLING(7, g): wrong gen / owner / state */
    cr_assert_eq(slot_publish(&p, 0, s, g + 1, 7), -ESTALE);
    cr_assert_eq(slot_publish(&p, 0, s, g, 8), -ESTALE);
    cr_assert_eq(slot_abandon(&p, s, g - 1, 7), -ESTALE);
    cr_assert_eq(slot_abandon(&p, s, g, 8), -ESTALE);
    cr_assert_eq(slot_take(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_release(&p, s, g, 7), -ESTALE);
    cr_assert_eq(slot_invalidate(&p, s, g, 7), -ESTALE);
    cr_assert_eq(slot_force_free(&p, s, g), -ESTALE);
    cr_assert_eq(p.hdr->publish_counter, 1, "stale publish burned a seq");

    cr_assert_eq(slot_publish(&p, 0, s, g, 7), 0);
    /* READY(0, g) */
    cr_assert_eq(slot_publish(&p, 0, s, g, 7), -ESTALE);
    cr_assert_eq(slot_abandon(&p, s, g, 7), -ESTALE);
    cr_assert_eq(slot_take(&p, s, g + 1, 9), -ESTALE);
    cr_assert_eq(slot_release(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_force_free(&p, s, g + 1), -ESTALE);

    cr_assert_eq(slot_take(&p, s, g, 9), 0);
    /* PROVING(9, g) */
    cr_assert_eq(slot_take(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_release(&p, s, g, 8), -ESTALE);
    cr_assert_eq(slot_release(&p, s, g + 1, 9), -ESTALE);
    cr_assert_eq(slot_invalidate(&p, s, g, 8), -ESTALE);
    cr_assert_eq(slot_abandon(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_publish(&p, 0, s, g, 9), -ESTALE);
    cr_assert_eq(slot_release(&p, s, g, 9), 0);
    /* FREE(0, g+1): a second release, old handles */
    cr_assert_eq(slot_release(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_take(&p, s, g, 9), -ESTALE);
    cr_assert_eq(slot_force_free(&p, s, g + 1), -ESTALE);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_FREE, 0, g + 1));

    /* Bad arguments */
    cr_assert_eq(slot_claim(&p, 0, &s2, &g2), -EINVAL);
    cr_assert_eq(slot_claim(&p, SLOT_OWNER_MAX + 1, &s2, &g2), -EINVAL);
    cr_assert_eq(slot_publish(&p, 0, 2, 1, 7), -EINVAL);
    cr_assert_eq(slot_take(&p, 0, 1, 0), -EINVAL);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 0, NULL), -EINVAL);
    cr_assert_eq(slot_word(&p, 2), 0);
    pool_detach(&p);
}

Test(shm_slot, stale_owner_late_publish_after_reclaim, .timeout = 5)
{
    struct pool p;
    struct reclaim_report rep;
    uint32_t s, g, s2, g2;

    mkpool(&p, 1, 4096);
    cr_assert_eq(slot_claim(&p, 5, &s, &g), 0);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 5, &rep), 0);
    cr_assert_eq(rep.n_freed, 1);
    cr_assert_eq(slot_publish(&p, 0, s, g, 5), -ESTALE);
    cr_assert_eq(slot_claim(&p, 6, &s2, &g2), 0);
    cr_assert_eq(s2, s);
    cr_assert_eq(g2, g + 2);
    /* The old owner's handle fails; same gen with the old owner fails too. */
    cr_assert_eq(slot_publish(&p, 0, s, g, 5), -ESTALE);
    cr_assert_eq(slot_publish(&p, 0, s, g2, 5), -ESTALE);
    cr_assert_eq(slot_abandon(&p, s, g, 5), -ESTALE);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_FILLING, 6, g2));
    cr_assert_eq(slot_publish(&p, 0, s, g2, 6), 0);
    pool_detach(&p);
}

Test(shm_slot, claim_eagain_when_full, .timeout = 5)
{
    struct pool p;
    uint32_t s, g, seen = 0;

    mkpool(&p, 4, 4096);
    for (uint32_t i = 0; i < 4; i++) {
        cr_assert_eq(slot_claim(&p, 3, &s, &g), 0);
        cr_assert_eq(seen & (1u << s), 0, "slot %u claimed twice", s);
        seen |= 1u << s;
    }
    uint32_t fs = pool_free_seq(&p);
    cr_assert_eq(slot_claim(&p, 3, &s, &g), -EAGAIN);
    cr_assert_eq(slot_wait_free(&p, fs, 20), -ETIMEDOUT);
    cr_assert_eq(slot_abandon(&p, 2, 1, 3), 0);
    cr_assert_eq(slot_wait_free(&p, fs, 1000), -EAGAIN);  /* moved: rescan */
    cr_assert_eq(slot_claim(&p, 3, &s, &g), 0);
    cr_assert_eq(s, 2);
    cr_assert_eq(g, 3);             /* 1 claim, 2 abandon, 3 claim again */
    pool_detach(&p);
}

Test(shm_slot, reclaim_owner_reports, .timeout = 5)
{
    struct pool p;
    struct reclaim_report rep;
    struct slot_header h = { .job_id = 77, .partition = 3 };
    struct ring_ticket t;
    uint32_t f1, f2, f3, gf1, gf2, gf3, r, gr, o, go, rs = 0;

    mkpool(&p, 6, 4096);
    /* Dead synthd (5): two FILLING, one with a header, one without, one
     * torn mid-header-write; a READY slot it published stays READY. */
    cr_assert_eq(slot_claim(&p, 5, &f1, &gf1), 0);
    slot_write_header(&p, f1, &h);
    cr_assert_eq(slot_claim(&p, 5, &f2, &gf2), 0);
    cr_assert_eq(slot_claim(&p, 5, &f3, &gf3), 0);
    slot_write_header(&p, f3, &h);
    atomic_fetch_add(&p.slots[f3].hdr_seq, 1);           /* odd: torn */
    o = publish_one(&p, 5, 90, 9, &go);
    /* Dead gpud (9) held one PROVING. */
    r = publish_one(&p, 6, 88, 4, &gr);
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert_eq(slot_take(&p, r, gr, 9), 0);
    atomic_fetch_add(&p.slots[r].hdr_seq, 1);            /* died in t_take */

    uint32_t fs = pool_free_seq(&p);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 5, &rep), 0);
    cr_assert_eq(rep.n_freed, 3);
    cr_assert_eq(rep.n_readied, 0);
    for (uint32_t i = 0; i < 3; i++) {
        struct reclaim_entry *e = &rep.freed[i];

        cr_assert_eq(state_of(&p, e->slot), SLOT_FREE);
        if (e->slot == f1) {
            cr_assert(e->hdr_valid && e->job_id == 77 && e->partition == 3);
            cr_assert_eq(e->gen, gf1);
        } else {
            cr_assert(e->slot == f2 || e->slot == f3);
            cr_assert_eq(e->hdr_valid, 0);
        }
    }
    cr_assert_eq(slot_read_header(&p, f3, &h), 0, "seqlock repaired");
    cr_assert_eq(state_of(&p, o), SLOT_READY);
    cr_assert_eq(pool_free_seq(&p), fs + 1);

    rs = pool_ready_seq(&p);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 9, &rep), 0);
    cr_assert_eq(rep.n_freed, 0);
    cr_assert_eq(rep.n_readied, 1);
    cr_assert_eq(rep.readied[0].slot, r);
    cr_assert_eq(rep.readied[0].gen, gr);
    cr_assert(rep.readied[0].hdr_valid && rep.readied[0].job_id == 88 &&
              rep.readied[0].partition == 4);
    cr_assert_eq(slot_word(&p, r), slot_word_make(SLOT_READY, 0, gr));
    cr_assert_eq(pool_ready_seq(&p), rs + 1);
    cr_assert_eq(ring_pop(&p, 0, &t), 0, "ticket re-pushed");
    cr_assert_eq(t.slot, r);
    cr_assert_eq(t.gen, gr);
    cr_assert_eq(t.publish_seq, 2);
    cr_assert_eq(slot_take(&p, r, gr, 10), 0);
    cr_assert_eq(slot_read_header(&p, r, &h), 0);
    cr_assert_eq(h.job_id, 88);
    pool_detach(&p);
}

Test(shm_slot, read_header_gives_up_on_dead_writer, .timeout = 5)
{
    struct pool p;
    struct slot_header h;

    mkpool(&p, 1, 4096);
    atomic_store(&p.slots[0].hdr_seq, 3);
    uint64_t t0 = ms_now();
    cr_assert_eq(slot_read_header(&p, 0, &h), -EAGAIN);
    cr_assert_lt(ms_now() - t0, 500);
    pool_detach(&p);
}

Test(shm_slot, counts_and_format, .timeout = 5)
{
    /* A hand-made table: counts come from the words alone. */
    struct slot_desc table[7];
    const uint32_t st[7] = { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_READY,
                             SLOT_PROVING, SLOT_FREE, SLOT_FILLING };
    struct pool v = { .ctl_fd = -1, .payload_fd = -1, .slots = table,
                      .nslots = 7, .slot_bytes = 3ULL << 29 };  /* 1.5 GiB */
    struct pool_counts c;
    char buf[128];

    memset(table, 0, sizeof(table));
    for (int i = 0; i < 7; i++)
        atomic_store(&table[i].word, slot_word_make(st[i], st[i] ? 4 : 0, 10 + i));
    pool_counts(&v, &c);
    cr_assert_eq(c.slots[SLOT_FREE], 2);
    cr_assert_eq(c.slots[SLOT_FILLING], 2);
    cr_assert_eq(c.slots[SLOT_READY], 2);
    cr_assert_eq(c.slots[SLOT_PROVING], 1);
    cr_assert_eq(c.bytes[SLOT_READY], 3ULL << 30);
    cr_assert_eq(pool_format_buffers(&v, "claim", buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "BUFFERS[claim]: free=2 filling=2 ready=2 proving=1 est=7.50GiB");
    cr_assert_eq(pool_format_buffers(&v, "claim", buf, 10), -ENOSPC);
    cr_assert_eq(strlen(buf), 9);

    /* And from a live pool. */
    struct pool p;
    uint32_t s, g;

    mkpool(&p, 3, 1 << 20);
    cr_assert_eq(slot_claim(&p, 1, &s, &g), 0);
    publish_one(&p, 1, 5, 0, &g);
    cr_assert_eq(pool_format_buffers(&p, "tick", buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "BUFFERS[tick]: free=1 filling=1 ready=1 proving=0 est=0.00GiB");
    pool_detach(&p);
}

Test(shm_slot, oldest_ready_by_publish_seq, .timeout = 5)
{
    struct pool p;
    uint32_t a, b, c, ga, gb, gc, s, g;

    mkpool(&p, 4, 4096);
    cr_assert_eq(pool_oldest_ready(&p, &s, &g), -EAGAIN);
    /* Claim in one order, publish in another: publish order wins. */
    cr_assert_eq(slot_claim(&p, 1, &a, &ga), 0);
    cr_assert_eq(slot_claim(&p, 1, &b, &gb), 0);
    cr_assert_eq(slot_claim(&p, 1, &c, &gc), 0);
    cr_assert_eq(slot_publish(&p, 0, c, gc, 1), 0);
    cr_assert_eq(slot_publish(&p, 0, a, ga, 1), 0);
    cr_assert_eq(slot_publish(&p, 0, b, gb, 1), 0);
    cr_assert_eq(pool_oldest_ready(&p, &s, &g), 0);
    cr_assert_eq(s, c);
    cr_assert_eq(g, gc);
    cr_assert_eq(slot_take(&p, s, g, 2), 0);
    cr_assert_eq(pool_oldest_ready(&p, &s, &g), 0);
    cr_assert_eq(s, a);
    pool_detach(&p);
}

/* ---- ring ------------------------------------------------------------------- */

Test(shm_ring, fifo_empty_full_wrap, .timeout = 5)
{
    struct pool p;
    struct ring_ticket t;
    uint32_t cap;

    mkpool(&p, 2, 4096);
    cap = p.ring_mask + 1;
    cr_assert_eq(cap, 4);
    cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
    for (uint32_t lap = 0; lap < 5; lap++) {
        for (uint32_t i = 0; i < cap; i++)
            cr_assert_eq(ring_push(&p, 0, i, lap, lap * 100 + i), 0);
        cr_assert_eq(ring_push(&p, 0, 9, 9, 9), -EAGAIN, "full ring must refuse");
        cr_assert_eq(ring_pending(&p, 0), cap);
        for (uint32_t i = 0; i < cap; i++) {
            cr_assert_eq(ring_pop(&p, 0, &t), 0);
            cr_assert(t.slot == i && t.gen == lap && t.publish_seq == lap * 100 + i);
        }
        cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
        cr_assert_eq(ring_skip_hole(&p, 0), -EAGAIN, "nothing to skip");
    }
    pool_detach(&p);
}

/* Producer reserved a position and died before claiming its cell. */
Test(shm_ring, skip_unclaimed_hole, .timeout = 5)
{
    struct pool p;
    struct ring_ticket t;

    mkpool(&p, 2, 4096);
    uint64_t pos = atomic_fetch_add(&p.cursors[0].tail, 1);  /* reserve only */
    cr_assert_eq(ring_push(&p, 0, 1, 1, 11), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
    cr_assert_eq(ring_pending(&p, 0), 2);
    cr_assert_eq(ring_skip_hole(&p, 0), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert_eq(t.publish_seq, 11);
    /* Its late claim CAS can no longer succeed. */
    uint64_t e = pos;
    cr_assert_not(atomic_compare_exchange_strong(&p.rings[pos & p.ring_mask].seq,
                                                  &e, RING_BUSY | pos));
    for (int i = 0; i < 20; i++) {
        cr_assert_eq(ring_push(&p, 0, 0, 0, 100 + i), 0);
        cr_assert_eq(ring_pop(&p, 0, &t), 0);
        cr_assert_eq(t.publish_seq, 100 + i);
    }
    pool_detach(&p);
}

/* Producer claimed a cell, was skipped, and commits only laps later. */
Test(shm_ring, late_commit_never_corrupts, .timeout = 5)
{
    struct pool p;
    struct ring_ticket t;
    uint64_t pos, next = 1, expect = 1;
    uint32_t cap;

    mkpool(&p, 2, 4096);
    cap = p.ring_mask + 1;
    cr_assert_eq(ring_reserve(&p, 0, &pos), 0);
    cr_assert_eq(ring_push(&p, 0, 0, 0, next++), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
    cr_assert_eq(ring_skip_hole(&p, 0), 0);
    /* Several laps with the retired cell in the way: FIFO, nothing lost. */
    for (uint32_t i = 0; i < 5 * cap; i++) {
        cr_assert_eq(ring_push(&p, 0, 0, 0, next++), 0);
        cr_assert_eq(ring_pop(&p, 0, &t), 0);
        cr_assert_eq(t.publish_seq, expect++);
    }
    /* Keep tickets queued, some sitting in the cells after the dead one. */
    while (ring_push(&p, 0, 0, 0, next) == 0)
        next++;
    cr_assert_eq(ring_commit(&p, 0, pos, 666, 666, 666), -ESTALE);
    while (ring_pop(&p, 0, &t) == 0) {
        cr_assert_eq(t.publish_seq, expect++, "ticket corrupted or reordered");
        cr_assert_neq(t.slot, 666);
    }
    cr_assert_eq(expect, next);
    /* Once DONE the cell is recycled: full capacity again after a lap. */
    for (uint32_t lap = 0; lap < 3; lap++) {
        uint32_t n = 0;

        while (ring_push(&p, 0, 0, 0, next) == 0) {
            next++;
            n++;
        }
        while (ring_pop(&p, 0, &t) == 0)
            cr_assert_eq(t.publish_seq, expect++);
        if (lap == 2)
            cr_assert_eq(n, cap, "retired cell was not recycled");
    }
    pool_detach(&p);
}

/* Producer died holding a claim: the cell stays retired, the ring works on. */
Test(shm_ring, dead_claim_is_stepped_over, .timeout = 5)
{
    struct pool p;
    struct ring_ticket t;
    uint64_t pos, next = 1, expect = 1;

    mkpool(&p, 4, 4096);
    cr_assert_eq(ring_reserve(&p, 0, &pos), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
    cr_assert_eq(ring_pending(&p, 0), 1);
    cr_assert_eq(ring_skip_hole(&p, 0), 0);
    for (int round = 0; round < 50; round++) {
        int n = 0;

        while (ring_push(&p, 0, 1, 2, next) == 0) {
            next++;
            n++;
        }
        cr_assert_geq(n, (int)p.ring_mask, "capacity lost beyond one cell");
        while (ring_pop(&p, 0, &t) == 0)
            cr_assert_eq(t.publish_seq, expect++);
        cr_assert_eq(ring_pending(&p, 0), 0);
    }
    cr_assert_eq(expect, next);
    pool_detach(&p);
}

/* Consumer died after freeing the cell but before moving head. */
Test(shm_ring, consumer_crash_between_cell_and_head, .timeout = 5)
{
    struct pool p;
    struct ring_ticket t;

    mkpool(&p, 2, 4096);
    cr_assert_eq(ring_push(&p, 0, 1, 1, 1), 0);
    cr_assert_eq(ring_push(&p, 0, 2, 2, 2), 0);
    atomic_store(&p.rings[0].seq, p.ring_mask + 1);   /* popped, head not moved */
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert_eq(t.slot, 2);
    cr_assert_eq(ring_pop(&p, 0, &t), -EAGAIN);
    pool_detach(&p);
}

/* ---- futex ------------------------------------------------------------------ */

Test(shm_futex, wait_times_out_or_sees_change, .timeout = 5)
{
    _Atomic uint32_t w = 5;
    uint64_t t0 = ms_now();

    cr_assert_eq(shm_futex_wait(&w, 5, 50), -ETIMEDOUT);
    cr_assert_geq(ms_now() - t0, 45);
    cr_assert_eq(shm_futex_wait(&w, 4, 1000), -EAGAIN);
    cr_assert_eq(shm_futex_wait(NULL, 4, 1000), -EINVAL);
    cr_assert_eq(shm_futex_wake_all(&w), 0);
}

Test(shm_futex, woken_by_other_process, .timeout = 10)
{
    struct pool p;
    uint32_t seen;
    pid_t pid;
    int status;

    mkpool(&p, 1, 4096);
    seen = pool_free_seq(&p);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        /* Separate mapping of the memfd, as an exec'd process would have. */
        struct pool c;

        if (pool_attach(&c, p.ctl_fd, p.payload_fd, PROT_READ) != 0)
            _exit(1);
        sleep_ms(100);
        shm_futex_bump_wake(&c.hdr->free_seq);
        _exit(0);
    }
    uint64_t t0 = ms_now();
    int rc = slot_wait_free(&p, seen, 5000);
    uint64_t dt = ms_now() - t0;

    cr_assert(rc == 0 || rc == -EAGAIN, "rc %d", rc);
    cr_assert_neq(pool_free_seq(&p), seen);
    cr_assert_lt(dt, 4000, "not woken (%llu ms)", (unsigned long long)dt);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pool_detach(&p);
}

/* ---- multi-process ---------------------------------------------------------- */

#define ST_PRODUCERS 4
#define ST_PER_PROD  500
#define ST_BYTES     16384

static int stress_producer(int ctl, int pay, uint32_t idx)
{
    struct pool c;
    uint32_t owner = 100 + idx;

    if (pool_attach(&c, ctl, pay, PROT_READ | PROT_WRITE) != 0)
        return 1;
    for (uint32_t i = 0; i < ST_PER_PROD; i++) {
        uint64_t job = (uint64_t)(idx + 1) << 32 | i;
        struct slot_header h = { .job_id = job, .partition = i,
                                 .payload_bytes = ST_BYTES };
        uint32_t s, g;

        for (;;) {
            uint32_t seen = pool_free_seq(&c);

            if (slot_claim(&c, owner, &s, &g) == 0)
                break;
            slot_wait_free(&c, seen, 100);
        }
        fill_pattern(pool_payload(&c, s), ST_BYTES, job);
        slot_write_header(&c, s, &h);
        if (slot_publish(&c, 0, s, g, owner) != 0)
            return 2;
    }
    pool_detach(&c);
    return 0;
}

/* Consumer side of one ticket/scan hit; 0 ok, or a failure code. */
static int stress_consume(struct pool *c, uint32_t s, uint32_t g,
                          uint8_t seen[ST_PRODUCERS][ST_PER_PROD])
{
    struct slot_header h;
    uint32_t prod, it;

    if (slot_read_header(c, s, &h) != 0 || h.gen != g || h.payload_bytes != ST_BYTES)
        return 10;
    prod = (uint32_t)(h.job_id >> 32) - 1;
    it = (uint32_t)h.job_id;
    if (prod >= ST_PRODUCERS || it >= ST_PER_PROD || it != h.partition)
        return 11;
    if (!check_pattern(pool_payload(c, s), ST_BYTES, h.job_id))
        return 12;
    if (seen[prod][it]++)
        return 13;                    /* consumed twice */
    return slot_release(c, s, g, 1) == 0 ? 0 : 14;
}

Test(shm_stress, four_producers_one_consumer, .timeout = 60)
{
    static uint8_t seen[ST_PRODUCERS][ST_PER_PROD];
    struct pool p, c;
    struct pool_counts pc;
    struct ring_ticket t;
    pid_t pids[ST_PRODUCERS];
    uint32_t consumed = 0, via_scan = 0;
    uint64_t deadline = ms_now() + 50000;

    mkpool(&p, 4, ST_BYTES);
    cr_assert_eq(pool_attach(&c, p.ctl_fd, p.payload_fd, PROT_READ), 0);
    for (uint32_t i = 0; i < ST_PRODUCERS; i++) {
        pids[i] = fork();
        cr_assert_geq(pids[i], 0);
        if (pids[i] == 0)
            _exit(stress_producer(p.ctl_fd, p.payload_fd, i));
    }
    while (consumed < ST_PRODUCERS * ST_PER_PROD) {
        uint32_t rseq = pool_ready_seq(&c), s, g;
        int rc;

        cr_assert_lt(ms_now(), deadline, "stalled at %u", consumed);
        if (ring_pop(&c, 0, &t) == 0) {
            if (slot_take(&c, t.slot, t.gen, 1) != 0)
                continue;             /* stale: already taken via scan */
            s = t.slot;
            g = t.gen;
        } else if (pool_oldest_ready(&c, &s, &g) == 0) {
            if (slot_take(&c, s, g, 1) != 0)
                continue;
            via_scan++;
        } else {
            shm_futex_wait(&c.hdr->ready_seq, rseq, 100);
            continue;
        }
        rc = stress_consume(&c, s, g, seen);
        cr_assert_eq(rc, 0, "consume failed: %d", rc);
        consumed++;
    }
    for (uint32_t i = 0; i < ST_PRODUCERS; i++) {
        int status;

        cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "producer %u status %#x", i, status);
    }
    for (uint32_t i = 0; i < ST_PRODUCERS; i++)
        for (uint32_t j = 0; j < ST_PER_PROD; j++)
            cr_assert_eq(seen[i][j], 1);
    /* Leftover tickets can only be stale ones. */
    while (ring_pop(&c, 0, &t) == 0)
        cr_assert_eq(slot_take(&c, t.slot, t.gen, 1), -ESTALE);
    cr_assert_eq(ring_pending(&c, 0), 0);
    pool_counts(&c, &pc);
    cr_assert_eq(pc.slots[SLOT_FREE], 4, "slots not conserved");
    cr_assert_eq(c.hdr->publish_counter, 1 + ST_PRODUCERS * ST_PER_PROD);
    cr_log_info("stress: %u consumed, %u via table scan", consumed, via_scan);
    pool_detach(&c);
    pool_detach(&p);
}

Test(shm_stress, sigkill_mid_filling_then_reclaim, .timeout = 20)
{
    struct pool p;
    struct reclaim_report rep;
    struct pool_counts pc;
    int pfd[2], status;
    char ok;
    pid_t pid;

    mkpool(&p, 4, 65536);
    cr_assert_eq(pipe(pfd), 0);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct pool c;
        struct slot_header h = { .job_id = 77, .partition = 3 };
        uint32_t s1, s2, g;

        close(pfd[0]);
        if (pool_attach(&c, p.ctl_fd, p.payload_fd, PROT_READ | PROT_WRITE) != 0 ||
            slot_claim(&c, 42, &s1, &g) != 0 || slot_claim(&c, 42, &s2, &g) != 0)
            _exit(1);
        slot_write_header(&c, s1, &h);
        if (write(pfd[1], "x", 1) != 1)
            _exit(1);
        for (uint64_t n = 0;; n++) {           /* filling until killed */
            fill_pattern(pool_payload(&c, s2), 65536, n);
            slot_write_header(&c, s2, &(struct slot_header){ .job_id = n, .partition = 8 });
        }
    }
    close(pfd[1]);
    cr_assert_eq(read(pfd[0], &ok, 1), 1);
    close(pfd[0]);
    sleep_ms(20);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    pool_counts(&p, &pc);
    cr_assert_eq(pc.slots[SLOT_FILLING], 2);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 42, &rep), 0);
    cr_assert_eq(rep.n_freed, 2);
    cr_assert_eq(rep.n_readied, 0);
    int found = 0;
    for (uint32_t i = 0; i < 2; i++)
        if (rep.freed[i].hdr_valid && rep.freed[i].job_id == 77)
            found = rep.freed[i].partition == 3;
    cr_assert(found, "job 77 / partition 3 not reported");
    pool_counts(&p, &pc);
    cr_assert_eq(pc.slots[SLOT_FREE], 4, "pool not whole after reclaim");

    /* Whole again: all four slots usable end to end by a new owner. */
    for (int i = 0; i < 4; i++) {
        uint32_t g, s = publish_one(&p, 43, 1000 + i, 0, &g);
        struct slot_header h;

        cr_assert_eq(slot_read_header(&p, s, &h), 0);
        cr_assert_eq(h.job_id, 1000 + i);
    }
    pool_counts(&p, &pc);
    cr_assert_eq(pc.slots[SLOT_READY], 4);
    pool_detach(&p);
}

Test(shm_stress, sigkill_mid_proving_requeues, .timeout = 20)
{
    struct pool p;
    struct reclaim_report rep;
    struct ring_ticket t;
    int pfd[2], status;
    uint32_t s, g;
    char ok;
    pid_t pid;

    mkpool(&p, 2, 4096);
    s = publish_one(&p, 5, 4242, 6, &g);
    cr_assert_eq(pipe(pfd), 0);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {                           /* gpud: take, then hang */
        struct pool c;
        struct ring_ticket ct;

        close(pfd[0]);
        if (pool_attach(&c, p.ctl_fd, p.payload_fd, PROT_READ) != 0 ||
            ring_pop(&c, 0, &ct) != 0 || slot_take(&c, ct.slot, ct.gen, 77) != 0 ||
            write(pfd[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(pfd[1]);
    cr_assert_eq(read(pfd[0], &ok, 1), 1);
    close(pfd[0]);
    cr_assert_eq(slot_word(&p, s), slot_word_make(SLOT_PROVING, 77, g));
    cr_assert_eq(kill(pid, SIGKILL), 0);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert_eq(slot_reclaim_owner(&p, 0, 77, &rep), 0);
    cr_assert_eq(rep.n_readied, 1);
    cr_assert_eq(rep.readied[0].job_id, 4242);
    cr_assert_eq(rep.readied[0].partition, 6);
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert(t.slot == s && t.gen == g);
    cr_assert_eq(slot_take(&p, s, g, 78), 0);
    cr_assert(check_pattern(pool_payload(&p, s), 64, 4242));
    cr_assert_eq(slot_release(&p, s, g, 78), 0);
    pool_detach(&p);
}

#define RS_PRODUCERS 4
#define RS_PER_PROD  20000

static uint64_t rs_check(uint32_t prod, uint32_t k)
{
    return ((uint64_t)prod << 32 | k) * 0x9e3779b97f4a7c15ULL;
}

/* Producer that dawdles between reserve and commit, to be skipped often. */
static int ring_producer(struct pool *p, uint32_t idx, _Atomic uint32_t *stale)
{
    for (uint32_t k = 0; k < RS_PER_PROD; k++) {
        uint64_t pos;
        int rc;

        while ((rc = ring_reserve(p, 0, &pos)) == -EAGAIN)
            sched_yield();
        if (rc != 0)
            return 1;
        if (k % 5 == 0)
            sched_yield();
        rc = ring_commit(p, 0, pos, idx, k, rs_check(idx, k));
        if (rc == -ESTALE)
            atomic_fetch_add(stale, 1);
        else if (rc != 0)
            return 2;
    }
    return 0;
}

Test(shm_stress, ring_skips_under_contention, .timeout = 60)
{
    struct pool p;
    struct ring_ticket t;
    _Atomic uint32_t *stale;
    int32_t last[RS_PRODUCERS];
    pid_t pids[RS_PRODUCERS];
    uint32_t popped = 0, skipped = 0, alive = RS_PRODUCERS, spin = 0;

    mkpool(&p, 4, 4096);
    stale = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(stale, MAP_FAILED);
    for (uint32_t i = 0; i < RS_PRODUCERS; i++) {
        last[i] = -1;
        pids[i] = fork();
        cr_assert_geq(pids[i], 0);
        if (pids[i] == 0)
            _exit(ring_producer(&p, i, stale));
    }
    for (;;) {
        if (ring_pop(&p, 0, &t) == 0) {
            cr_assert_lt(t.slot, RS_PRODUCERS);
            cr_assert_eq(t.publish_seq, rs_check(t.slot, t.gen), "corrupt ticket");
            cr_assert_gt((int32_t)t.gen, last[t.slot], "reordered or duplicated");
            last[t.slot] = (int32_t)t.gen;
            popped++;
            continue;
        }
        /* Impatient consumer: skip a pending hole every few polls. */
        if (ring_pending(&p, 0) > 0 && ++spin % 4 == 0) {
            skipped += ring_skip_hole(&p, 0) == 0;
            continue;
        }
        if (alive == 0 && ring_pending(&p, 0) == 0)
            break;
        for (uint32_t i = 0; i < RS_PRODUCERS; i++) {
            int status;

            if (pids[i] > 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
                cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                pids[i] = 0;
                alive--;
            }
        }
        sched_yield();
    }
    cr_log_info("ring: %u popped, %u holes skipped, %u late commits refused",
                popped, skipped, atomic_load(stale));
    cr_assert_eq(popped + atomic_load(stale), RS_PRODUCERS * RS_PER_PROD,
                 "a ticket was lost or invented");
    /* Still a working ring afterwards. */
    cr_assert_eq(ring_push(&p, 0, 1, 2, 3), 0);
    cr_assert_eq(ring_pop(&p, 0, &t), 0);
    cr_assert_eq(t.publish_seq, 3);
    pool_detach(&p);
}

/* One ticket ring per gpud: a ticket pushed on ring 1 (through one process's
 * view) is popped from ring 1 (through another's) and never from ring 0;
 * FIFO order holds per ring; the ring count is checked at attach. */
Test(shm_ring, one_ring_per_consumer, .timeout = 5)
{
    struct pool p, a;
    struct ring_ticket t;
    cr_assert_eq(pool_create_rings(&p, 4, 4096, 3), 0);
    cr_assert_eq(p.nrings, 3u);
    cr_assert_eq(ring_push(&p, 3, 1, 1, 1), -EINVAL, "no ring 3");
    cr_assert_eq(ring_pop(&p, 3, &t), -EINVAL);
    cr_assert_eq(ring_pending(&p, 3), 0);
    cr_assert_eq(pool_attach(&a, p.ctl_fd, p.payload_fd, PROT_READ), 0);
    cr_assert_eq(a.nrings, 3u);
    cr_assert_eq(ring_push(&p, 1, 2, 7, 11), 0);
    cr_assert_eq(ring_push(&p, 1, 3, 8, 12), 0);
    cr_assert_eq(ring_push(&p, 2, 0, 9, 13), 0);
    cr_assert_eq(ring_pop(&a, 0, &t), -EAGAIN, "ring 0 holds nothing");
    cr_assert_eq(ring_pending(&a, 1), 2);
    cr_assert_eq(ring_pop(&a, 1, &t), 0);
    cr_assert(t.slot == 2 && t.gen == 7 && t.publish_seq == 11);
    cr_assert_eq(ring_pop(&a, 1, &t), 0);
    cr_assert(t.slot == 3 && t.gen == 8 && t.publish_seq == 12);
    cr_assert_eq(ring_pop(&a, 1, &t), -EAGAIN);
    cr_assert_eq(ring_pop(&a, 2, &t), 0);
    cr_assert(t.slot == 0 && t.gen == 9 && t.publish_seq == 13);
    /* slot_publish puts its ticket on the ring it is given, and a reclaim
     * re-queues on the ring it is given */
    uint32_t s, g;
    struct reclaim_report rep;
    cr_assert_eq(slot_claim(&p, 5, &s, &g), 0);
    cr_assert_eq(slot_publish(&p, 3, s, g, 5), -EINVAL, "no ring 3");
    cr_assert_eq(slot_publish(&p, 2, s, g, 5), 0);
    cr_assert_eq(ring_pending(&a, 0) + ring_pending(&a, 1), 0);
    cr_assert_eq(ring_pop(&a, 2, &t), 0);
    cr_assert(t.slot == s && t.gen == g);
    cr_assert_eq(slot_take(&a, s, g, 6), 0);
    cr_assert_eq(slot_reclaim_owner(&p, 1, 6, &rep), 0);
    cr_assert_eq(rep.n_readied, 1);
    cr_assert_eq(ring_pending(&a, 2), 0);
    cr_assert_eq(ring_pop(&a, 1, &t), 0);
    cr_assert(t.slot == s && t.gen == g && t.publish_seq == rep.readied[0].publish_seq);
    pool_detach(&a);
    pool_detach(&p);
    cr_assert_eq(pool_create_rings(&p, 4, 4096, 0), -EINVAL);
    cr_assert_eq(pool_create_rings(&p, 4, 4096, POOL_MAX_RINGS + 1), -EINVAL);
}

/* pool_create_lazy (serve with no key): the payload memfd has no blocks
 * until a slot is written, and then only the pages written (st_blocks, in
 * 512-byte units, from the kernel); pool_create_rings allocates all; an
 * attacher of the lazy pool sees its flag and adds no pages by mapping. */
Test(shm_pool, lazy_payload_allocated_on_first_touch)
{
    struct pool lazy, full, view;
    struct stat st;
    long page = sysconf(_SC_PAGESIZE);
    cr_assert_eq(pool_create_lazy(&lazy, 4, 1 << 20, 1), 0);
    cr_assert_eq(pool_create_rings(&full, 4, 1 << 20, 1), 0);
    cr_assert_eq(fstat(full.payload_fd, &st), 0);
    cr_assert_eq((uint64_t)st.st_blocks * 512, full.payload_bytes);
    cr_assert_eq(fstat(lazy.payload_fd, &st), 0);
    cr_assert_eq(st.st_blocks, 0);
    cr_assert_eq(pool_attach(&view, lazy.ctl_fd, lazy.payload_fd, PROT_READ | PROT_WRITE), 0);
    cr_assert_eq(view.hdr->lazy, 1);
    cr_assert_eq(full.hdr->lazy, 0);
    cr_assert_eq(fstat(lazy.payload_fd, &st), 0);
    cr_assert_eq(st.st_blocks, 0, "attaching allocated %lld blocks", (long long)st.st_blocks);
    memset(pool_payload(&view, 2), 7, (size_t)(3 * page)); /* 3 pages of slot 2 */
    cr_assert_eq(fstat(lazy.payload_fd, &st), 0);
    cr_assert_eq((uint64_t)st.st_blocks * 512, (uint64_t)(3 * page));
    cr_assert_eq(((uint8_t *)pool_payload(&lazy, 2))[3 * page - 1], 7);
    pool_detach(&view);
    pool_detach(&lazy);
    pool_detach(&full);
}
