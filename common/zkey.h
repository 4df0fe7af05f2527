/*
 * zkey.h — snarkjs Groth16 proving key (.zkey), read through a read-only
 * shared mapping so every process that loads the same key shares the page
 * cache.
 *
 * Format (snarkjs src/zkey_utils.js writeZKey/readZKey, zkey_new.js):
 *   1 header: u32 protocol (1 Groth16, 2 PLONK, 10 FFLONK)
 *   2 Groth16 header: u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic,
 *     u32 domainSize, alpha1 G1, beta1 G1, beta2 G2, gamma2 G2, delta1 G1,
 *     delta2 G2
 *   3 IC: (nPublic+1) G1      4 coefficients: u32 nCoefs, nCoefs × {u32 matrix,
 *   5 A: nVars G1               u32 constraint, u32 signal, n8r-byte value}
 *   6 B1: nVars G1            7 B2: nVars G2
 *   8 C: (nVars−nPublic−1) G1 9 H: domainSize G1     10 contributions (ignored)
 * Points are affine with Montgomery-form coordinates; all-zero = infinity.
 */
#ifndef SLOTPROVE_ZKEY_H
#define SLOTPROVE_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "err.h"

#define ZKEY_MAX_LOG_DOMAIN 28 /* 2^28 is BN254's 2-adicity; the u32 header allows no more */

enum zkey_section {
    ZKEY_HEADER = 1, ZKEY_GROTH16 = 2, ZKEY_IC = 3, ZKEY_COEFS = 4, ZKEY_A = 5,
    ZKEY_B1 = 6, ZKEY_B2 = 7, ZKEY_C = 8, ZKEY_H = 9, ZKEY_CONTRIBUTIONS = 10,
};

/* One entry of section 4, as on disk (packed; 44 bytes with n8r = 32). */
struct zkey_coef {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* row, < domainSize */
    uint32_t signal;     /* column, < nVars */
    uint8_t value[32];   /* v·R² mod r, standard form LE (snarkjs writeFr2) */
} __attribute__((packed));

struct zkey {
    const char *path;
    const struct curve_info *ci;
    enum curve_id curve;
    uint32_t n_vars;      /* witness length, wire 0 = 1 */
    uint32_t n_public;    /* public signals, excluding wire 0 */
    uint32_t domain_size; /* n, a power of two */
    unsigned log_domain;  /* log2 n */
    uint64_t n_coefs;     /* entries in section 4 */
    int has_contributions;

    uint8_t *map;         /* whole file, PROT_READ, MAP_SHARED */
    size_t map_len;

    /* Pointers into map (raw file bytes, unaligned). */
    const uint8_t *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const uint8_t *ic, *a, *b1, *b2, *c, *h;
    const struct zkey_coef *coefs;
};

/*
 * Maps the file behind fd and validates its structure: magic and version,
 * Groth16 protocol, a known curve (q and r), domainSize a power of two in
 * [2, 2^28], nPublic < nVars, and every section's size against the header.
 * It does not read the points or coefficients (see zkey_check_coefs).
 * Errors (message names path and reason): -SP_EFORMAT, -SP_EUNSUPPORTED,
 * -SP_ERANGE, -errno.
 */
int zkey_open(struct zkey *zk, int fd, const char *path, struct sp_err *e);

/* Checks every coefficient entry: matrix 0 or 1, constraint < domainSize,
 * signal < nVars, value < r. O(nCoefs); -SP_EFORMAT naming the entry. */
int zkey_check_coefs(const struct zkey *zk, struct sp_err *e);

void zkey_close(struct zkey *zk);


#endif
