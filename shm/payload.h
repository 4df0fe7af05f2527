/* payload.h - the layout of one slot's payload: what synthd writes and gpud
 * and its backends read.  The one definition; every user computes offsets
 * and sizes from payload_layout().
 *
 *   offset 0                      a = A·w        domain_size Fr, standard form
 *   vec_bytes                     b = B·w        domain_size Fr, standard form
 *   2 * vec_bytes                 witness        n_vars Fr, standard form (as in .wtns)
 *   total = 2 * vec_bytes + witness_bytes, vec_bytes = domain_size * 32
 *
 * c = a∘b is not in the slot (issue 19: it cost synthd a Montgomery product
 * per row and a third vector of writes); gpud forms it as the Montgomery
 * product of the slot's a and b, a·b·R^-1 mod r:
 * gpud/cpu/prove_tmpl.h (P_(form_c)),
 * gpud/cuda/kernels/gpu_prove.cu (gpu_fr_mul, in the h stage), and for
 * bellperson keys gpud/cpu/bellperson_prove.c and gpud/cuda/cuda_bellperson.c.
 *
 * The form of a, b (R = 2^256, each value fully reduced, < r): not
 * Montgomery form (x·R) but standard form, so that synthd's row sums, taken
 * in standard form, need no Montgomery reduction where a row has only ±1
 * and small coefficients (most rows of circom circuits) and no conversion
 * product anywhere (synthd/synth_tmpl.h; from 07cadd7 to 2026-12-03 the
 * slot held x·R^-1 and every row sum cost one reduction). Every step gpud
 * takes before the H scalars is linear with Montgomery-form constants (the
 * NTTs), or the Montgomery product a·b (giving a·b·R^-1, c's form), so the
 * H values come out as h·R^-1 and gpud multiplies them by the constant
 * R^2 (one Montgomery product: h·R^-1·R^2·R^-1 = h, standard form for the
 * MSM) where it used to multiply by 1 to leave Montgomery form:
 * gpud/cpu/prove_tmpl.h (h_pass), gpud/cuda/kernels/gpu_prove.cu
 * (h_scalars), and for bellperson keys gpud/cpu/bellperson_prove.c and
 * gpud/cuda/cuda_bellperson.c (the quotient's scale).
 *
 * Fr is 32 bytes on both supported curves (n8r = 32 for BN254 and
 * BLS12-381), little-endian.
 */
#ifndef SHM_PAYLOAD_H
#define SHM_PAYLOAD_H

#include <stdint.h>

#define PAYLOAD_FR_BYTES 32u

struct payload_layout {
    uint64_t a, b, witness;           /* byte offsets */
    uint64_t vec_bytes;               /* a, b: domain_size * 32 each */
    uint64_t witness_bytes;           /* n_vars * 32 */
    uint64_t total;                   /* bytes used in the slot */
};

static inline struct payload_layout payload_layout(uint64_t domain_size, uint64_t n_vars)
{
    struct payload_layout l;
    l.vec_bytes = domain_size * PAYLOAD_FR_BYTES;
    l.witness_bytes = n_vars * PAYLOAD_FR_BYTES;
    l.a = 0;
    l.b = l.vec_bytes;
    l.witness = 2 * l.vec_bytes;
    l.total = l.witness + l.witness_bytes;
    return l;
}

#endif
