/* curve.c — see curve.h. */
#include "curve.h"

#include <stdio.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"

static const struct curve_info curves[CURVE_COUNT] = {
    [CURVE_BN254] = {
        .name = "bn128", .label = "BN254", .n8q = 32, .n8r = 32,
        .g1_bytes = 64, .g2_bytes = 128, .fr_two_adicity = 28,
        .q = bn254_fp_modulus.l, .r = bn254_fr_modulus.l,
    },
    [CURVE_BLS12381] = {
        .name = "bls12381", .label = "BLS12-381", .n8q = 48, .n8r = 32,
        .g1_bytes = 96, .g2_bytes = 192, .fr_two_adicity = 32,
        .q = bls12381_fp_modulus.l, .r = bls12381_fr_modulus.l,
    },
};

const struct curve_info *curve_get(enum curve_id id)
{
    return (unsigned)id < CURVE_COUNT ? &curves[id] : NULL;
}

/* Limbs are little-endian u64 and so is the file encoding: on a little-endian
 * host the bytes compare directly. */
int curve_from_primes(const uint8_t *q, uint32_t n8q, const uint8_t *r, uint32_t n8r)
{
    for (int i = 0; i < CURVE_COUNT; i++)
        if (n8q == curves[i].n8q && n8r == curves[i].n8r &&
            memcmp(q, curves[i].q, n8q) == 0 && memcmp(r, curves[i].r, n8r) == 0)
            return i;
    return -1;
}

int curve_from_r(const uint8_t *r, uint32_t n8r)
{
    for (int i = 0; i < CURVE_COUNT; i++)
        if (n8r == curves[i].n8r && memcmp(r, curves[i].r, n8r) == 0)
            return i;
    return -1;
}

void curve_hex(char *buf, size_t len, const uint8_t *le, uint32_t n)
{
    size_t o = 0;
    if (len < 4) {
        if (len)
            buf[0] = 0;
        return;
    }
    o += (size_t)snprintf(buf, len, "0x");
    for (uint32_t i = n; i-- > 0 && o + 3 <= len;)
        o += (size_t)snprintf(buf + o, len - o, "%02x", le[i]);
}

int curve_scalar_below_r(const struct curve_info *ci, const uint8_t *le32)
{
    uint64_t v[4];
    memcpy(v, le32, 32);
    for (int k = 3; k >= 0; k--)
        if (v[k] != ci->r[k])
            return v[k] < ci->r[k];
    return 0;
}
