/*
 * synth_index.h — a key's coefficient section as one synthesis stream,
 * built once per key at load.
 *
 * Section 4 of a .zkey is a flat list of 44-byte {matrix, constraint,
 * signal, value} entries in no guaranteed order. Reading it through a row
 * permutation costs a cache miss per term on top of the witness load, and
 * multiplying every value costs a Montgomery product per term, though
 * circuits are dominated by coefficients ±1. The index therefore holds,
 * row by row, one stream of u32 words:
 *
 *   row:   a header word nA | nB << 16 (both < 0xffff), or 0xffffffff then
 *          nA and nB as two words; then nA terms of A, then nB terms of B
 *   term:  a tag word, signal | class << 30, then the class's payload:
 *          SYNTH_ONE      +1         no payload
 *          SYNTH_NEG_ONE  −1         no payload
 *          SYNTH_SMALL    ±s, 2 ≤ s < 2^24: one word, s | sign << 31
 *          SYNTH_GENERAL  any other: 8 words, v·R mod r (Montgomery
 *                         form, < r; the key stores v·R² mod r, converted
 *                         once here), so that the plain product with a
 *                         standard-form witness value is v·w·R and one
 *                         Montgomery reduction of a row's general products
 *                         leaves v·w in standard form (synth_tmpl.h)
 *
 * so a thread reads its rows' coefficients sequentially and most terms are
 * additions (synth_tmpl.h). Entries keep their section order within a row
 * and matrix. Rows are grouped into chunks of about SYNTH_CHUNK_WORDS words,
 * so threads split the work by terms, not by row count.
 *
 * The index is one position-independent block (a header, the chunk table,
 * the stream), so it can live in a sealed memfd built once and mapped by
 * every synthd (synth_index_share.h). Memory: one word per term, nine per
 * general coefficient, one or three per row, 16 bytes per chunk; building
 * it takes 16 bytes per row and one byte per entry of scratch besides.
 */
#ifndef SLOTPROVE_SYNTH_INDEX_H
#define SLOTPROVE_SYNTH_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "synth_class.h"
#include "zkey.h"

#define SYNTH_SIGNAL_BITS 30
#define SYNTH_SIGNAL_MASK ((1u << SYNTH_SIGNAL_BITS) - 1)
#define SYNTH_ROW_ESCAPE 0xffffffffu
#define SYNTH_CHUNK_WORDS (1u << 14)
#define SYNTH_INDEX_MAGIC 0x78646e4968747953ull /* "SythIndx" */
#define SYNTH_INDEX_VERSION 3 /* 3: general coefficients v·R (2: v) */

/* Rows [row, next chunk's row) start at stream word `word`; max_signal is
 * the largest signal they read (0 if none). */
struct synth_chunk {
    uint32_t row;
    uint32_t max_signal;
    uint64_t word;
};

/* The block's first bytes, as laid out in memory or in a memfd. */
struct synth_index_header {
    uint64_t magic, version;
    uint64_t bytes;        /* whole block */
    uint32_t domain_size, n_vars;
    uint64_t n_coefs;      /* entries indexed */
    uint64_t n_chunks;     /* the table has n_chunks + 1 entries (a sentinel) */
    uint64_t stream_words;
    uint64_t class_count[4]; /* terms of each enum synth_class */
};

struct synth_index {
    uint32_t domain_size;
    const struct synth_index_header *hdr;
    const struct synth_chunk *chunks; /* n_chunks + 1 */
    const uint32_t *stream;
    uint64_t n_chunks;
    void *block;          /* the mapping that holds it all */
    size_t block_bytes;
};

/* Validates every entry (zkey_check_coefs) and builds the index in private
 * anonymous memory. Errors: -SP_EFORMAT / -SP_ERANGE naming the key and
 * entry, -SP_EUNSUPPORTED if nVars ≥ 2^30, -ENOMEM. */
int synth_index_build(struct synth_index *ix, const struct zkey *zk, struct sp_err *e);

/* The same into memory the caller provides: alloc(ctx, bytes) is called
 * once, when the size is known, and returns a writable mapping of at least
 * `bytes` bytes that munmap() can release (anonymous, or a memfd's), or NULL
 * (-ENOMEM). ix then points into it. */
typedef void *(*synth_index_alloc_fn)(void *ctx, size_t bytes);
int synth_index_build_with(struct synth_index *ix, const struct zkey *zk,
                           synth_index_alloc_fn alloc, void *ctx, struct sp_err *e);

/* Points ix at an already built block (e.g. a memfd mapped read-only) after
 * checking its header against the key: magic, version, size, domain, nVars
 * and entry count. -SP_EFORMAT naming `what` otherwise. */
int synth_index_attach(struct synth_index *ix, const struct zkey *zk, void *block, size_t bytes,
                       const char *what, struct sp_err *e);

/* Unmaps the block. */
void synth_index_free(struct synth_index *ix);


#endif
