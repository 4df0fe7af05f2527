/*
 * ntt.cuh — the NTT over Fr on the GPU, the same transform as
 * common/ntt_tmpl.h (decimation in time over bit-reversed input, twiddles
 * ω_{2h}^j at the stage of half-size h, ω_n = 5^((r−1)/n), snarkjs's coset
 * shift), so outputs match the CPU backend bit for bit.
 *
 * A pass loads a tile of 2^k·2^l elements into shared memory, runs k stages
 * on it and writes it back: the 2^k elements 2^s apart for 2^l consecutive
 * low indices (l ≤ 4: 512-byte runs in device memory). The first pass reads
 * its input at bit-reversed positions, so no separate permutation runs.
 * ntt_pass runs one stage at a time, a thread per butterfly (2^24 in four
 * passes: 9 + 5 + 5 + 5 stages), with the tile word-sliced in shared
 * memory (word w of element e at w·E + e) so a warp's threads hit
 * different banks; ntt_pass_r (below, the default) keeps 4 or 8 elements
 * a thread in registers across stages (2^24 in three passes, 10 + 7 + 7).
 *
 * Tables on the device (gpu_ntt_create): tw[2^s + j] = ω_{2^(s+1)}^j for the
 * stage of half-size 2^s (n entries in all, each computed from a table of
 * ω^(2^b)), and for the coset LDE's factors shift^i / n two half tables
 * (ntt_coset_factor): cz[k] = shift^k / n for k < 2^L and cz[2^L + m] =
 * shift^(m·2^L), L = ⌈log_n / 2⌉ (2^14 + 2^13 entries at 2^27 instead of
 * 2^27).
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

/* The twiddle ω_{2^(S+1)}^j of the stage of half-size 2^S. HALF false:
 * tw[2^S + j] (the domain-sized table). HALF true, a compact domain's two
 * half tables (gpu_ntt_create_compact): ω_{2^(S+1)}^j = ω_n^e with
 * e = j·2^(log_n−1−S), = tw[e mod 2^L] · tw[2^L + (e >> L)] (L = ⌈log_n/2⌉:
 * tw[k] = ω_n^k, tw[2^L + m] = ω_n^(m·2^L)), one more product. */
template <class F, bool HALF>
FF_INLINE F ntt_twiddle(const F *tw, unsigned log_n, unsigned S, uint32_t j)
{
    if (!HALF)
        return tw[(1u << S) + j];
    const unsigned L = (log_n + 1) / 2;
    const uint32_t ex = j << (log_n - 1 - S);
    return tw[ex & ((1u << L) - 1)] * tw[(1u << L) + (ex >> L)];
}

/* Stages s .. s+k−1 over tiles of 2^(k+l) elements (see the file comment).
 * first: read in at bit-reversed indices (in ≠ out); else in == out.
 * HALF: the twiddles of a compact domain (ntt_twiddle). */
template <class F, bool HALF = false>
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
        for (uint32_t q = threadIdx.x; q < E / 2; q += blockDim.x) {
            uint32_t lo = q & (lw - 1), mq = q >> l;
            uint32_t mid0 = ((mq >> t) << (t + 1)) | (mq & (h - 1));
            uint32_t e0 = (mid0 << l) | lo, e1 = ((mid0 + h) << l) | lo;
            uint32_t j = ((mq & (h - 1)) << s) | (lo_grp << l) | lo;
            F a = ntt_sm_load<F>(sm, E, e0), c = ntt_sm_load<F>(sm, E, e1);
            if (j)
                c = c * ntt_twiddle<F, HALF>(tw, log_n, s + t, j);
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

/* ---- radix-4 and radix-8 passes: two or three stages a round trip ----
 *
 * The same tiles (2^k stages × 2^l columns, tile index e = m·2^l + c), but
 * each thread holds R = 2^LR elements (LR = 2 or 3) in registers and runs up
 * to LR stages on them before they go back to shared memory: the stages are
 * taken in groups of LR (the last group of a pass with k mod LR ≠ 0
 * re-takes the window of the top LR m bits and runs only the stages it has
 * not run). For the group whose window is m bits w..w+LR−1 (tile bits
 * p = l + w and up), the thread's register r holds tile element
 *   e(r) = (tid mod 2^p) | r·2^p | ⌊tid / 2^p⌋·2^(p+LR),
 * so the stage on m bit w+q pairs registers r and r + 2^q. The first group
 * reads its elements straight from device memory (bit-reversed in the
 * first pass), the last one writes them straight back; between groups they
 * pass through shared memory as two 16-byte halves, half h of element e at
 * 16-byte slot h·E + ntt_slot(e), a swizzle that keeps a quarter warp's
 * eight accesses in eight bank quads for every window position. Twiddles
 * come from the same table tw as ntt_pass, the distinct ones of a stage
 * (2^q of them) loaded once per thread.
 *
 * On an H200 at 2^24 (best of 5; 2026-11-30): radix 4 6.04 ms (BN254),
 * 6.26 ms (BLS12-381); ntt_pass 6.26 / 6.45; radix 8 7.33 / 7.79 (102
 * registers a thread: half the resident warps, and the field products'
 * serial carry chains need them); at 2^20 0.357 against 0.438 ms (one pass
 * fewer). Requesting each pass's twiddles ahead (prefetch.global.L1) made
 * both slower: the passes are bound by the products' instructions, not by
 * memory. With ff.cuh's even/odd product (a third of the instructions),
 * the same day: radix 4 with 2^9-element tiles 3.99 / 4.40 ms (four passes,
 * 9 + 5 + 5 + 5), with 2^10 4.21 / 4.60, with 2^11 5.48 / 5.97; radix 8
 * with 2^9, 2^10, 2^11: 4.28 / 4.85, 4.01 / 4.57, 4.25 / 4.75 ms.
 *
 * Only the exact transform matters: field elements are canonical, so any
 * order of the same butterflies gives the same bytes as the CPU backend. */
#define NTT4_TILE_LOG_DEFAULT 9  /* radix 4: 2^9 elements, 16 KiB, 128 threads */
#define NTT8_TILE_LOG_DEFAULT 10 /* radix 8: 2^10 elements, 32 KiB, 128 threads */
#define NTT8_TILE_LOG 11         /* at most: 64 KiB */
/* Two blocks of the most threads an SM: radix 4 (2 × 512 threads) gets at
 * most 64 registers a thread where it took 74 (8 bytes spilled), 3.88
 * against 4.00 ms at 2^24 on an H200 (both curves, same run; with the
 * bound, 2^10-element tiles took 4.00 / 4.05 ms and 2^11 4.44 / 4.42 against
 * 3.85 / 3.88 for 2^9, BN254 / BLS12-381); radix 8
 * (2 × 256) at most 128: it takes 126–128 so (its figures above were taken
 * at 103–106 registers, without the bound). */
#define NTT_R_MIN_BLOCKS(LR) 2

template <class F> FF_INLINE F ntt_ld32(const F *p)
{
    static_assert(sizeof(F) == 32, "ntt_ld32: 8-limb elements");
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = q[0], b = q[1];
    F x;
    x.v[0] = a.x, x.v[1] = a.y, x.v[2] = a.z, x.v[3] = a.w;
    x.v[4] = b.x, x.v[5] = b.y, x.v[6] = b.z, x.v[7] = b.w;
    return x;
}

template <class F> FF_INLINE F ntt_ldg32(const F *p)
{
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = __ldg(q), b = __ldg(q + 1);
    F x;
    x.v[0] = a.x, x.v[1] = a.y, x.v[2] = a.z, x.v[3] = a.w;
    x.v[4] = b.x, x.v[5] = b.y, x.v[6] = b.z, x.v[7] = b.w;
    return x;
}

template <class F> FF_INLINE void ntt_st32(F *p, const F &x)
{
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    q[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

/* The 16-byte slot of tile element e (see above): a swizzle of e's low
 * three bits that keeps a quarter warp's eight accesses in eight different
 * bank quads for every window position (checked exhaustively for tiles of
 * 2^8..2^11): for 8 elements a thread, e ⊕ (⌊e/8⌋ mod 8); for 4, bits 3
 * and 4 of e flip bits (0, 2) and (1, 2). */
template <int LR> FF_INLINE uint32_t ntt_slot(uint32_t e)
{
    if (LR == 3)
        return e ^ ((e >> 3) & 7);
    uint32_t e3 = (e >> 3) & 1, e4 = (e >> 4) & 1;
    return e ^ (e3 | (e4 << 1) | ((e3 ^ e4) << 2));
}

template <class F, int LR, bool HALF = false>
__global__ void __launch_bounds__(1u << (NTT8_TILE_LOG - LR), NTT_R_MIN_BLOCKS(LR))
    ntt_pass_r(F *out, const F *in, const F *tw, unsigned log_n, unsigned s, unsigned k, unsigned l,
               int first)
{
    constexpr unsigned R = 1u << LR;
    extern __shared__ uint4 sm4[];
    const uint32_t E = 1u << (k + l), lmask = (1u << l) - 1;
    const uint32_t lo_groups_log = s - l;
    const uint32_t blk = blockIdx.x, tid = threadIdx.x;
    const uint32_t lo_grp = blk & ((1u << lo_groups_log) - 1), hi = blk >> lo_groups_log;
    const uint32_t base = (hi << (s + k)) | (lo_grp << l);
    F x[R];
    for (unsigned t = 0; t < k; t += LR) {
        const unsigned w = t + LR <= k ? t : k - LR, q0 = t - w, p = l + w;
        const uint32_t tlo = tid & ((1u << p) - 1), thi = (tid >> p) << (p + LR);
        if (t == 0) {
#pragma unroll
            for (unsigned r = 0; r < R; r++) {
                uint32_t e = tlo | (r << p) | thi;
                uint32_t i = base + ((e >> l) << s) + (e & lmask);
                x[r] = ntt_ld32(in + (first ? __brev(i) >> (32 - log_n) : i));
            }
        } else {
#pragma unroll
            for (unsigned r = 0; r < R; r++) {
                uint32_t ph = ntt_slot<LR>(tlo | (r << p) | thi);
                uint4 a = sm4[ph], b = sm4[E + ph];
                x[r].v[0] = a.x, x[r].v[1] = a.y, x[r].v[2] = a.z, x[r].v[3] = a.w;
                x[r].v[4] = b.x, x[r].v[5] = b.y, x[r].v[6] = b.z, x[r].v[7] = b.w;
            }
        }
#pragma unroll
        for (unsigned q = 0; q < LR; q++) {
            if (q < q0)
                continue;
            const uint32_t S = s + w + q; /* stage of half-size 2^S */
            if (S == 0) {
#pragma unroll
                for (unsigned r = 0; r < R; r += 2) {
                    F a = x[r], c = x[r + 1];
                    x[r] = a + c;
                    x[r + 1] = a - c;
                }
                continue;
            }
            const uint32_t smask = (1u << S) - 1;
            F wv[R / 2];
#pragma unroll
            for (unsigned d = 0; d < (1u << q); d++) {
                uint32_t e = tlo | (d << p) | thi;
                uint32_t i = base + ((e >> l) << s) + (e & lmask);
                wv[d] = HALF ? ntt_twiddle<F, true>(tw, log_n, S, i & smask)
                             : ntt_ldg32(tw + (1u << S) + (i & smask));
            }
#pragma unroll
            for (unsigned r = 0; r < R; r++) {
                if (r & (1u << q))
                    continue;
                F a = x[r], c = x[r | (1u << q)] * wv[r & ((1u << q) - 1)];
                x[r] = a + c;
                x[r | (1u << q)] = a - c;
            }
        }
        if (t + LR >= k) {
#pragma unroll
            for (unsigned r = 0; r < R; r++) {
                uint32_t e = tlo | (r << p) | thi;
                uint32_t i = base + ((e >> l) << s) + (e & lmask);
                ntt_st32(out + i, x[r]);
            }
        } else {
#pragma unroll
            for (unsigned r = 0; r < R; r++) {
                uint32_t ph = ntt_slot<LR>(tlo | (r << p) | thi);
                sm4[ph] = make_uint4(x[r].v[0], x[r].v[1], x[r].v[2], x[r].v[3]);
                sm4[E + ph] = make_uint4(x[r].v[4], x[r].v[5], x[r].v[6], x[r].v[7]);
            }
            __syncthreads();
        }
    }
}

/* shift^i / n from the two half tables of cz (see the file comment). */
template <class F> FF_INLINE F ntt_coset_factor(const F *cz, unsigned L, size_t i)
{
    return cz[i & (((size_t)1 << L) - 1)] * cz[((size_t)1 << L) + (i >> L)];
}

/* v[i] ← f_i · v[(n − i) mod n] for all i (in place), f_i = shift^i / n
 * (cz, L: ntt_coset_factor) or the constant *c (cz NULL): turns a forward
 * transform into the inverse (×1/n) or into the coset-scaled inverse of the
 * LDE. One thread per pair {i, n−i}. */
template <class F>
__global__ void ntt_reverse_scale(F *v, size_t n, const F *cz, unsigned L, const F *c)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n / 2)
        return;
    size_t j = (n - i) & (n - 1);
    F fi = cz ? ntt_coset_factor(cz, L, i) : *c, fj = cz ? ntt_coset_factor(cz, L, j) : *c;
    F a = v[i];
    if (i == j) {
        v[i] = a * fi;
        return;
    }
    F b = v[j];
    v[i] = b * fi;
    v[j] = a * fj;
}

/* v[i] ↔ v[bitrev(i)] for all i (in place; log_n bits): the permutation
 * the first pass otherwise reads through, so that an in-place transform's
 * passes can all read and write one buffer (each pass's block reads its
 * whole tile before it writes it back). One thread per index. */
template <class F> __global__ void ntt_bitrev_inplace(F *v, size_t n, unsigned log_n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    size_t j = __brev((uint32_t)i) >> (32 - log_n);
    if (i < j) {
        F a = v[i];
        v[i] = v[j];
        v[j] = a;
    }
}

/* dst[i] ← shift^i / n · src[(n − i) mod n] (out of place, dst ≠ src). */
template <class F>
__global__ void ntt_reverse_scale_to(F *dst, const F *src, size_t n, const F *cz, unsigned L)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[(n - i) & (n - 1)] * ntt_coset_factor(cz, L, i);
}

#endif
