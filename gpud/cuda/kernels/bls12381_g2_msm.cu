/* bls12381_g2_msm.cu — the GPU MSM (msm.cuh) for bls12381_g2. */
#include "msm.cuh"

struct bls12381_g2_group {
    typedef bls12381_fp2_d F;
    static constexpr unsigned scalar_bits = 255;
    static constexpr enum gpu_group group = GPU_BLS12381_G2;
    MSM_HOST_COMBINE(bls12381_g2, bls12381_fp2)
};

MSM_INSTANCE(bls12381_g2)
