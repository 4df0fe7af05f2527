/* witness_read.c — see witness_read.h. */
#include "witness_read.h"

#include <pthread.h>
#include <stdint.h>

#include "parallel.h"

struct read_ctx {
    const struct wtns *w;
    int fd;
    uint8_t *dst;
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
        if (rc == 0)
            continue;
        pthread_mutex_lock(&x->lock);
        if (x->rc == 0 || i < x->bad_chunk) {
            x->rc = rc;
            x->bad_chunk = i;
            x->e = e;
        }
        pthread_mutex_unlock(&x->lock);
    }
}

int synth_read_witness(const struct wtns *w, int fd, void *dst, unsigned nthreads,
                       struct sp_err *e)
{
    struct read_ctx x = { .w = w, .fd = fd, .dst = dst, .lock = PTHREAD_MUTEX_INITIALIZER };
    size_t nchunks = ((size_t)w->n_witness + SYNTH_READ_CHUNK - 1) / SYNTH_READ_CHUNK;
    if (nchunks == 0) /* nWitness 0: nothing to read, but the range is still checked */
        return wtns_read(w, fd, dst, 0, 0, e);
    parallel_for(nchunks, 1, nthreads, read_chunks, &x);
    pthread_mutex_destroy(&x.lock);
    if (x.rc < 0)
        *e = x.e;
    return x.rc;
}
