/* keygen_bn254.c — `slotprove keygen --curve bn128` (keygen_bn254.h;
 * the pieces: keygen.h). */
#include "fixed_base.h"
#include "bn254_pairing.h"
#include "keygen_bn254.h"
#include "keygen_curve.h"
#include "keygen_gpu.h"
#include "keygen_progress.h"
#include "keygen_vk.h"
#include "ntt.h"

#define KG_FR bn254_fr
#define KG keygen_bn254
#define KG_NTT bn254_ntt
#define KG_G1 bn254_g1
#define KG_G2 bn254_g2
#define KG_FP bn254_fp
#define KG_FP2 bn254_fp2
#define KG_FP_LIMBS 4
#define KG_PAIR bn254
#define KG_RUN keygen_bn254
#include "keygen_circuit_tmpl.h"
#include "keygen_qap_tmpl.h"
#include "keygen_setup_tmpl.h"
