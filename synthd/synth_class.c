/* synth_class.c — synth_coef_class on the key's curve (synth_class.h). */
#include "synth_class.h"

enum synth_class synth_coef_class(enum curve_id curve, const uint8_t value[32], uint32_t *small)
{
    return curve == CURVE_BN254 ? bn254_synth_coef_class(value, small)
                                : bls12381_synth_coef_class(value, small);
}

void synth_coef_montgomery(enum curve_id curve, const uint8_t value[32], uint8_t out[32])
{
    if (curve == CURVE_BN254)
        bn254_synth_coef_montgomery(value, out);
    else
        bls12381_synth_coef_montgomery(value, out);
}
