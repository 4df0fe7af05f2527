/* zkey_check.c — see zkey_check.h. */
#include "zkey_check.h"

#include <stdatomic.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"
#include "fp254_ifma.h"
#include "fp381_ifma.h"
#include "parallel.h"

/* 0 on the curve (or infinity), 1 off it, 2 a coordinate not below q. The
 * zkey's bytes are the affine struct's bytes (little-endian host; see the
 * MSM files' layout assertions). */
#define ZC_POINT_FNS(G, F, NCOORD)                                            \
    static int zc_##G(const uint8_t *raw)                                     \
    {                                                                         \
        G##_affine_t a;                                                       \
        memcpy(&a, raw, sizeof a);                                            \
        const F##_t *c = (const F##_t *)&a;                                   \
        for (int i = 0; i < (NCOORD); i++)                                    \
            if (!F##_is_canonical(c[i].l))                                    \
                return 2;                                                     \
        return G##_affine_is_on_curve(&a) ? 0 : 1;                            \
    }
ZC_POINT_FNS(bn254_g1, bn254_fp, 2)
ZC_POINT_FNS(bn254_g2, bn254_fp, 4)
ZC_POINT_FNS(bls12381_g1, bls12381_fp, 2)
ZC_POINT_FNS(bls12381_g2, bls12381_fp, 4)

typedef int (*point_fn)(const uint8_t *raw);

struct zc_ctx {
    const uint8_t *base;
    size_t stride;
    point_fn fn;
    /* G1 with AVX-512 IFMA: eight equations at once (the key's curve's
     * zc_<G>_x8_ok), else NULL */
    int (*g1_x8)(const uint8_t *raw, size_t stride);
    atomic_size_t first_bad; /* smallest bad index seen, or SIZE_MAX */
    atomic_int why;          /* its reason (1 or 2) */
};

/* zc_<G>_x8_ok: 1 when the eight G1 points from raw (stride bytes apart)
 * all have canonical coordinates and lie on the curve (or are infinity);
 * 0 sends the group to the one-by-one check, which finds the first bad
 * point and its reason. */
#define ZC_G1_X8_FN(G, F)                                                     \
    static int zc_##G##_x8_ok(const uint8_t *raw, size_t stride)              \
    {                                                                         \
        const G##_affine_t *pts[8];                                           \
        for (int k = 0; k < 8; k++) {                                         \
            const uint8_t *q = raw + (size_t)k * stride;                      \
            G##_affine_t a; /* the points may sit at any address */           \
            memcpy(&a, q, sizeof a);                                          \
            if (!F##_is_canonical(a.x.l) || !F##_is_canonical(a.y.l))         \
                return 0;                                                     \
            pts[k] = (const G##_affine_t *)q; /* gathered, no alignment */    \
        }                                                                     \
        return G##_on_curve_x8_ifma(pts) == 0xff;                             \
    }
ZC_G1_X8_FN(bn254_g1, bn254_fp)
ZC_G1_X8_FN(bls12381_g1, bls12381_fp)

static void zc_range(void *arg, size_t b, size_t end)
{
    struct zc_ctx *c = arg;
    if (c->g1_x8)
        while (end - b >= 8 && b <= atomic_load(&c->first_bad) &&
               c->g1_x8(c->base + b * c->stride, c->stride))
            b += 8;
    for (size_t i = b; i < end; i++) {
        if (i > atomic_load(&c->first_bad))
            return; /* an earlier bad point is already known */
        int r = c->fn(c->base + i * c->stride);
        if (r) {
            size_t cur = atomic_load(&c->first_bad);
            while (i < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, i))
                ;
            if (atomic_load(&c->first_bad) == i)
                atomic_store(&c->why, r);
            return;
        }
    }
}

int zkey_check_points(const struct zkey *zk, unsigned nthreads, uint64_t *points,
                      struct sp_err *e)
{
    int bn = zk->curve == CURVE_BN254;
    point_fn g1 = bn ? zc_bn254_g1 : zc_bls12381_g1;
    point_fn g2 = bn ? zc_bn254_g2 : zc_bls12381_g2;
    int (*g1_x8)(const uint8_t *, size_t) = !ifma_enabled() ? NULL
                                            : bn            ? zc_bn254_g1_x8_ok
                                                            : zc_bls12381_g1_x8_ok;
    size_t s1 = zk->ci->g1_bytes, s2 = zk->ci->g2_bytes;
    const struct {
        int section;
        const char *name;
        const uint8_t *p;
        size_t n;
        int twist;
    } parts[] = {
        { ZKEY_GROTH16, "Groth16 header: alpha1", zk->alpha1, 1, 0 },
        { ZKEY_GROTH16, "Groth16 header: beta1", zk->beta1, 1, 0 },
        { ZKEY_GROTH16, "Groth16 header: beta2", zk->beta2, 1, 1 },
        { ZKEY_GROTH16, "Groth16 header: gamma2", zk->gamma2, 1, 1 },
        { ZKEY_GROTH16, "Groth16 header: delta1", zk->delta1, 1, 0 },
        { ZKEY_GROTH16, "Groth16 header: delta2", zk->delta2, 1, 1 },
        { ZKEY_IC, "IC", zk->ic, (size_t)zk->n_public + 1, 0 },
        { ZKEY_A, "A", zk->a, zk->n_vars, 0 },
        { ZKEY_B1, "B1", zk->b1, zk->n_vars, 0 },
        { ZKEY_B2, "B2", zk->b2, zk->n_vars, 1 },
        { ZKEY_C, "C", zk->c, (size_t)zk->n_vars - zk->n_public - 1, 0 },
        { ZKEY_H, "H", zk->h, zk->domain_size, 0 },
    };
    uint64_t total = 0;
    for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
        struct zc_ctx c = { .base = parts[k].p, .stride = parts[k].twist ? s2 : s1,
                            .fn = parts[k].twist ? g2 : g1,
                            .g1_x8 = parts[k].twist ? NULL : g1_x8 };
        atomic_init(&c.first_bad, SIZE_MAX);
        atomic_init(&c.why, 0);
        parallel_for(parts[k].n, 4096, nthreads, zc_range, &c);
        total += parts[k].n;
        size_t bad = atomic_load(&c.first_bad);
        if (bad != SIZE_MAX) {
            /* header points are numbered 0..5 within section 2 */
            size_t idx = parts[k].section == ZKEY_GROTH16 ? k : bad;
            return sp_fail(e, SP_ERANGE, "%s: section %d (%s) point %zu: %s", zk->path,
                           parts[k].section, parts[k].name, idx,
                           atomic_load(&c.why) == 2 ? "coordinate not below q"
                                                    : "not on the curve");
        }
    }
    if (points)
        *points = total;
    return 0;
}
