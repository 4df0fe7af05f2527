/* bn254_g2_msm.cu — the GPU MSM (msm.cuh) for bn254_g2. */
#include "msm.cuh"

struct bn254_g2_group {
    typedef bn254_fp2_d F;
    static constexpr unsigned scalar_bits = 254;
    static constexpr enum gpu_group group = GPU_BN254_G2;
    MSM_HOST_COMBINE(bn254_g2, bn254_fp2)
};

MSM_INSTANCE(bn254_g2)
