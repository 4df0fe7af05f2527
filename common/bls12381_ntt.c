/* bls12381_ntt.c — the NTT over BLS12-381's Fr (see ntt.h, ntt_tmpl.h). */
#include "ntt.h"

#define NTT_FR bls12381_fr
#define NTT bls12381_ntt
#define NTT_TWO_ADICITY BLS12381_FR_TWO_ADICITY
#include "ntt_tmpl.h"
