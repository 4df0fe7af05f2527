/* payload.h - the layout of one slot's payload: what synthd writes and gpud
 * and its backends read.  The one definition; every user computes offsets
 * and sizes from payload_layout().
 *
 *   offset 0                      a = A·w        domain_size Fr, Montgomery form
 *   vec_bytes                     b = B·w        domain_size Fr, Montgomery form
 *   2 * vec_bytes                 c = a∘b        domain_size Fr, Montgomery form
 *   3 * vec_bytes                 witness        n_vars Fr, standard form (as in .wtns)
 *   total = 3 * vec_bytes + witness_bytes, vec_bytes = domain_size * 32
 *
 * Fr is 32 bytes on both supported curves (n8r = 32 for BN254 and
 * BLS12-381), little-endian.
 */
#ifndef SHM_PAYLOAD_H
#define SHM_PAYLOAD_H

#include <stdint.h>

#define PAYLOAD_FR_BYTES 32u

struct payload_layout {
    uint64_t a, b, c, witness;        /* byte offsets */
    uint64_t vec_bytes;               /* a, b, c: domain_size * 32 each */
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
    l.c = 2 * l.vec_bytes;
    l.witness = 3 * l.vec_bytes;
    l.total = l.witness + l.witness_bytes;
    return l;
}

#endif
