/* witness_read.c — see witness_read.h. */
#include "witness_read.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "parallel.h"

struct read_ctx {
    const struct wtns *w;
    int fd;
    uint8_t *dst;
    uint8_t *copy; /* the private copy, or NULL */
    pthread_mutex_t lock;
    int rc;           /* of the lowest failed chunk */
    size_t bad_chunk;
    struct sp_err e;
};

static void read_chunks(void *arg, size_t begin, size_t end)
{
    struct read_ctx *x = arg;
    for (size_t i = begin; i < end; i++) {
        uint64_t first = (uint64_t)i * SYNTH_READ_CHUNK;
        uint64_t count = x->w->n_witness - first;
        if (count > SYNTH_READ_CHUNK)
            count = SYNTH_READ_CHUNK;
        struct sp_err e;
        int rc = wtns_read(x->w, x->fd, x->dst + first * 32, first, count, &e);
        if (rc == 0) {
            if (x->copy) /* 2 MiB just read: still in cache */
                memcpy(x->copy + first * 32, x->dst + first * 32, count * 32);
            continue;
        }
        pthread_mutex_lock(&x->lock);
        if (x->rc == 0 || i < x->bad_chunk) {
            x->rc = rc;
            x->bad_chunk = i;
            x->e = e;
        }
        pthread_mutex_unlock(&x->lock);
    }
}

static int read_witness(const struct wtns *w, int fd, void *dst, void *copy, unsigned nthreads,
                        struct sp_err *e)
{
    struct read_ctx x = { .w = w, .fd = fd, .dst = dst, .copy = copy,
                          .lock = PTHREAD_MUTEX_INITIALIZER };
    size_t nchunks = ((size_t)w->n_witness + SYNTH_READ_CHUNK - 1) / SYNTH_READ_CHUNK;
    if (nchunks == 0) /* nWitness 0: nothing to read, but the range is still checked */
        return wtns_read(w, fd, dst, 0, 0, e);
    parallel_for(nchunks, 1, nthreads, read_chunks, &x);
    pthread_mutex_destroy(&x.lock);
    if (x.rc < 0)
        *e = x.e;
    return x.rc;
}

int synth_read_witness(const struct wtns *w, int fd, void *dst, unsigned nthreads,
                       struct sp_err *e)
{
    return read_witness(w, fd, dst, NULL, nthreads, e);
}

#define HUGE_2M (2ull << 20)

void synth_wcopy_init(struct synth_wcopy *c, size_t min_bytes)
{
    memset(c, 0, sizeof(*c));
    c->min_bytes = min_bytes;
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (f) {
        if (!fgets(buf, sizeof(buf), f))
            buf[0] = 0;
        fclose(f);
    }
    /* no THP file (an old kernel, a container without /sys): 4 KiB pages,
     * the copy would only cost */
    c->off = !strstr(buf, "[always]") && !strstr(buf, "[madvise]");
}

size_t synth_wcopy_bytes(const struct synth_wcopy *c, uint64_t n_vars)
{
    uint64_t b = n_vars * 32;
    if (!c || c->off || b < c->min_bytes || b == 0)
        return 0;
    return (size_t)((b + HUGE_2M - 1) & ~(HUGE_2M - 1));
}

void synth_wcopy_done(struct synth_wcopy *c)
{
    if (!c)
        return;
    if (c->p)
        munmap(c->p, c->bytes);
    c->p = NULL;
    c->bytes = 0;
}

/* A fresh mapping of exactly bytes (a multiple of 2 MiB) for c, 2 MiB
 * aligned, with MADV_HUGEPAGE; NULL if it cannot be had. */
static void *wcopy_map(struct synth_wcopy *c, size_t bytes)
{
    synth_wcopy_done(c);
    size_t span = bytes + HUGE_2M;
    uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)m + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1);
    size_t head = a - (uintptr_t)m, tail = span - head - bytes;
    if (head)
        munmap(m, head);
    if (tail)
        munmap((uint8_t *)a + bytes, tail);
    if (madvise((void *)a, bytes, MADV_HUGEPAGE) != 0) {
        munmap((void *)a, bytes);
        return NULL;
    }
    c->p = (void *)a;
    c->bytes = bytes;
    return c->p;
}

int synth_read_witness_copy(const struct wtns *w, int fd, void *dst, struct synth_wcopy *c,
                            const void **gather, unsigned nthreads, struct sp_err *e)
{
    size_t bytes = synth_wcopy_bytes(c, w->n_witness);
    void *copy = bytes ? wcopy_map(c, bytes) : NULL;
    *gather = dst;
    int rc = read_witness(w, fd, dst, copy, nthreads, e);
    if (rc < 0) {
        synth_wcopy_done(c);
        return rc;
    }
    if (copy)
        *gather = copy;
    return rc;
}
