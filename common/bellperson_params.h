/*
 * bellperson_params.h - bellperson's BLS12-381 Groth16 parameter files:
 * `.params` (the proving key, Filecoin's ~45 GiB v28-stacked-proof-of-
 * replication-*.params) and `.vk` (the verifying key alone).
 *
 * Format (bellperson src/groth16/params.rs `Parameters::write`,
 * verifying_key.rs `VerifyingKey::write`; read mapped by mapped_params.rs):
 * no header, no magic; counts are u32 BIG-endian; points are uncompressed
 * zcash encodings (bls12381_zcash.h: G1 96 bytes, G2 192 bytes).
 *   vk:   alpha_g1 G1, beta_g1 G1, beta_g2 G2, gamma_g2 G2, delta_g1 G1,
 *         delta_g2 G2, u32 n_ic, n_ic × G1 (ic)
 *   then, in .params only, five sections of u32 count + points:
 *   h     G1  m − 1 points, τ^i·Z(τ)/δ for i < m − 1 (m = the domain size,
 *             a power of two): h in the MONOMIAL basis
 *   l     G1  one per aux wire: (β·A_j(τ) + α·B_j(τ) + C_j(τ))/δ
 *   a     G1  A_j(τ) for every input wire, then for the aux wires whose A
 *             column is non-zero (the a_aux density), in wire order
 *   b_g1  G1  B_j(τ) for the inputs, then the aux wires, whose B column is
 *             non-zero (b_input and b_aux densities)
 *   b_g2  G2  the same wires as b_g1
 * A .vk file is the vk part alone; nothing may follow either.
 * Wires: inputs are [one, public inputs...] (n_ic of them), aux the rest.
 *
 * bellperson refuses points at infinity in every section, points off the
 * curve and (checked mode) outside the subgroup; so does this reader.
 */
#ifndef SLOTPROVE_BELLPERSON_PARAMS_H
#define SLOTPROVE_BELLPERSON_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "bls12381.h"
#include "err.h"

enum bp_section {
    BP_VK_ALPHA_G1,
    BP_VK_BETA_G1,
    BP_VK_BETA_G2,
    BP_VK_GAMMA_G2,
    BP_VK_DELTA_G1,
    BP_VK_DELTA_G2,
    BP_IC,
    BP_H,
    BP_L,
    BP_A,
    BP_B_G1,
    BP_B_G2,
    BP_NSECTIONS
};

/* Name of a section as in bellperson's structs: "vk.alpha_g1", "ic", "h",
 * "l", "a", "b_g1", "b_g2". */
const char *bp_section_name(enum bp_section s);

/* 1 for the sections of G2 points (beta_g2, gamma_g2, delta_g2, b_g2). */
int bp_section_is_g2(enum bp_section s);

struct bp_params {
    const char *path;   /* for messages (not owned) */
    const uint8_t *map; /* the whole file, read-only, shared */
    size_t len;         /* bytes */
    int is_vk;          /* 1: a .vk file (vk part only) */
    /* per section: where its first point is and how many there are (0 for
     * the .params-only sections of a .vk) */
    uint64_t off[BP_NSECTIONS];
    uint32_t count[BP_NSECTIONS];
};

/* Maps the file behind fd (read-only, MAP_SHARED) and walks its layout:
 * every count is read and every section bounded by the file size, nothing
 * more (no point is decoded: see bp_params_check / _load). vk = 1 for a .vk
 * file. Errors (-SP_EFORMAT, message naming path, section and offset):
 * truncated inside a section or a count, a count whose points overrun the
 * file, trailing bytes after the last section, n_ic = 0, h not 2^k − 1
 * points, b_g1 and b_g2 of different lengths; -errno for I/O. */
int bp_params_open(struct bp_params *p, int fd, const char *path, int vk, struct sp_err *e);

void bp_params_close(struct bp_params *p);

/* Decodes points [first, first + n) of section s into out (Montgomery
 * affine; G1 for G1 sections, G2 otherwise), with the flag, canonical,
 * curve and (subgroup = 1) subgroup checks and infinity refused, on
 * nthreads threads (0 = all). Returns 0, or -SP_ERANGE "PATH: section NAME
 * point I: REASON" for the first bad point in index order. */
int bp_params_decode(const struct bp_params *p, enum bp_section s, uint64_t first, uint64_t n,
                     void *out, int subgroup, unsigned nthreads, struct sp_err *e);

/* Checks every point of every section, in file order, as bp_params_decode
 * does (flags, < q, on the curve, not infinity, and in the subgroup when
 * subgroup = 1), without keeping them. Cost (measured here, one core):
 * 2.6 us per G1 and 8.8 us per G2 point without the subgroup test, 93 us
 * and 121 us with it. Filecoin's 32 GiB-sector file (~430 M G1 and ~40 M
 * G2 points, ~47 GiB) therefore takes ~12 core-hours with subgroups (about
 * 12 minutes on 64 cores), ~20 core-minutes without: done once per file,
 * then cached by hash.
 * *points (optional) gets the number checked. */
int bp_params_check(const struct bp_params *p, int subgroup, unsigned nthreads,
                    uint64_t *points, struct sp_err *e);

#endif
