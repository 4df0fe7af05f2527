/*
 * bellperson_pce.h - cuzk's pre-compiled constraint file (PCE): a bellperson
 * circuit's R1CS recorded once as CSR matrices, so a partition needs only
 * its witness (filecoin-project/curio extern/cuzk/cuzk-pce, src/disk.rs
 * "version 2 - raw binary", src/csr.rs, src/density.rs).
 *
 * Layout (all integers little-endian):
 *   header, 32 bytes: magic "PCE\x02", u32 version = 2, u32 num_inputs,
 *     u32 num_aux, u32 num_constraints, u64 total_nnz (A + B + C),
 *     u32 reserved
 *   three CSR matrices A, B, C, each:
 *     u64 count = num_constraints + 1, count × u32 row_ptrs
 *       (row i's entries are [row_ptrs[i], row_ptrs[i+1]); row_ptrs[0] = 0)
 *     u64 nnz, nnz × u32 cols (wire index: < num_inputs an input, else aux
 *       col − num_inputs)
 *     u64 nnz, nnz × 32-byte values: blstrs Scalar as stored in memory,
 *       i.e. Montgomery form (v·2^256 mod r), four u64 limbs LE
 *   three density bitmaps a_aux, b_input, b_aux, each:
 *     u64 n_words, n_words × u64 words (bit i of the bitmap is bit i%64 of
 *       word i/64, bitvec Lsb0), then u64 bit_len, u64 popcount
 *     a_aux: aux wires with a non-zero A column (bit_len num_aux);
 *     b_input: inputs in B (bit_len num_inputs); b_aux: aux wires in B.
 * num_constraints counts bellperson's input constraints too: cuzk records
 * them after the circuit's own rows (recording_cs.rs
 * extract_precompiled_circuit), so the last num_inputs rows are A =
 * [1·input_i], B and C empty, as bellperson's prover appends them.
 * Nothing may follow the last bitmap.
 */
#ifndef SLOTPROVE_BELLPERSON_PCE_H
#define SLOTPROVE_BELLPERSON_PCE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bls12381.h"
#include "err.h"

#define BP_PCE_MAGIC "PCE\x02"
#define BP_PCE_VERSION 2
#define BP_PCE_HEADER_BYTES 32

struct bp_csr {
    const uint8_t *row_ptrs; /* num_constraints + 1 u32 (any alignment) */
    const uint8_t *cols;     /* nnz u32 */
    const uint8_t *vals;     /* nnz × 32 bytes */
    uint64_t nnz;
};

struct bp_density {
    const uint8_t *words; /* n_words u64 */
    uint64_t n_words, bit_len, popcount;
};

enum { BP_PCE_A, BP_PCE_B, BP_PCE_C };

struct bp_pce {
    const char *path;
    const uint8_t *map;
    size_t len;
    uint32_t num_inputs, num_aux, num_constraints;
    uint64_t total_nnz;
    struct bp_csr m[3];                    /* A, B, C */
    struct bp_density a_aux, b_input, b_aux;
};

/* Maps the file behind fd read-only and validates it whole, on nthreads
 * threads (0 = all): magic and version; each count against the header and
 * the file size (truncated, overrun, trailing bytes); row_ptrs from 0,
 * non-decreasing, ending at nnz; total_nnz; every column < num_inputs +
 * num_aux; every value < r; the last num_inputs rows being the input
 * constraints; each bitmap's bit_len, word count, popcount and zero
 * padding; and each bitmap equal to the one its matrix implies (the
 * columns of A and B). Errors: -SP_EFORMAT / -SP_ERANGE with "PATH: matrix
 * B: cols[17] = 90 >= 64 wires" and the like; -errno. */
int bp_pce_open(struct bp_pce *p, int fd, const char *path, unsigned nthreads,
                struct sp_err *e);

void bp_pce_close(struct bp_pce *p);

static inline uint32_t bp_pce_u32(const uint8_t *base, uint64_t i)
{
    uint32_t v;
    memcpy(&v, base + 4 * i, 4);
    return v;
}

/* 1 if bit i of the bitmap is set. */
static inline int bp_density_bit(const struct bp_density *d, uint64_t i)
{
    uint64_t w;
    memcpy(&w, d->words + 8 * (i / 64), 8);
    return (int)((w >> (i % 64)) & 1);
}

/* Smallest power of two >= num_constraints (input rows included:
 * bellperson's EvaluationDomain size), and its log2 in *log_n. */
size_t bp_pce_domain_size(const struct bp_pce *p, unsigned *log_n);

#endif
