/* keygen_bls12381.c — `slotprove keygen --curve bls12381` (keygen_bls12381.h;
 * the pieces: keygen.h). */
#include "fixed_base.h"
#include "bls12381_pairing.h"
#include "keygen_bls12381.h"
#include "keygen_curve.h"
#include "keygen_gpu.h"
#include "keygen_progress.h"
#include "keygen_vk.h"
#include "ntt.h"

#define KG_FR bls12381_fr
#define KG keygen_bls12381
#define KG_NTT bls12381_ntt
#define KG_G1 bls12381_g1
#define KG_G2 bls12381_g2
#define KG_FP bls12381_fp
#define KG_FP2 bls12381_fp2
#define KG_FP_LIMBS 6
#define KG_PAIR bls12381
#define KG_RUN keygen_bls12381
#include "keygen_circuit_tmpl.h"
#include "keygen_qap_tmpl.h"
#include "keygen_setup_tmpl.h"
