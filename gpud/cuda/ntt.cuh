/*
 * ntt.cuh — radix-2 NTT over Fr on the GPU, the same transform as
 * common/ntt_tmpl.h (decimation in time over bit-reversed input, twiddles
 * ω_{2h}^j at the stage of half-size h, ω_n = 5^((r−1)/n), snarkjs's coset
 * shift), so outputs match the CPU backend bit for bit.
 *
 * A pass loads a tile of 2^k·2^l elements into shared memory, runs k stages
 * on it and writes it back: the 2^k elements 2^s apart for 2^l consecutive
 * low indices (l ≤ 4: 512-byte runs in device memory). The first pass reads
 * its input at bit-reversed positions, so no separate permutation runs:
 * 2^24 takes four passes (9 + 5 + 5 + 5 stages) with the default tiles. Shared memory holds the tile
 * word-sliced (word w of element e at w·E + e) so a warp's threads hit
 * different banks.
 *
 * Tables on the device (gpu_ntt_create): tw[2^s + j] = ω_{2^(s+1)}^j for the
 * stage of half-size 2^s (n entries in all, each computed from a table of
 * ω^(2^b)), and cz[i] = shift^i / n for the coset LDE.
 */
#ifndef SLOTPROVE_CUDA_NTT_CUH
#define SLOTPROVE_CUDA_NTT_CUH

#include "fields.cuh"

/* Tiles of 2^9 elements (16 KiB of shared memory) and 128 threads a block:
 * the fastest of tiles 2^9..2^11 × 128 or 256 threads on an H200 at 2^24
 * (6.26 ms against 6.59 ms for 2^11 × 256: more blocks per SM outweigh a
 * fourth pass). $SLOTPROVE_NTT_TILE_LOG and $SLOTPROVE_NTT_THREADS override
 * them for tuning runs, up to the maxima. */
#define NTT_TILE_LOG_DEFAULT 9
#define NTT_TILE_LOG 11 /* at most: 2^11 elements × 32 B = 64 KiB */
#define NTT_THREADS_DEFAULT 128
#define NTT_THREADS 256 /* at most */

/* ret[idx] = Π_{b: bit b of e(idx)} pw[b]: e = j·2^(log_n−1−s) for the
 * twiddle table (idx = 2^s + j), e = idx for the coset table (then ×scale). */
template <class F>
__global__ void ntt_fill_table(F *ret, const F *pw, unsigned log_n, int twiddles, const F *scale,
                               size_t count)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= count)
        return;
    uint32_t ex;
    if (twiddles) {
        if (idx == 0) {
            ret[0] = F::one();
            return;
        }
        unsigned s = 31 - __clz((uint32_t)idx);
        ex = ((uint32_t)idx - (1u << s)) << (log_n - 1 - s);
    } else {
        ex = (uint32_t)idx;
    }
    F x = scale ? *scale : F::one();
    for (unsigned b = 0; ex; b++, ex >>= 1)
        if (ex & 1)
            x = x * pw[b];
    ret[idx] = x;
}

template <class F> FF_INLINE F ntt_sm_load(const uint32_t *sm, uint32_t E, uint32_t e)
{
    F x;
#pragma unroll
    for (int w = 0; w < F::N; w++)
        x.v[w] = sm[w * E + e];
    return x;
}

template <class F> FF_INLINE void ntt_sm_store(uint32_t *sm, uint32_t E, uint32_t e, const F &x)
{
#pragma unroll
    for (int w = 0; w < F::N; w++)
        sm[w * E + e] = x.v[w];
}

/* Stages s .. s+k−1 over tiles of 2^(k+l) elements (see the file comment).
 * first: read in at bit-reversed indices (in ≠ out); else in == out. */
template <class F>
__global__ void __launch_bounds__(NTT_THREADS) ntt_pass(F *out, const F *in, const F *tw,
                                                        unsigned log_n, unsigned s, unsigned k,
                                                        unsigned l, int first)
{
    extern __shared__ uint32_t sm[];
    const uint32_t E = 1u << (k + l), lw = 1u << l;
    const uint32_t lo_groups_log = s - l;
    const uint32_t b = blockIdx.x;
    const uint32_t lo_grp = b & ((1u << lo_groups_log) - 1), hi = b >> lo_groups_log;
    const uint32_t base = (hi << (s + k)) | (lo_grp << l);
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t i = base + ((e >> l) << s) + (e & (lw - 1));
        uint32_t src = first ? __brev(i) >> (32 - log_n) : i;
        ntt_sm_store(sm, E, e, in[src]);
    }
    __syncthreads();
    for (unsigned t = 0; t < k; t++) {
        const uint32_t h = 1u << t;
        const F *tws = tw + (1u << (s + t));
        for (uint32_t q = threadIdx.x; q < E / 2; q += blockDim.x) {
            uint32_t lo = q & (lw - 1), mq = q >> l;
            uint32_t mid0 = ((mq >> t) << (t + 1)) | (mq & (h - 1));
            uint32_t e0 = (mid0 << l) | lo, e1 = ((mid0 + h) << l) | lo;
            uint32_t j = ((mq & (h - 1)) << s) | (lo_grp << l) | lo;
            F a = ntt_sm_load<F>(sm, E, e0), c = ntt_sm_load<F>(sm, E, e1);
            if (j)
                c = c * tws[j];
            ntt_sm_store(sm, E, e0, a + c);
            ntt_sm_store(sm, E, e1, a - c);
        }
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t i = base + ((e >> l) << s) + (e & (lw - 1));
        out[i] = ntt_sm_load<F>(sm, E, e);
    }
}

/* v[i] ← f_i · v[(n − i) mod n] for all i (in place), f_i = cz[i] or the
 * constant *c: turns a forward transform into the inverse (×1/n) or into the
 * coset-scaled inverse of the LDE. One thread per pair {i, n−i}. */
template <class F>
__global__ void ntt_reverse_scale(F *v, size_t n, const F *cz, const F *c)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n / 2)
        return;
    size_t j = (n - i) & (n - 1);
    F fi = cz ? cz[i] : *c, fj = cz ? cz[j] : *c;
    F a = v[i];
    if (i == j) {
        v[i] = a * fi;
        return;
    }
    F b = v[j];
    v[i] = b * fi;
    v[j] = a * fj;
}

/* dst[i] ← cz[i] · src[(n − i) mod n] (out of place, dst ≠ src). */
template <class F>
__global__ void ntt_reverse_scale_to(F *dst, const F *src, size_t n, const F *cz)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[(n - i) & (n - 1)] * cz[i];
}

#endif
