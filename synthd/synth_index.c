/* synth_index.c — see synth_index.h. */
#include "synth_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int synth_index_build(struct synth_index *ix, const struct zkey *zk, struct sp_err *e)
{
    int rc;
    memset(ix, 0, sizeof(*ix));
    if ((rc = zkey_check_coefs(zk, e)) < 0)
        return rc;
    ix->domain_size = zk->domain_size;
    uint64_t n = zk->domain_size, count[2] = { 0, 0 };
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        uint32_t m;
        memcpy(&m, &zk->coefs[i].matrix, 4);
        count[m]++;
    }
    for (int m = 0; m < 2; m++) {
        ix->row_start[m] = calloc(n + 1, sizeof(uint32_t));
        ix->perm[m] = malloc((count[m] ? count[m] : 1) * sizeof(uint32_t));
        if (!ix->row_start[m] || !ix->perm[m]) {
            synth_index_free(ix);
            return sp_fail(e, -ENOMEM, "%s: out of memory indexing %llu coefficients",
                           zk->path, (unsigned long long)zk->n_coefs);
        }
    }
    /* counting sort by row: counts, prefix sums, then placement */
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        uint32_t m, row;
        memcpy(&m, &zk->coefs[i].matrix, 4);
        memcpy(&row, &zk->coefs[i].constraint, 4);
        ix->row_start[m][row + 1]++;
    }
    for (int m = 0; m < 2; m++)
        for (uint64_t r = 0; r < n; r++)
            ix->row_start[m][r + 1] += ix->row_start[m][r];
    uint32_t *fill[2];
    for (int m = 0; m < 2; m++) {
        fill[m] = malloc(n * sizeof(uint32_t));
        if (!fill[m]) {
            free(fill[0]);
            synth_index_free(ix);
            return sp_fail(e, -ENOMEM, "%s: out of memory indexing coefficients", zk->path);
        }
        memcpy(fill[m], ix->row_start[m], n * sizeof(uint32_t));
    }
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        uint32_t m, row;
        memcpy(&m, &zk->coefs[i].matrix, 4);
        memcpy(&row, &zk->coefs[i].constraint, 4);
        ix->perm[m][fill[m][row]++] = (uint32_t)i;
    }
    free(fill[0]);
    free(fill[1]);
    return 0;
}

void synth_index_free(struct synth_index *ix)
{
    for (int m = 0; m < 2; m++) {
        free(ix->row_start[m]);
        free(ix->perm[m]);
        ix->row_start[m] = ix->perm[m] = NULL;
    }
}
