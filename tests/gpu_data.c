/* gpu_data.c — fixtures for the GPU tests and benchmarks (gpu_data.h). */
#include "gpu_data.h"

#include <stdlib.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"
#include "parallel.h"

uint64_t gpu_data_rand(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const uint64_t *modulus_r(enum gpu_curve c)
{
    return c == GPU_BN254 ? bn254_fr_modulus.l : bls12381_fr_modulus.l;
}

/* x < r: top limb masked to r's bit length, redrawn while ≥ r. */
static void rand_below_r(uint64_t x[4], enum gpu_curve c, uint64_t *s)
{
    const uint64_t *r = modulus_r(c);
    uint64_t mask = ~0ull >> __builtin_clzll(r[3]);
    for (;;) {
        for (int i = 0; i < 4; i++)
            x[i] = gpu_data_rand(s);
        x[3] &= mask;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (x[i] != r[i]) {
                lt = x[i] < r[i];
                break;
            }
        if (lt)
            return;
    }
}

void gpu_data_scalars(void *out, enum gpu_curve c, size_t n, uint64_t *s)
{
    uint64_t *o = out;
    for (size_t i = 0; i < n; i++)
        rand_below_r(o + 4 * i, c, s);
}

void gpu_data_fr(void *out, enum gpu_curve c, size_t n, uint64_t *s)
{
    gpu_data_scalars(out, c, n, s); /* any value below r is a Montgomery form */
}

size_t gpu_data_point_bytes(enum gpu_group g)
{
    switch (g) {
    case GPU_BN254_G1: return sizeof(bn254_g1_affine_t);
    case GPU_BN254_G2: return sizeof(bn254_g2_affine_t);
    case GPU_BLS12381_G1: return sizeof(bls12381_g1_affine_t);
    default: return sizeof(bls12381_g2_affine_t);
    }
}

#define CHUNK 4096

/* One group's chunk generator: points [b·CHUNK, e·CHUNK) ∩ [0, n). */
#define GEN_GROUP(GROUP, GF, CURVE)                                                    \
    struct GROUP##_gen {                                                               \
        GROUP##_affine_t *out;                                                         \
        size_t n;                                                                      \
        uint64_t seed;                                                                 \
    };                                                                                 \
    static void GROUP##_gen_chunks(void *arg, size_t b, size_t e)                      \
    {                                                                                  \
        struct GROUP##_gen *x = arg;                                                   \
        GROUP##_jac_t *jac = malloc(CHUNK * sizeof(*jac));                             \
        GF##_t *scratch = malloc(CHUNK * sizeof(*scratch));                            \
        if (!jac || !scratch)                                                          \
            abort();                                                                   \
        for (size_t ch = b; ch < e; ch++) {                                            \
            uint64_t s = x->seed ^ (ch * 0x2545f4914f6cdd1dull), k[4], q[4];           \
            rand_below_r(k, CURVE, &s);                                                \
            rand_below_r(q, CURVE, &s);                                                \
            GROUP##_jac_t step;                                                        \
            GROUP##_affine_t stepa;                                                    \
            GROUP##_mul_scalar_affine(&jac[0], &GROUP##_generator, k, 4);              \
            GROUP##_mul_scalar_affine(&step, &GROUP##_generator, q, 4);                \
            GROUP##_to_affine(&stepa, &step);                                          \
            size_t first = ch * CHUNK, cnt = x->n - first < CHUNK ? x->n - first : CHUNK; \
            for (size_t j = 1; j < cnt; j++)                                           \
                GROUP##_add_affine(&jac[j], &jac[j - 1], &stepa);                      \
            GROUP##_batch_to_affine(x->out + first, jac, cnt, scratch);                \
        }                                                                              \
        free(jac);                                                                     \
        free(scratch);                                                                 \
    }

GEN_GROUP(bn254_g1, bn254_fp, GPU_BN254)
GEN_GROUP(bn254_g2, bn254_fp2, GPU_BN254)
GEN_GROUP(bls12381_g1, bls12381_fp, GPU_BLS12381)
GEN_GROUP(bls12381_g2, bls12381_fp2, GPU_BLS12381)

void *gpu_data_points(enum gpu_group g, size_t n, const size_t *inf, size_t ninf, uint64_t seed)
{
    size_t pb = gpu_data_point_bytes(g);
    uint8_t *out = malloc(n * pb);
    if (!out)
        return NULL;
    size_t nchunks = (n + CHUNK - 1) / CHUNK;
#define RUN(GROUP)                                                       \
    do {                                                                 \
        struct GROUP##_gen x = { (GROUP##_affine_t *)out, n, seed };     \
        parallel_for(nchunks, 1, 0, GROUP##_gen_chunks, &x);             \
    } while (0)
    switch (g) {
    case GPU_BN254_G1: RUN(bn254_g1); break;
    case GPU_BN254_G2: RUN(bn254_g2); break;
    case GPU_BLS12381_G1: RUN(bls12381_g1); break;
    default: RUN(bls12381_g2); break;
    }
#undef RUN
    for (size_t i = 0; i < ninf; i++)
        if (inf[i] < n)
            memset(out + inf[i] * pb, 0, pb);
    return out;
}
