/*
 * keygen_porep.h - `slotprove keygen --format bellperson --shape porep
 * [--scale S] [--domain-log2 D]` (keygen_porep.c): a bellperson key with
 * the per-partition statistics of Filecoin's PoRep C2 circuit (32 GiB
 * sector, one of its 10 partitions), written as circuit.params,
 * circuit.vk, circuit.pce, circuit.wtns and public.json, every section
 * streamed to its file. INSECURE, FOR TESTING ONLY.
 *
 * The published figures (curio extern/cuzk/cuzk-project.md §14, issue 38):
 * 130,278,869 constraints (bellperson's 328 input rows included), 328
 * inputs (wire 0 and 327 public), 130,169,893 aux; non-zeros A 309.4 M,
 * B 130.3 M, C 282.7 M; a_aux density 99.7 %, b_aux 33,112,281 columns;
 * domain 2^27.
 *
 * Scale: f = S · 2^(D − 27). The domain is 2^D (D = 27 by default) and the
 * constraint count 328 + (130,278,869 − 328) · 2^(D − 27) whatever S (the
 * 328 inputs are kept at every scale), so the NTTs and the
 * h section keep their full size; aux wires, non-zeros, density columns
 * and the rows that hold them are the published figures × f (rounded);
 * the remaining rows (1 − S of them) are empty (0 · 0 = 0). S = 1, D = 27
 * is PoRep's partition.
 */
#ifndef SLOTPROVE_KEYGEN_POREP_H
#define SLOTPROVE_KEYGEN_POREP_H

#include <stdint.h>

#include "err.h"
#include "keygen_types.h"

/* PoRep's published per-partition figures. */
#define POREP_CONSTRAINTS 130278869ull
#define POREP_INPUTS 328u
#define POREP_AUX 130169893ull
#define POREP_NNZ_A 309400000ull
#define POREP_NNZ_B 130300000ull
#define POREP_NNZ_C 282700000ull
#define POREP_A_AUX_PERMILLE 997u
#define POREP_B_AUX_COLS 33112281ull
#define POREP_LOG_DOMAIN 27u
/* The estimated share of aux values that are bits (0 or 1), in parts per
 * 1000: SHA-256 gadgets and bit decompositions against Poseidon and packing
 * (common/README-bellperson.md, "PoRep's witness"). */
#define POREP_BIT_PERMILLE 990u

#define POREP_MIN_LOG_DOMAIN 14u

/* The shape at scale S (0 < S <= 1) and domain 2^D (14 <= D <= 27). */
struct porep_plan {
    double scale;
    unsigned log_domain;
    uint64_t domain;        /* 2^D */
    uint32_t n_in;          /* inputs, wire 0 included (328) */
    uint64_t n_aux;
    uint64_t rows;          /* PCE num_constraints: circuit rows + n_in */
    uint64_t rows_circuit;  /* rows − n_in */
    uint64_t rows_used;     /* circuit rows with entries; the rest are empty */
    uint64_t nnz[3];        /* A (input rows included), B, C */
    uint64_t a_aux_cols;    /* aux wires in A */
    uint64_t b_aux_cols;    /* aux wires in B */
    uint64_t n_a, n_b;      /* .params a and b_g1/b_g2 points: inputs in the
                             * matrix (all inputs in a, wire 0 in b) + aux */
    uint64_t params_bytes, vk_bytes, pce_bytes, wtns_bytes, public_bytes;
};

/* Fills p for S and D. -SP_ERANGE with the reason in e when S is not in
 * (0, 1], D not in [14, 27], or the scaled shape too small (fewer than 256
 * aux wires). */
int porep_plan(struct porep_plan *p, double scale, unsigned log_domain, struct sp_err *e);

/* The command's tail (keygen.c): checks DIR and its free space (statvfs:
 * refused with the bytes needed), prints the INSECURE notice and the
 * shape, writes the five files. Exit status 0 / 1. */
int keygen_porep_cmd(struct keygen_job *j, const struct porep_plan *p, const char *dir);

#endif
