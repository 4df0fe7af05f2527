/*
 * limb_inv.h — modular inverse of a multi-limb integer in variable time
 * (GMP's extended Euclid), for code that already branches on its data
 * (the MSM's batch-affine additions; see field_tmpl.h F_inv_vartime).
 */
#ifndef SLOTPROVE_LIMB_INV_H
#define SLOTPROVE_LIMB_INV_H

#include <stdint.h>

#ifdef __cplusplus /* field_tmpl.h is also read by the CUDA sources */
extern "C" {
#endif

/* out = a^-1 mod p in standard form, all n little-endian 64-bit limbs
 * (1 ≤ n ≤ 8); a < p, p odd prime with a non-zero top limb; a = 0 gives 0.
 * Variable time: the running time depends on a. About 1 µs for n = 6
 * (the Fermat power takes ~18 µs). out may alias a. */
void limb_inv_vartime(uint64_t *out, const uint64_t *a, const uint64_t *p, int n);

#ifdef __cplusplus
}
#endif

#endif
