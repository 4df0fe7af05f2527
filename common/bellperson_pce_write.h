/*
 * bellperson_pce_write.h - writes a cuzk PCE file (layout in
 * bellperson_pce.h) from CSR matrices in memory, with the three density
 * bitmaps computed from the columns of A and B as cuzk-pce's density.rs
 * does. For keygen and the tests.
 */
#ifndef SLOTPROVE_BELLPERSON_PCE_WRITE_H
#define SLOTPROVE_BELLPERSON_PCE_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include "bls12381.h"
#include "err.h"

struct bp_pce_matrix {
    const uint32_t *row_ptrs;   /* num_constraints + 1 */
    const uint32_t *cols;       /* nnz wire indices (inputs first, then aux) */
    const bls12381_fr_t *vals;  /* nnz values, Montgomery form */
    uint64_t nnz;
};

/* Writes header, A, B, C (m[0..2]) and the bitmaps to f. 0, or -errno /
 * -ENOMEM with a message naming path. */
int bp_pce_write(FILE *f, const char *path, uint32_t num_inputs, uint32_t num_aux,
                 uint32_t num_constraints, const struct bp_pce_matrix m[3], struct sp_err *e);

#endif
