/* synth_index.c — see synth_index.h. */
#include "synth_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "parallel.h"
#include "synth_class.h"

#define ROUND8(x) (((x) + 7) & ~(size_t)7)

/* Words a term of class k takes in the stream (tag + payload). */
static const uint8_t term_words[4] = { 1, 1, 2, 9 };

static uint32_t row_header_words(uint64_t wa, uint64_t wb)
{
    return (wa < 0xffff && wb < 0xffff) ? 1 : 3;
}

struct classify_ctx {
    const struct zkey *zk;
    uint8_t *cls;
};

static void classify_entries(void *arg, size_t b, size_t e)
{
    struct classify_ctx *x = arg;
    if (x->zk->curve == CURVE_BN254)
        bn254_synth_classify(x->zk->coefs + b, e - b, x->cls + b);
    else
        bls12381_synth_classify(x->zk->coefs + b, e - b, x->cls + b);
}

struct scan_ctx {
    struct synth_index *ix;
    uint64_t (*counts)[4]; /* per chunk */
};

/* Per chunk: the largest signal read and the terms of each class. */
static void scan_chunks(void *arg, size_t b, size_t e)
{
    struct scan_ctx *x = arg;
    struct synth_chunk *ch = (struct synth_chunk *)x->ix->chunks;
    for (size_t k = b; k < e; k++) {
        const uint32_t *p = x->ix->stream + ch[k].word, *end = x->ix->stream + ch[k + 1].word;
        uint32_t maxsig = 0;
        uint64_t n[4] = { 0, 0, 0, 0 };
        while (p < end) {
            uint32_t h = *p++, wa, wb;
            if (h == SYNTH_ROW_ESCAPE) {
                wa = p[0];
                wb = p[1];
                p += 2;
            } else {
                wa = h & 0xffff;
                wb = h >> 16;
            }
            const uint32_t *q = p + wa + wb;
            while (p < q) {
                uint32_t tag = *p, sig = tag & SYNTH_SIGNAL_MASK, cl = tag >> SYNTH_SIGNAL_BITS;
                maxsig = sig > maxsig ? sig : maxsig;
                n[cl]++;
                p += term_words[cl];
            }
        }
        ch[k].max_signal = maxsig;
        memcpy(x->counts[k], n, sizeof(n));
    }
}

static void *anon_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int synth_index_build(struct synth_index *ix, const struct zkey *zk, struct sp_err *e)
{
    return synth_index_build_with(ix, zk, anon_alloc, NULL, e);
}

int synth_index_build_with(struct synth_index *ix, const struct zkey *zk,
                           synth_index_alloc_fn alloc, void *actx, struct sp_err *e)
{
    int rc;
    memset(ix, 0, sizeof(*ix));
    if ((rc = zkey_check_coefs(zk, e)) < 0)
        return rc;
    if (zk->n_vars > SYNTH_SIGNAL_MASK)
        return sp_fail(e, -SP_EUNSUPPORTED, "%s: nVars %u: synthesis takes at most 2^30 - 1 wires",
                       zk->path, zk->n_vars);
    const uint64_t n = zk->domain_size, nc = zk->n_coefs;
    uint8_t *cls = malloc(nc ? nc : 1);
    uint64_t *off = calloc(2 * n, sizeof(uint64_t)); /* [row][matrix]: words, then cursors */
    if (!cls || !off) {
        free(cls);
        free(off);
        return sp_fail(e, -ENOMEM, "%s: out of memory indexing %llu coefficients", zk->path,
                       (unsigned long long)nc);
    }
    struct classify_ctx cx = { zk, cls };
    parallel_for(nc, 1 << 16, 0, classify_entries, &cx);

    for (uint64_t i = 0; i < nc; i++) {
        uint32_t m, row;
        memcpy(&m, &zk->coefs[i].matrix, 4);
        memcpy(&row, &zk->coefs[i].constraint, 4);
        off[2 * row + m] += term_words[cls[i]];
    }
    /* the stream's length, and a bound on the chunks: every chunk but the
     * last weighs at least SYNTH_CHUNK_WORDS (a row weighs its words + 4:
     * its outputs cost about as much as four terms) */
    uint64_t words = 0, weight = 0;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t w = row_header_words(off[2 * r], off[2 * r + 1]) + off[2 * r] + off[2 * r + 1];
        words += w;
        weight += w + 4;
    }
    uint64_t max_chunks = weight / SYNTH_CHUNK_WORDS + 2;
    size_t chunks_at = ROUND8(sizeof(struct synth_index_header));
    size_t stream_at = ROUND8(chunks_at + (max_chunks + 1) * sizeof(struct synth_chunk));
    size_t bytes = stream_at + words * 4;
    uint8_t *block = alloc(actx, bytes);
    if (!block) {
        free(cls);
        free(off);
        return sp_fail(e, -ENOMEM, "%s: out of memory for a %llu-byte synthesis index", zk->path,
                       (unsigned long long)bytes);
    }
    struct synth_index_header *h = (struct synth_index_header *)block;
    struct synth_chunk *ch = (struct synth_chunk *)(block + chunks_at);
    uint32_t *stream = (uint32_t *)(block + stream_at);

    /* row headers, cursors, chunk boundaries */
    uint64_t pos = 0, nch = 0, acc = SYNTH_CHUNK_WORDS;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t wa = off[2 * r], wb = off[2 * r + 1];
        if (acc >= SYNTH_CHUNK_WORDS) {
            ch[nch++] = (struct synth_chunk){ .row = (uint32_t)r, .word = pos };
            acc = 0;
        }
        uint32_t hw = row_header_words(wa, wb);
        if (hw == 1) {
            stream[pos] = (uint32_t)wa | (uint32_t)wb << 16;
        } else {
            stream[pos] = SYNTH_ROW_ESCAPE;
            stream[pos + 1] = (uint32_t)wa;
            stream[pos + 2] = (uint32_t)wb;
        }
        off[2 * r] = pos + hw;
        off[2 * r + 1] = pos + hw + wa;
        pos += hw + wa + wb;
        acc += hw + wa + wb + 4;
    }
    ch[nch] = (struct synth_chunk){ .row = (uint32_t)n, .word = pos };

    /* the terms, in section order within each row and matrix */
    for (uint64_t i = 0; i < nc; i++) {
        const struct zkey_coef *cf = &zk->coefs[i];
        uint32_t m, row, sig, small = 0;
        memcpy(&m, &cf->matrix, 4);
        memcpy(&row, &cf->constraint, 4);
        memcpy(&sig, &cf->signal, 4);
        uint64_t *cur = &off[2 * row + m];
        uint32_t *t = stream + *cur;
        t[0] = sig | (uint32_t)cls[i] << SYNTH_SIGNAL_BITS;
        if (cls[i] == SYNTH_SMALL) {
            synth_coef_class(zk->curve, cf->value, &small);
            t[1] = small;
        } else if (cls[i] == SYNTH_GENERAL) {
            synth_coef_montgomery(zk->curve, cf->value, (uint8_t *)(t + 1));
        }
        *cur += term_words[cls[i]];
    }
    free(cls);
    free(off);

    *h = (struct synth_index_header){
        .magic = SYNTH_INDEX_MAGIC, .version = SYNTH_INDEX_VERSION, .bytes = bytes,
        .domain_size = zk->domain_size, .n_vars = zk->n_vars, .n_coefs = nc,
        .n_chunks = nch, .stream_words = words,
    };
    ix->domain_size = zk->domain_size;
    ix->hdr = h;
    ix->chunks = ch;
    ix->stream = stream;
    ix->n_chunks = nch;
    ix->block = block;
    ix->block_bytes = bytes;

    uint64_t(*counts)[4] = calloc(nch ? nch : 1, sizeof(*counts));
    if (!counts) {
        synth_index_free(ix);
        return sp_fail(e, -ENOMEM, "%s: out of memory indexing coefficients", zk->path);
    }
    struct scan_ctx sx = { ix, counts };
    parallel_for(nch, 16, 0, scan_chunks, &sx);
    for (uint64_t k = 0; k < nch; k++)
        for (int c = 0; c < 4; c++)
            h->class_count[c] += counts[k][c];
    free(counts);
    return 0;
}

int synth_index_attach(struct synth_index *ix, const struct zkey *zk, void *block, size_t bytes,
                       const char *what, struct sp_err *e)
{
    const struct synth_index_header *h = block;
    memset(ix, 0, sizeof(*ix));
    if (bytes < sizeof(*h) || h->magic != SYNTH_INDEX_MAGIC || h->version != SYNTH_INDEX_VERSION ||
        h->bytes != bytes || h->domain_size != zk->domain_size || h->n_vars != zk->n_vars ||
        h->n_coefs != zk->n_coefs)
        return sp_fail(e, -SP_EFORMAT, "%s: not the synthesis index of %s (%zu bytes)", what,
                       zk->path, bytes);
    size_t chunks_at = ROUND8(sizeof(*h));
    size_t stream_at = bytes - h->stream_words * 4;
    if (h->stream_words > bytes / 4 || h->n_chunks > bytes / sizeof(struct synth_chunk) ||
        stream_at < chunks_at + (h->n_chunks + 1) * sizeof(struct synth_chunk))
        return sp_fail(e, -SP_EFORMAT, "%s: synthesis index of %s: sizes do not add up", what,
                       zk->path);
    ix->domain_size = h->domain_size;
    ix->hdr = h;
    ix->chunks = (const struct synth_chunk *)((const uint8_t *)block + chunks_at);
    ix->stream = (const uint32_t *)((const uint8_t *)block + stream_at);
    ix->n_chunks = h->n_chunks;
    ix->block = block;
    ix->block_bytes = bytes;
    return 0;
}


void synth_index_free(struct synth_index *ix)
{
    if (ix->block)
        munmap(ix->block, ix->block_bytes);
    memset(ix, 0, sizeof(*ix));
}
