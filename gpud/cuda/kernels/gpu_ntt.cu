/*
 * gpu_ntt.cu — the C entry points of the GPU NTT (gpu_ntt.h): domain tables and
 * the pass plan for ntt.cuh's kernels, for both curves' Fr.
 */
#include <errno.h>
#include <stdlib.h>
#include <new>

#include "gpu_ntt.h"
#include "gpu_mem.h"
#include "gpu_util.cuh"
#include "ntt.cuh"

extern "C" {
#include "ntt.h"
}

struct gpu_ntt {
    enum gpu_curve curve;
    unsigned log_n;
    size_t n;
    int compact;            /* tw: the twiddles' two half tables (ntt_twiddle) */
    void *tw, *cz, *consts; /* consts: [0] = 1/n */
};

/* The NTT's device buffers for a domain of n points: twiddles, coset
 * table, constants, and the power tables held while the others are
 * filled. gpu_ntt_create allocates these; gpu_ntt_plan sums them. */
enum { NTT_TW, NTT_CZ, NTT_CONSTS, NTT_POWERS, NTT_NBUF };
/* L of the coset factors' half tables (ntt.cuh): ⌈log_n / 2⌉. */
static unsigned ntt_cz_log(unsigned log_n)
{
    return (log_n + 1) / 2;
}

static void ntt_sizes(size_t n, int compact, size_t sz[NTT_NBUF])
{
    unsigned log_n = 63 - __builtin_clzll(n), L = ntt_cz_log(log_n);
    sz[NTT_TW] = compact ? (((size_t)1 << L) + ((size_t)1 << (log_n - L))) * 32 : n * 32;
    sz[NTT_CZ] = (((size_t)1 << L) + ((size_t)1 << (log_n - L))) * 32;
    sz[NTT_CONSTS] = 32;
    sz[NTT_POWERS] = 2 * 64 * 32;
}

extern "C" size_t gpu_ntt_plan(unsigned log_n, int compact)
{
    size_t sz[NTT_NBUF], b = 0;
    ntt_sizes((size_t)1 << log_n, compact, sz);
    for (int i = 0; i < NTT_NBUF; i++)
        b += gpu_mem_charge(sz[i]);
    return b;
}

/* Host side of one curve: the CPU code's Fr type and functions. */
#define NTT_HOST(CURVE, FR)                                                                \
    static int CURVE##_tables(struct gpu_ntt *d, struct sp_err *e)                         \
    {                                                                                      \
        FR##_t w, shift, ninv, nfr, pw[64], ps[64];                                        \
        CURVE##_ntt_root_of_unity(&w, d->log_n);                                           \
        CURVE##_ntt_coset_shift(&shift, d->log_n);                                         \
        FR##_from_u64(&nfr, d->n);                                                         \
        FR##_inv(&ninv, &nfr);                                                             \
        pw[0] = w;                                                                         \
        ps[0] = shift;                                                                     \
        for (unsigned b = 1; b < d->log_n; b++) {                                          \
            FR##_sqr(&pw[b], &pw[b - 1]);                                                  \
            FR##_sqr(&ps[b], &ps[b - 1]);                                                  \
        }                                                                                  \
        typedef CURVE##_fr_d F;                                                            \
        F *dpw;                                                                            \
        size_t sz_[NTT_NBUF];                                                              \
        ntt_sizes(d->n, d->compact, sz_);                                                  \
        static_assert(sizeof(F) == 32, "Fr is 32 bytes");                                  \
        int rc_ = gpu_mem_alloc((void **)&dpw, sz_[NTT_POWERS], GPU_MEM_NTT,               \
                                "ntt power tables", e);                                    \
        if (rc_)                                                                           \
            return rc_;                                                                    \
        cudaError_t err = cudaMemcpy(dpw, pw, 64 * sizeof(F), cudaMemcpyHostToDevice);     \
        if (!err)                                                                          \
            err = cudaMemcpy(dpw + 64, ps, 64 * sizeof(F), cudaMemcpyHostToDevice);        \
        if (!err)                                                                          \
            err = cudaMemcpy(d->consts, &ninv, sizeof(F), cudaMemcpyHostToDevice);         \
        unsigned nb = (unsigned)((d->n + 255) / 256);                                      \
        if (!err) {                                                                        \
            unsigned L_ = ntt_cz_log(d->log_n);                                            \
            size_t lo_ = (size_t)1 << L_, hi_ = (size_t)1 << (d->log_n - L_);              \
            unsigned nlo_ = (unsigned)((lo_ + 255) / 256), nhi_ = (unsigned)((hi_ + 255) / 256); \
            if (!d->compact)                                                               \
                ntt_fill_table<F><<<nb, 256>>>((F *)d->tw, dpw, d->log_n, 1, nullptr, d->n); \
            else { /* ω^k, k < 2^L; ω^(m·2^L) from the powers ω^(2^(L+b)) */              \
                ntt_fill_table<F><<<nlo_, 256>>>((F *)d->tw, dpw, d->log_n, 0, nullptr, lo_); \
                ntt_fill_table<F><<<nhi_, 256>>>((F *)d->tw + lo_, dpw + L_, d->log_n, 0,  \
                                                 nullptr, hi_);                            \
            }                                                                              \
            /* shift^k / n, k < 2^L; shift^(m·2^L) from the powers shift^(2^(L+b)) */        \
            ntt_fill_table<F><<<(unsigned)((lo_ + 255) / 256), 256>>>(                     \
                (F *)d->cz, dpw + 64, d->log_n, 0, (const F *)d->consts, lo_);             \
            ntt_fill_table<F><<<(unsigned)((hi_ + 255) / 256), 256>>>(                     \
                (F *)d->cz + lo_, dpw + 64 + L_, d->log_n, 0, nullptr, hi_);               \
            err = cudaDeviceSynchronize();                                                 \
        }                                                                                  \
        gpu_mem_free(dpw);                                                                 \
        CU_TRY(err, e, "ntt tables");                                                      \
        return 0;                                                                          \
    }

NTT_HOST(bn254, bn254_fr)
NTT_HOST(bls12381, bls12381_fr)

static int ntt_create(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n, int compact,
                      struct sp_err *e);

extern "C" int gpu_ntt_create(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n,
                              struct sp_err *e)
{
    return ntt_create(ret, curve, log_n, 0, e);
}

extern "C" int gpu_ntt_create_compact(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n,
                                      struct sp_err *e)
{
    return ntt_create(ret, curve, log_n, 1, e);
}

static int ntt_create(struct gpu_ntt **ret, enum gpu_curve curve, unsigned log_n, int compact,
                      struct sp_err *e)
{
    *ret = nullptr;
    if (log_n < 1 || log_n > 27)
        return sp_fail(e, -EINVAL, "gpu ntt: domain 2^%u (1 to 2^27)", log_n);
    struct gpu_ntt *d = new (std::nothrow) gpu_ntt();
    if (!d)
        return sp_fail(e, -ENOMEM, "gpu ntt: out of host memory");
    d->curve = curve;
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->compact = compact;
    size_t sz[NTT_NBUF];
    ntt_sizes(d->n, compact, sz);
    int rc = gpu_mem_alloc(&d->tw, sz[NTT_TW], GPU_MEM_NTT, "ntt twiddles", e);
    if (!rc)
        rc = gpu_mem_alloc(&d->cz, sz[NTT_CZ], GPU_MEM_NTT, "ntt coset table", e);
    if (!rc)
        rc = gpu_mem_alloc(&d->consts, sz[NTT_CONSTS], GPU_MEM_NTT, "ntt constants", e);
    if (!rc)
        rc = curve == GPU_BN254 ? bn254_tables(d, e) : bls12381_tables(d, e);
    if (rc) {
        gpu_ntt_free(d);
        return rc;
    }
    *ret = d;
    return 0;
}

extern "C" void gpu_ntt_free(struct gpu_ntt *d)
{
    if (!d)
        return;
    gpu_mem_free(d->tw);
    gpu_mem_free(d->cz);
    gpu_mem_free(d->consts);
    delete d;
}

/* Threads per block of ntt_pass: NTT_THREADS_DEFAULT, or
 * $SLOTPROVE_NTT_THREADS (a power of two from 32 up to NTT_THREADS). */
static unsigned ntt_threads(void)
{
    static unsigned t = 0;
    if (!t) {
        const char *s = getenv("SLOTPROVE_NTT_THREADS");
        unsigned v = s ? (unsigned)atoi(s) : NTT_THREADS_DEFAULT;
        t = v >= 32 && v <= NTT_THREADS && !(v & (v - 1)) ? v : NTT_THREADS_DEFAULT;
    }
    return t;
}

/* Which pass kernel: 2 (ntt_pass), 4 or 8 (ntt_pass_r): NTT_RADIX_DEFAULT
 * or $SLOTPROVE_NTT_RADIX. */
#define NTT_RADIX_DEFAULT 4
static unsigned ntt_radix(void)
{
    static unsigned r = 0;
    if (!r) {
        const char *s = getenv("SLOTPROVE_NTT_RADIX");
        int v = s ? atoi(s) : NTT_RADIX_DEFAULT;
        r = v == 2 || v == 4 || v == 8 ? (unsigned)v : NTT_RADIX_DEFAULT;
    }
    return r;
}

/* log2 of the elements per tile: the kernel's default, or
 * $SLOTPROVE_NTT_TILE_LOG (6 up to the kernel's maximum): smaller tiles
 * let more blocks share an SM but take more passes. */
static unsigned ntt_tile_log(unsigned def, unsigned max)
{
    const char *s = getenv("SLOTPROVE_NTT_TILE_LOG");
    unsigned v = s ? (unsigned)atoi(s) : def;
    return v >= 6 && v <= max ? v : def;
}

/* Radix-2 passes: k stages over tiles of 2^(k+l) elements each. Out of
 * place (the first pass reads in, in bit-reversed order: first = 1), or in
 * place (out == in, already bit-reversed: first = 0 in every pass); HALF: a
 * compact domain's twiddles. */
template <class F, bool HALF = false>
static int ntt_passes_r2(struct gpu_ntt *d, F *out, const F *in, bool inplace, struct sp_err *e)
{
    size_t smem = ((size_t)1 << NTT_TILE_LOG) * sizeof(F);
    CU_TRY(cudaFuncSetAttribute(ntt_pass<F, HALF>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), e,
           "ntt shared memory");
    unsigned s = 0, tl = ntt_tile_log(NTT_TILE_LOG_DEFAULT, NTT_TILE_LOG);
    while (s < d->log_n) {
        unsigned l = s < 4 ? s : 4;
        unsigned k = d->log_n - s < tl - l ? d->log_n - s : tl - l;
        size_t tile = (size_t)1 << (k + l);
        ntt_pass<F, HALF><<<(unsigned)(d->n / tile), ntt_threads(), tile * sizeof(F)>>>(
            out, s == 0 ? in : out, (const F *)d->tw, d->log_n, s, k, l, s == 0 && !inplace);
        CU_TRY(cudaGetLastError(), e, "ntt pass");
        s += k;
    }
    return 0;
}

/* Radix-4 or radix-8 passes (ntt_pass_r, 2^LR elements a thread): the
 * first pass takes up to tile-log stages (leaving none or at least three:
 * every pass needs LR ≤ 3 stages), the rest split the remaining stages
 * evenly into passes of at most tile-log − 3 stages, each with 2^l columns
 * filling the tile (l ≤ s): 2^24 goes in 9 + 5 + 5 + 5 stages with radix 4's
 * 2^9-element tiles, in 10 + 7 + 7 with radix 8's 2^10 (2^22 in 10 + 6 + 6,
 * 2^20 in 10 + 5 + 5). Out of place or in place as ntt_passes_r2. */
template <class F, int LR, bool HALF = false>
static int ntt_passes_r(struct gpu_ntt *d, F *out, const F *in, bool inplace, struct sp_err *e)
{
    size_t smem = ((size_t)1 << NTT8_TILE_LOG) * sizeof(F);
    CU_TRY(cudaFuncSetAttribute(ntt_pass_r<F, LR, HALF>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), e,
           "ntt shared memory");
    /* tiles below 2^8 could leave a last pass of fewer than three stages */
    unsigned tl = ntt_tile_log(LR == 2 ? NTT4_TILE_LOG_DEFAULT : NTT8_TILE_LOG_DEFAULT, NTT8_TILE_LOG);
    const unsigned log_n = d->log_n;
    tl = tl < 8 ? 8 : tl;
    unsigned k = log_n < tl ? log_n : tl;
    if (log_n - k > 0 && log_n - k < 3)
        k = log_n - 3;
    unsigned s = 0, l = 0;
    while (s < log_n) {
        if (s > 0) {
            unsigned rest = log_n - s, passes = (rest + tl - 4) / (tl - 3);
            k = (rest + passes - 1) / passes;
            l = tl - k < s ? tl - k : s;
        }
        size_t tile = (size_t)1 << (k + l);
        ntt_pass_r<F, LR, HALF><<<(unsigned)(d->n / tile), (unsigned)(tile >> LR), tile * sizeof(F)>>>(
            out, s == 0 ? in : out, (const F *)d->tw, log_n, s, k, l, s == 0 && !inplace);
        CU_TRY(cudaGetLastError(), e, "ntt pass");
        s += k;
    }
    return 0;
}

template <class F> static int ntt_forward_t(struct gpu_ntt *d, F *out, const F *in, struct sp_err *e)
{
    if (d->log_n < 3 || ntt_radix() == 2)
        return ntt_passes_r2<F>(d, out, in, false, e);
    if (ntt_radix() == 4)
        return ntt_passes_r<F, 2>(d, out, in, false, e);
    return ntt_passes_r<F, 3>(d, out, in, false, e);
}

/* In place: x ← NTT(x): the bit-reversal permutation, then the passes
 * reading and writing x (first = 0); HALF: a compact domain's twiddles. */
template <class F, bool HALF> static int ntt_forward_inplace(struct gpu_ntt *d, F *x, struct sp_err *e)
{
    if (d->log_n >= 1) {
        ntt_bitrev_inplace<F><<<(unsigned)((d->n + 255) / 256), 256>>>(x, d->n, d->log_n);
        CU_TRY(cudaGetLastError(), e, "ntt bit reversal");
    }
    if (d->log_n < 3 || ntt_radix() == 2)
        return ntt_passes_r2<F, HALF>(d, x, x, true, e);
    return ntt_radix() == 4 ? ntt_passes_r<F, 2, HALF>(d, x, x, true, e)
                            : ntt_passes_r<F, 3, HALF>(d, x, x, true, e);
}

template <class F>
static int ntt_run(struct gpu_ntt *d, F *out, F *in, int what, struct sp_err *e)
{
    unsigned nb = (unsigned)((d->n / 2 + 1 + 255) / 256);
    int rc;
    switch (what) {
    case 4:
        /* inverse in place: x → NTT(x), then reversed and ×1/n in place */
        if ((rc = d->compact ? ntt_forward_inplace<F, true>(d, in, e) : ntt_forward_inplace<F, false>(d, in, e)))
            return rc;
        ntt_reverse_scale<F><<<nb, 256>>>(in, d->n, nullptr, 0, (const F *)d->consts);
        CU_TRY(cudaGetLastError(), e, "ntt scale");
        return 0;
    case 3:
        /* coset LDE in place: x → NTT(x), reversed and ×shift^i/n in
         * place, → NTT */
        if ((rc = d->compact ? ntt_forward_inplace<F, true>(d, in, e) : ntt_forward_inplace<F, false>(d, in, e)))
            return rc;
        ntt_reverse_scale<F><<<nb, 256>>>(in, d->n, (const F *)d->cz, ntt_cz_log(d->log_n), nullptr);
        CU_TRY(cudaGetLastError(), e, "ntt coset scale");
        return d->compact ? ntt_forward_inplace<F, true>(d, in, e) : ntt_forward_inplace<F, false>(d, in, e);
    case 0:
        return ntt_forward_t<F>(d, out, in, e);
    case 1:
        if ((rc = ntt_forward_t<F>(d, out, in, e)))
            return rc;
        ntt_reverse_scale<F><<<nb, 256>>>(out, d->n, nullptr, 0, (const F *)d->consts);
        CU_TRY(cudaGetLastError(), e, "ntt scale");
        return 0;
    default:
        /* in → out (forward), out → in (reversed, ×shift^i/n), in → out */
        if ((rc = ntt_forward_t<F>(d, out, in, e)))
            return rc;
        ntt_reverse_scale_to<F><<<(unsigned)((d->n + 255) / 256), 256>>>(in, out, d->n,
                                                                         (const F *)d->cz,
                                                                         ntt_cz_log(d->log_n));
        CU_TRY(cudaGetLastError(), e, "ntt coset scale");
        return ntt_forward_t<F>(d, out, in, e);
    }
}

static int ntt_dispatch(struct gpu_ntt *d, void *out, void *in, int what, struct sp_err *e)
{
    if (out == in && what < 3)
        return sp_fail(e, -EINVAL, "gpu ntt: out and in must differ");
    if (d->compact && what < 3)
        return sp_fail(e, -EINVAL, "gpu ntt: a compact domain runs the in-place transforms only");
    if (d->curve == GPU_BN254)
        return ntt_run<bn254_fr_d>(d, (bn254_fr_d *)out, (bn254_fr_d *)in, what, e);
    return ntt_run<bls12381_fr_d>(d, (bls12381_fr_d *)out, (bls12381_fr_d *)in, what, e);
}

extern "C" int gpu_ntt_forward(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e)
{
    return ntt_dispatch(d, out, (void *)in, 0, e);
}
extern "C" int gpu_ntt_inverse(struct gpu_ntt *d, void *out, const void *in, struct sp_err *e)
{
    return ntt_dispatch(d, out, (void *)in, 1, e);
}
extern "C" int gpu_ntt_coset_lde(struct gpu_ntt *d, void *out, void *in, struct sp_err *e)
{
    return ntt_dispatch(d, out, in, 2, e);
}
extern "C" int gpu_ntt_coset_lde_inplace(struct gpu_ntt *d, void *x, struct sp_err *e)
{
    return ntt_dispatch(d, x, x, 3, e);
}
extern "C" int gpu_ntt_inverse_inplace(struct gpu_ntt *d, void *x, struct sp_err *e)
{
    return ntt_dispatch(d, x, x, 4, e);
}
