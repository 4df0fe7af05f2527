/* bellperson_pce_write.c - see bellperson_pce_write.h. */
#include "bellperson_pce_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_pce.h"

static int wr(FILE *f, const void *p, size_t n)
{
    return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int wr64(FILE *f, uint64_t v)
{
    return wr(f, &v, 8);
}

static int wr_bitmap(FILE *f, const uint64_t *words, uint64_t bit_len)
{
    uint64_t nw = (bit_len + 63) / 64, pop = 0;
    for (uint64_t i = 0; i < nw; i++)
        pop += (uint64_t)__builtin_popcountll(words[i]);
    return wr64(f, nw) || wr(f, words, nw * 8) || wr64(f, bit_len) || wr64(f, pop);
}

int bp_pce_write(FILE *f, const char *path, uint32_t num_inputs, uint32_t num_aux,
                 uint32_t num_constraints, const struct bp_pce_matrix m[3], struct sp_err *e)
{
    uint8_t h[BP_PCE_HEADER_BYTES] = { 0 };
    uint32_t v[4] = { BP_PCE_VERSION, num_inputs, num_aux, num_constraints };
    uint64_t total = m[0].nnz + m[1].nnz + m[2].nnz;
    memcpy(h, BP_PCE_MAGIC, 4);
    memcpy(h + 4, v, 16);
    memcpy(h + 20, &total, 8);
    uint64_t aw = ((uint64_t)num_aux + 63) / 64 + 1, iw = ((uint64_t)num_inputs + 63) / 64 + 1;
    uint64_t *a_aux = calloc(aw, 8), *b_in = calloc(iw, 8), *b_aux = calloc(aw, 8);
    int rc = 0;
    if (!a_aux || !b_in || !b_aux) {
        rc = sp_fail(e, -ENOMEM, "%s: no memory for the density bitmaps", path);
        goto out;
    }
    for (uint64_t k = 0; k < m[0].nnz; k++)
        if (m[0].cols[k] >= num_inputs) {
            uint64_t j = m[0].cols[k] - num_inputs;
            a_aux[j / 64] |= (uint64_t)1 << (j % 64);
        }
    for (uint64_t k = 0; k < m[1].nnz; k++) {
        uint64_t c = m[1].cols[k];
        if (c >= num_inputs)
            b_aux[(c - num_inputs) / 64] |= (uint64_t)1 << ((c - num_inputs) % 64);
        else
            b_in[c / 64] |= (uint64_t)1 << (c % 64);
    }
    int bad = wr(f, h, sizeof h);
    for (int i = 0; i < 3 && !bad; i++)
        bad = wr64(f, (uint64_t)num_constraints + 1) ||
              wr(f, m[i].row_ptrs, 4 * ((size_t)num_constraints + 1)) || wr64(f, m[i].nnz) ||
              wr(f, m[i].cols, 4 * m[i].nnz) || wr64(f, m[i].nnz) ||
              wr(f, m[i].vals, 32 * m[i].nnz);
    if (!bad)
        bad = wr_bitmap(f, a_aux, num_aux) || wr_bitmap(f, b_in, num_inputs) ||
              wr_bitmap(f, b_aux, num_aux);
    if (bad || fflush(f) != 0)
        rc = sp_fail(e, -EIO, "%s: write failed", path);
out:
    free(a_aux);
    free(b_in);
    free(b_aux);
    return rc;
}
