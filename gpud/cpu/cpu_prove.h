/*
 * cpu_prove.h — one Groth16 proof on the CPU (prove_tmpl.h instances).
 *
 *   X_cpu_prove(zk, a, b, c, witness, dom, nthreads, out, t, e)
 * a, b: domain_size Fr each in the slot's form (standard form:
 * shm/payload.h), c: a buffer of domain_size Fr whose contents are not
 * read (c = a∘b is formed there, prove_tmpl.h P_(form_c)); private
 * buffers that are overwritten (a ends up holding the H scalars). witness: n_vars × 32 bytes,
 * standard form. dom: the NTT domain of size zk->domain_size. Fills out and
 * the NTT/MSM stages of t, calling progress (if not NULL) as each ends. Errors: -ENOMEM, -errno from getrandom.
 */
#ifndef SLOTPROVE_CPU_PROVE_H
#define SLOTPROVE_CPU_PROVE_H

#include "err.h"
#include "ntt.h"
#include "proof.h"
#include "stages.h"
#include "zkey.h"

int bn254_cpu_prove(const struct zkey *zk, bn254_fr_t *a, bn254_fr_t *b, bn254_fr_t *c,
                    const uint8_t *witness, const struct bn254_ntt_domain *dom,
                    unsigned nthreads, stage_progress_fn progress, void *progress_arg,
                    struct groth16_proof *out, struct stage_times *t, struct sp_err *e);
int bls12381_cpu_prove(const struct zkey *zk, bls12381_fr_t *a, bls12381_fr_t *b,
                       bls12381_fr_t *c, const uint8_t *witness,
                       const struct bls12381_ntt_domain *dom, unsigned nthreads,
                       stage_progress_fn progress, void *progress_arg,
                       struct groth16_proof *out, struct stage_times *t,
                       struct sp_err *e);

/* c_i = a_i·b_i for n values, the Montgomery product (for the slot's
 * standard-form a and b: a·b·R^-1, the form gpud's H pass expects,
 * shm/payload.h), on
 * nthreads threads; c a buffer of its own. The zkey proof's NTT stage and
 * bellperson_prove.c's quotient both form c with it. */
void bn254_form_c(bn254_fr_t *c, const bn254_fr_t *a, const bn254_fr_t *b, size_t n,
                  unsigned nthreads);
void bls12381_form_c(bls12381_fr_t *c, const bls12381_fr_t *a, const bls12381_fr_t *b,
                     size_t n, unsigned nthreads);

#endif
