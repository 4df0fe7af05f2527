/* keygen_bn254.c — `slotprove keygen --curve bn128` (see keygen.h). */
#include "fixed_base.h"
#include "keygen_curve.h"
#include "gt_constants.h"
#include "ntt.h"

#define FP12 keygen_bn254_fp12
#define FP12_FP2 bn254_fp2
#define FP12_XI0 9
#define FP12_XI1 1
#include "fp12_tmpl.h"

#define KG_FR bn254_fr
#define KG keygen_bn254
#define KG_NTT bn254_ntt
#define KG_G1 bn254_g1
#define KG_G2 bn254_g2
#define KG_FP bn254_fp
#define KG_FP2 bn254_fp2
#define KG_FP_LIMBS 4
#define KG_GT_GENERATOR BN254_GT_GENERATOR
#define KG_RUN keygen_bn254
#include "keygen_circuit_tmpl.h"
#include "keygen_qap_tmpl.h"
#include "keygen_setup_tmpl.h"
