/* bn254_ntt.c — the NTT over BN254's Fr (see ntt.h, ntt_tmpl.h). */
#include "ntt.h"

#define NTT_FR bn254_fr
#define NTT bn254_ntt
#define NTT_TWO_ADICITY BN254_FR_TWO_ADICITY
#include "ntt_tmpl.h"
