/* bn254_g1_msm.cu — the GPU MSM (msm.cuh) for bn254_g1. */
#include "msm.cuh"

struct bn254_g1_group {
    typedef bn254_fp_d F;
    static constexpr unsigned scalar_bits = 254;
    static constexpr enum gpu_group group = GPU_BN254_G1;
    MSM_HOST_COMBINE(bn254_g1, bn254_fp)
};

MSM_INSTANCE(bn254_g1)
