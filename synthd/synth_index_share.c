/* synth_index_share.c — see synth_index_share.h. */
#include "synth_index_share.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parallel.h"

#define NEED_SEALS (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)

struct memfd_alloc {
    int fd;
    size_t bytes;
};

static void *memfd_block(void *ctx, size_t bytes)
{
    struct memfd_alloc *m = ctx;
    if (ftruncate(m->fd, (off_t)bytes) < 0)
        return NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
    if (p == MAP_FAILED)
        return NULL;
    m->bytes = bytes;
    return p;
}

int synth_index_build_shared(struct synth_index *ix, const struct zkey *zk, int *fd,
                             struct sp_err *e)
{
    struct memfd_alloc m = { .fd = memfd_create("slotprove-synth-index",
                                                MFD_CLOEXEC | MFD_ALLOW_SEALING) };
    *fd = -1;
    if (m.fd < 0)
        return synth_index_build(ix, zk, e);
    int rc = synth_index_build_with(ix, zk, memfd_block, &m, e);
    if (rc < 0) {
        close(m.fd);
        return rc;
    }
    /* F_SEAL_WRITE needs every writable mapping gone: remap read-only */
    struct synth_index built = *ix;
    if (munmap(built.block, built.block_bytes) < 0 ||
        fcntl(m.fd, F_ADD_SEALS, NEED_SEALS | F_SEAL_SEAL) < 0) {
        close(m.fd);
        memset(ix, 0, sizeof(*ix));
        return synth_index_build(ix, zk, e);
    }
    void *p = mmap(NULL, m.bytes, PROT_READ, MAP_SHARED, m.fd, 0);
    if (p == MAP_FAILED) {
        rc = sp_fail(e, -errno, "%s: cannot map its synthesis index: %s", zk->path, strerror(errno));
        close(m.fd);
        memset(ix, 0, sizeof(*ix));
        return rc;
    }
    if ((rc = synth_index_attach(ix, zk, p, m.bytes, "synthesis index", e)) < 0) {
        munmap(p, m.bytes);
        close(m.fd);
        return rc;
    }
    *fd = m.fd;
    return 0;
}

int synth_index_map_shared(struct synth_index *ix, const struct zkey *zk, int fd,
                           struct sp_err *e)
{
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    memset(ix, 0, sizeof(*ix));
    if (seals < 0 || (seals & NEED_SEALS) != NEED_SEALS || fstat(fd, &st) < 0 ||
        !S_ISREG(st.st_mode) || st.st_size <= 0)
        return sp_fail(e, -SP_EFORMAT, "%s: the shared synthesis index is not a sealed memfd",
                       zk->path);
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return sp_fail(e, -errno, "%s: cannot map the shared synthesis index: %s", zk->path,
                       strerror(errno));
    int rc = synth_index_attach(ix, zk, p, (size_t)st.st_size, "shared synthesis index", e);
    if (rc == 0)
        rc = synth_index_check(ix, zk->n_vars, zk->path, e);
    if (rc < 0) {
        if (ix->block)
            synth_index_free(ix);
        else
            munmap(p, (size_t)st.st_size);
    }
    return rc;
}

struct check_ctx {
    const struct synth_index *ix;
    uint32_t n_vars;
    atomic_ullong bad; /* first bad chunk + 1, or 0 */
};

static void check_chunks(void *arg, size_t b, size_t e)
{
    static const uint8_t words[4] = { 1, 1, 2, 9 };
    struct check_ctx *x = arg;
    const struct synth_chunk *ch = x->ix->chunks;
    const uint64_t total = x->ix->hdr->stream_words;
    for (size_t k = b; k < e; k++) {
        int ok = ch[k].row < ch[k + 1].row && ch[k].word < ch[k + 1].word &&
                 ch[k + 1].word <= total && ch[k + 1].row <= x->ix->domain_size;
        const uint32_t *p = x->ix->stream + (ok ? ch[k].word : 0);
        const uint32_t *end = x->ix->stream + (ok ? ch[k + 1].word : 0);
        for (uint32_t r = ch[k].row; ok && r < ch[k + 1].row; r++) {
            uint64_t wa, wb;
            if (p >= end) {
                ok = 0;
                break;
            }
            uint32_t h = *p++;
            if (h == SYNTH_ROW_ESCAPE) {
                if (end - p < 2) {
                    ok = 0;
                    break;
                }
                wa = p[0];
                wb = p[1];
                p += 2;
            } else {
                wa = h & 0xffff;
                wb = h >> 16;
            }
            if (wa + wb > (uint64_t)(end - p)) {
                ok = 0;
                break;
            }
            for (int m = 0; m < 2 && ok; m++) {
                const uint32_t *q = p + (m ? wb : wa);
                while (p < q) {
                    uint32_t tag = *p, cl = tag >> SYNTH_SIGNAL_BITS;
                    if ((tag & SYNTH_SIGNAL_MASK) >= x->n_vars || words[cl] > q - p) {
                        ok = 0;
                        break;
                    }
                    p += words[cl];
                }
            }
        }
        if (ok && p != end)
            ok = 0;
        if (!ok) {
            unsigned long long cur = atomic_load(&x->bad);
            while ((cur == 0 || k + 1 < cur) && !atomic_compare_exchange_weak(&x->bad, &cur, k + 1))
                ;
        }
    }
}

int synth_index_check(const struct synth_index *ix, uint32_t n_vars, const char *what,
                      struct sp_err *e)
{
    const struct synth_chunk *ch = ix->chunks;
    if (ch[0].row != 0 || ch[0].word != 0 || ch[ix->n_chunks].row != ix->domain_size ||
        ch[ix->n_chunks].word != ix->hdr->stream_words)
        return sp_fail(e, -SP_EFORMAT, "%s: synthesis index: chunk table does not cover the rows",
                       what);
    struct check_ctx x = { .ix = ix, .n_vars = n_vars };
    parallel_for(ix->n_chunks, 16, 0, check_chunks, &x);
    unsigned long long bad = atomic_load(&x.bad);
    if (bad)
        return sp_fail(e, -SP_EFORMAT, "%s: synthesis index: chunk %llu is malformed", what,
                       bad - 1);
    return 0;
}
