/*
 * fixed_base.h — many scalar multiples k_i·P of one fixed point P (the
 * generator, in a trusted setup), with precomputed window tables
 * (fixed_base_tmpl.h instances for G1 and G2 of each curve).
 *
 *   X_fb_window(count)   window bits that minimise the work for `count`
 *                        multiplications (table build + lookups), 1..16.
 *   X_fb_init(t, P, window, nthreads)
 *                        builds the table: for each of nwin = ⌈256/window⌉
 *                        windows j, the multiples d·2^(window·j)·P for
 *                        d = 1 .. 2^window − 1, affine. Memory:
 *                        nwin·(2^window − 1) affine points (G1 BN254 at
 *                        window 16: 64 MiB). 0, -EINVAL (window out of
 *                        1..16), -ENOMEM.
 *   X_fb_free(t)
 *   X_fb_mul(ret, t, k)  ret = k·P, k a 256-bit standard-form scalar (4 LE
 *                        limbs, any value): one mixed addition per non-zero
 *                        window digit, no doublings.
 *   X_fb_mul_batch(out, t, k, n, nthreads)
 *                        out[i] = k[i]·P, affine (infinity as (0, 0), the
 *                        zkey encoding) for i < n; k holds n × 4 limbs.
 *                        Multi-threaded in chunks, each converted to affine
 *                        with one inversion. 0 or -ENOMEM.
 * X is bn254_g1, bn254_g2, bls12381_g1 or bls12381_g2.
 */
#ifndef SLOTPROVE_FIXED_BASE_H
#define SLOTPROVE_FIXED_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "bls12381.h"
#include "bn254.h"

#define FIXED_BASE_DECLARE(G)                                                  \
    struct G##_fb_table {                                                      \
        unsigned window;    /* bits per window */                              \
        unsigned nwin;      /* ⌈256 / window⌉ */                               \
        size_t row;         /* 2^window − 1 points per window */               \
        G##_affine_t *pts;  /* [nwin][row]: pts[j·row + d−1] = d·2^(window·j)·P */ \
    };                                                                         \
    unsigned G##_fb_window(size_t count);                                      \
    int G##_fb_init(struct G##_fb_table *t, const G##_affine_t *base,          \
                    unsigned window, unsigned nthreads);                       \
    void G##_fb_free(struct G##_fb_table *t);                                  \
    void G##_fb_mul(G##_jac_t *ret, const struct G##_fb_table *t,              \
                    const uint64_t k[4]);                                      \
    int G##_fb_mul_batch(G##_affine_t *out, const struct G##_fb_table *t,      \
                         const uint64_t (*k)[4], size_t n, unsigned nthreads);

FIXED_BASE_DECLARE(bn254_g1)
FIXED_BASE_DECLARE(bn254_g2)
FIXED_BASE_DECLARE(bls12381_g1)
FIXED_BASE_DECLARE(bls12381_g2)

#endif
