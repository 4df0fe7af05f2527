/* bls12381_g1_msm.cu — the GPU MSM (msm.cuh) for bls12381_g1. */
#include "msm.cuh"

struct bls12381_g1_group {
    typedef bls12381_fp_d F;
    static constexpr unsigned scalar_bits = 255;
    static constexpr enum gpu_group group = GPU_BLS12381_G1;
    MSM_HOST_COMBINE(bls12381_g1, bls12381_fp)
};

MSM_INSTANCE(bls12381_g1)
