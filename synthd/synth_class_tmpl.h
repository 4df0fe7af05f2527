/*
 * synth_class_tmpl.h — the class of a stored coefficient on one curve's Fr
 * (synth_class.h): define SC (curve prefix) and include; it defines
 * SC##_synth_coef_class, SC##_synth_coef_montgomery and
 * SC##_synth_classify. Coefficients are stored as
 * v·R² mod r (snarkjs writeFr2), so v = value·R^-1: one Montgomery product
 * by R^-1 in standard form.
 */
#include <string.h>

#define SC_CAT2(a, b) a##_##b
#define SC_CAT(a, b) SC_CAT2(a, b)
#define S_(name) SC_CAT(SC, name)

/* The class of v = value·R^-1 (value = v·R² as stored): rinv = R^-1 mod r
 * in standard form, mont(1, 1). */
static inline enum synth_class S_(coef_class_)(const uint8_t value[32], const S_(fr_t) *rinv,
                                               uint32_t *small)
{
    S_(fr_t) x, v, nv;
    memcpy(x.l, value, 32);
    S_(fr_mul)(&v, &x, rinv);
    S_(fr_neg)(&nv, &v);
    *small = 0;
    if ((v.l[1] | v.l[2] | v.l[3]) == 0 && v.l[0] < SYNTH_SMALL_LIMIT) {
        if (v.l[0] == 1)
            return SYNTH_ONE;
        *small = (uint32_t)v.l[0];
        return SYNTH_SMALL;
    }
    if ((nv.l[1] | nv.l[2] | nv.l[3]) == 0 && nv.l[0] < SYNTH_SMALL_LIMIT) {
        if (nv.l[0] == 1)
            return SYNTH_NEG_ONE;
        *small = (uint32_t)nv.l[0] | 1u << 31;
        return SYNTH_SMALL;
    }
    return SYNTH_GENERAL;
}

static void S_(rinv_)(S_(fr_t) *rinv)
{
    S_(fr_t) one = { { 1, 0, 0, 0 } };
    S_(fr_mul)(rinv, &one, &one);
}

enum synth_class S_(synth_coef_class)(const uint8_t value[32], uint32_t *small)
{
    S_(fr_t) rinv;
    S_(rinv_)(&rinv);
    return S_(coef_class_)(value, &rinv, small);
}

void S_(synth_coef_montgomery)(const uint8_t value[32], uint8_t out[32])
{
    S_(fr_t) x, v;
    memcpy(x.l, value, 32);
    S_(fr_from_mont)(&v, &x); /* v·R²·R^-1 = v·R */
    memcpy(out, v.l, 32);
}

void S_(synth_classify)(const struct zkey_coef *coefs, size_t n, uint8_t *cls)
{
    S_(fr_t) rinv;
    uint32_t small;
    S_(rinv_)(&rinv);
    for (size_t i = 0; i < n; i++)
        cls[i] = (uint8_t)S_(coef_class_)(coefs[i].value, &rinv, &small);
}

#undef S_
#undef SC_CAT
#undef SC_CAT2
