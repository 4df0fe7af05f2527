/* limb_inv.c — see limb_inv.h. */
#include "limb_inv.h"

#include <gmp.h>
#include <string.h>

_Static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "GMP limbs are 64-bit");

void limb_inv_vartime(uint64_t *out, const uint64_t *a, const uint64_t *p, int n)
{
    /* mpn_gcdext needs un ≥ vn, a non-zero top limb of V, room for one limb
     * more in each (destroyed) operand: U = a + p (> p, so ≥ V in size and
     * value; a + p ≡ a), V = p. Then G = U·S + V·T, so S ≡ a^-1 when G = 1;
     * |S| < p/2, S = 0 only when p divides U (a = 0). */
    mp_limb_t u[9], v[9], g[9], s[9];
    mp_size_t sn = 0, un = n;
    int z = 1;
    for (int i = 0; i < n; i++)
        z &= a[i] == 0;
    if (z) {
        memset(out, 0, (size_t)n * sizeof(uint64_t));
        return;
    }
    mp_limb_t cy = mpn_add_n(u, (const mp_limb_t *)a, (const mp_limb_t *)p, n);
    if (cy)
        u[un++] = cy;
    memcpy(v, p, (size_t)n * sizeof(uint64_t));
    mpn_gcdext(g, s, &sn, u, un, v, n);
    mp_size_t an = sn < 0 ? -sn : sn;
    mp_limb_t r[8] = { 0 };
    memcpy(r, s, (size_t)an * sizeof(mp_limb_t));
    if (sn < 0) /* S < 0: p − |S| */
        mpn_sub_n(r, (const mp_limb_t *)p, r, n);
    memcpy(out, r, (size_t)n * sizeof(uint64_t));
}
