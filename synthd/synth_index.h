/*
 * synth_index.h — the coefficient section of a .zkey, grouped by constraint.
 *
 * Section 4 is a flat list of {matrix, constraint, signal, value} in no
 * guaranteed order. To compute a = A·w and b = B·w with many threads and no
 * locks, each matrix gets a CSR-style index built once per key: row_start
 * (domain_size + 1 offsets) and perm (entry numbers in row order). A thread
 * then owns a range of rows outright. Memory: 4 bytes per entry plus 8 bytes
 * per row; the entries themselves stay in the read-only key mapping.
 */
#ifndef SLOTPROVE_SYNTH_INDEX_H
#define SLOTPROVE_SYNTH_INDEX_H

#include <stdint.h>

#include "err.h"
#include "zkey.h"

struct synth_index {
    uint32_t domain_size;
    uint32_t *row_start[2]; /* [matrix][row] .. [row+1] into perm[matrix] */
    uint32_t *perm[2];      /* entry numbers of section 4 */
};

/* Validates every entry (zkey_check_coefs) and builds the index.
 * Errors: -SP_EFORMAT / -SP_ERANGE naming the key and entry, -ENOMEM. */
int synth_index_build(struct synth_index *ix, const struct zkey *zk, struct sp_err *e);
void synth_index_free(struct synth_index *ix);

#endif
