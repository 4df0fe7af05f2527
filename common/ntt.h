/*
 * ntt.h — NTT over each curve's scalar field Fr (ntt_tmpl.h instances).
 *
 * All vectors hold domain_size Fr elements in Montgomery form, natural order.
 *   X_domain_init(d, log_n, threads)  precomputes ω_n^i for i < n/2, the coset
 *                                     shift and 1/n; -EINVAL for log_n out of
 *                                     [1, 2-adicity], -ENOMEM.
 *   X_forward(v, d, threads)   v ← (Σ_j v_j ω^{ij})_i
 *   X_inverse(v, d, threads)   v ← (1/n Σ_j v_j ω^{−ij})_i
 *   X_coset_lde(v, d, threads) v ← evaluations on shift·⟨ω⟩ of the polynomial
 *                              whose evaluations on ⟨ω⟩ are v (iNTT, ×shift^i,
 *                              NTT), as snarkjs groth16_prove.js does for a, b, c.
 */
#ifndef SLOTPROVE_NTT_H
#define SLOTPROVE_NTT_H

#include <stddef.h>

#include "bls12381.h"
#include "bn254.h"

#define NTT_DECLARE(P, FR)                                                     \
    struct P##_domain {                                                        \
        unsigned log_n;                                                        \
        size_t n;                                                              \
        FR##_t *roots; /* ω^i, i < n/2 */                                      \
        FR##_t shift;  /* coset shift */                                       \
        FR##_t n_inv;                                                          \
    };                                                                         \
    void P##_root_of_unity(FR##_t *ret, unsigned log_n);                       \
    void P##_coset_shift(FR##_t *ret, unsigned log_n);                         \
    int P##_domain_init(struct P##_domain *d, unsigned log_n, unsigned nthreads); \
    void P##_domain_free(struct P##_domain *d);                                \
    void P##_forward(FR##_t *v, const struct P##_domain *d, unsigned nthreads); \
    void P##_inverse(FR##_t *v, const struct P##_domain *d, unsigned nthreads); \
    void P##_coset_lde(FR##_t *v, const struct P##_domain *d, unsigned nthreads);

NTT_DECLARE(bn254_ntt, bn254_fr)
NTT_DECLARE(bls12381_ntt, bls12381_fr)

#endif
