/*
 * msm_kernels.cuh — the device half of the Pippenger MSM (msm.cuh drives
 * it). For a window size c, m = 2^(c−1) buckets per window, W windows:
 *
 *  1. msm_digits: each scalar → W signed digits d ∈ [−m, m] (a digit above m
 *     becomes d − 2^c and carries one into the next window); a nonzero digit
 *     becomes the pair key = w·m + |d| − 1, value = point index | sign<<31,
 *     appended compactly; zero digits make no pair (a 0 or 1 scalar costs
 *     no pair or one pair, not W).
 *  2. CUB radix sort of the M pairs by key (msm.cuh).
 *  3. msm_chunk_sum: the sorted pairs are cut into equal chunks of K; each
 *     thread adds its chunk's points (negated for a negative digit) into one
 *     partial sum per run of equal keys, in XYZZ coordinates. Equal chunks
 *     keep a warp's threads in step whatever the bucket sizes are.
 *  4. msm_run_sum, repeated: the partials of one key are summed in groups of
 *     K2 until each key has one sum (a bucket of any size takes a few rounds);
 *     msm_group_runs maps each group to its run (no search per thread).
 *  5. msm_scatter into the dense bucket array (others stay infinity).
 *  6. msm_window_segments: per window, buckets are split into segments of L;
 *     each thread forms Σ_k (k+1)·B_k over its segment with the running-sum
 *     trick; the segments' plain sums are the next level's input (weights
 *     0, 1, 2, ...) while there are many of them, the last level adds
 *     (segment start)·(segment sum) by double-and-add (msm_window_shift);
 *     msm_tree_sum adds each level's segments and msm_window_combine folds
 *     the levels: S = R_1 + L·(R_2 + L·(...)).
 * The host then forms Σ_w 2^(w·c)·S_w (msm.cuh).
 */
#ifndef SLOTPROVE_CUDA_MSM_KERNELS_CUH
#define SLOTPROVE_CUDA_MSM_KERNELS_CUH

#include "ec.cuh"

#define MSM_SIGN (1u << 31)

/* The signed c-bit digit of window w of the 9-word scalar s (s[8] = 0),
 * given the carry out of window w − 1; sets the carry into window w + 1 and
 * the sign bit (MSM_SIGN for a negative digit). */
static __device__ __forceinline__ uint32_t msm_digit(const uint32_t *s, unsigned w, unsigned c,
                                                     uint32_t &carry, uint32_t &neg)
{
    uint32_t half = 1u << (c - 1), full = 1u << c;
    unsigned off = w * c, lo = off >> 5, sh = off & 31;
    uint64_t x = ((uint64_t)s[lo] | (uint64_t)s[lo + 1] << 32) >> sh;
    uint32_t d = ((uint32_t)x & (full - 1)) + carry;
    neg = 0;
    carry = 0;
    if (d > half) {
        d = full - d;
        neg = MSM_SIGN;
        carry = 1;
    }
    return d;
}

/* Scalars base+i for i in [first, end) of a part (8 words each): their
 * nonzero digits only, appended at *count (pairs keys/vals, in no
 * particular order: the sort that follows orders them). A zero digit costs
 * nothing after this kernel, neither in the sort nor in the sums: the 0
 * and 1 scalars of a witness (most of a SHA-256 circuit's, most of PoRep's)
 * add no pair or one pair instead of W. Each block reserves its threads'
 * pairs with one atomicAdd (a scan of the threads' counts in the block).
 * Launched with 256 threads a block. */
static __global__ void __launch_bounds__(256) msm_digits(const uint4 *scalars, uint32_t base, uint32_t first,
                                                         uint32_t end, unsigned c, unsigned nwin,
                                                         uint32_t *keys, uint32_t *vals,
                                                         unsigned long long *count)
{
    __shared__ uint32_t warp_sum[8];
    __shared__ uint32_t block_base;
    uint32_t i = first + blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t s[9] = {};
    unsigned nz = 0;
    if (i < end) {
        uint4 a = scalars[2 * (base + i)], b = scalars[2 * (base + i) + 1];
        s[0] = a.x; s[1] = a.y; s[2] = a.z; s[3] = a.w;
        s[4] = b.x; s[5] = b.y; s[6] = b.z; s[7] = b.w;
        uint32_t carry = 0, neg;
        for (unsigned w = 0; w < nwin; w++)
            nz += msm_digit(s, w, c, carry, neg) != 0;
    }
    /* the block's exclusive scan of nz: within each warp, then the warps' totals */
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, incl = nz;
    for (unsigned d = 1; d < 32; d <<= 1) {
        unsigned v = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d)
            incl += v;
    }
    if (lane == 31)
        warp_sum[warp] = incl;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t t = 0;
        for (unsigned k = 0; k < blockDim.x / 32; k++) {
            uint32_t v = warp_sum[k];
            warp_sum[k] = t;
            t += v;
        }
        block_base = t ? (uint32_t)atomicAdd(count, (unsigned long long)t) : 0;
    }
    __syncthreads();
    if (!nz)
        return;
    uint32_t o = block_base + warp_sum[warp] + incl - nz;
    uint32_t half = 1u << (c - 1), carry = 0, neg;
    for (unsigned w = 0; w < nwin; w++) {
        uint32_t d = msm_digit(s, w, c, carry, neg);
        if (d) {
            keys[o] = w * half + d - 1;
            vals[o] = (base + i) | neg;
            o++;
        }
    }
}

/* cnt[t] = number of runs of equal keys that meet chunk t = [tK, tK+K) ∩ [0, M). */
static __global__ void msm_chunk_count(const uint32_t *keys, uint32_t M, uint32_t K, uint32_t nchunks,
                                uint32_t *cnt)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nchunks)
        return;
    uint32_t b = t * K, e = min(b + K, M), c = 1;
    for (uint32_t i = b + 1; i < e; i++)
        c += keys[i] != keys[i - 1];
    cnt[t] = c;
}

/* Partial sums of chunk t, one per run, written at off[t], off[t]+1, ... */
template <class F>
__global__ void __launch_bounds__(128) msm_chunk_sum(const uint32_t *keys, const uint32_t *vals,
                                                     uint32_t M, uint32_t K, uint32_t nchunks,
                                                     const uint32_t *off, const affine<F> *points,
                                                     uint32_t *out_keys, xyzz<F> *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nchunks)
        return;
    uint32_t b = t * K, e = min(b + K, M), o = off[t];
    uint32_t cur = keys[b];
    xyzz<F> acc = xyzz_inf<F>();
    uint32_t v = vals[b];
    affine<F> p = points[v & ~MSM_SIGN];
    for (uint32_t i = b; i < e; i++) {
        uint32_t k = keys[i];
        affine<F> q = p;
        uint32_t sign = v & MSM_SIGN;
        if (i + 1 < e) { /* fetch the next point while this one is added */
            v = vals[i + 1];
            p = points[v & ~MSM_SIGN];
        }
        if (k != cur) {
            out_keys[o] = cur;
            out[o] = acc;
            o++;
            acc = xyzz_inf<F>();
            cur = k;
        }
        if (sign)
            q = affine_neg(q);
        acc = xyzz_add_affine(acc, q);
    }
    out_keys[o] = cur;
    out[o] = acc;
}

/* flags[i] = 1 where a run of equal keys starts. */
static __global__ void msm_run_flags(const uint32_t *keys, uint32_t S, uint8_t *flags)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S)
        flags[i] = i == 0 || keys[i] != keys[i - 1];
}

/* nch[r] = ⌈len_r / K⌉ for the D runs starting at starts[r] (list length S). */
static __global__ void msm_run_chunks(const uint32_t *starts, uint32_t D, uint32_t S, uint32_t K,
                               uint32_t *nch)
{
    uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= D)
        return;
    uint32_t len = (r + 1 < D ? starts[r + 1] : S) - starts[r];
    nch[r] = (len + K - 1) / K;
}

/* grp[g] = r for the groups g of run r: co[r] ≤ g < co[r+1] (co has D+1
 * entries). */
static __global__ void msm_group_runs(const uint32_t *co, uint32_t D, uint32_t *grp)
{
    uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= D)
        return;
    for (uint32_t g = co[r], e = co[r + 1]; g < e; g++)
        grp[g] = r;
}

/* Output g (of C) = sum of the g-th group of ≤ K entries of its run
 * r = grp[g]. */
template <class F>
__global__ void __launch_bounds__(128) msm_run_sum(const uint32_t *keys, const xyzz<F> *in,
                                                   uint32_t S, const uint32_t *starts, uint32_t D,
                                                   const uint32_t *co, const uint32_t *grp, uint32_t C,
                                                   uint32_t K, uint32_t *out_keys, xyzz<F> *out)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= C)
        return;
    uint32_t r = grp[g];
    uint32_t run_end = r + 1 < D ? starts[r + 1] : S;
    uint32_t b = starts[r] + (g - co[r]) * K, e = min(b + K, run_end);
    xyzz<F> acc = in[b];
    for (uint32_t i = b + 1; i < e; i++)
        acc = xyzz_add(acc, in[i]);
    out_keys[g] = keys[b];
    out[g] = acc;
}

static __global__ void msm_sequence(uint32_t *x, uint32_t S)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S)
        x[i] = i;
}

/* buckets[keys[i]] = in[i], or += in[i] when add (keys are distinct). */
template <class F>
static __global__ void msm_scatter(const uint32_t *keys, const xyzz<F> *in, uint32_t S, xyzz<F> *buckets,
                                   int add)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S)
        buckets[keys[i]] = add ? xyzz_add(buckets[keys[i]], in[i]) : in[i];
}

/* For segment s of L entries of its window's array X_w (len entries per
 * window, T = len/L segments, g = w·T + s):
 *   part[g] = Σ_{k<L} (k+b)·X_w[sL + k]  (running sums from the top)
 *   seg[g]  = Σ_{k<L} X_w[sL + k]
 * so Σ_j (j+b)·X_w[j] = Σ_s part[w·T + s] + L·Σ_s s·seg[w·T + s]. The
 * bucket array is level 1 (b = 1: bucket j holds digit j+1); each level's
 * seg is the next level's X with b = 0 while T is large; the last level adds
 * its L·Σ_s s·seg_s term directly (msm_window_shift), and
 * msm_window_combine folds the levels' sums. A level's serial depth is 2L
 * additions, so the levels stop early (msm.cuh) where few threads would
 * run them. */
template <class F>
__global__ void __launch_bounds__(128) msm_window_segments(const xyzz<F> *X, uint32_t len,
                                                           uint32_t nwin, uint32_t L, int b,
                                                           xyzz<F> *part, xyzz<F> *seg)
{
    uint32_t T = len / L;
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nwin * T)
        return;
    uint32_t w = g / T, s = g % T;
    const xyzz<F> *x = X + (size_t)w * len + (size_t)s * L;
    xyzz<F> acc = xyzz_inf<F>(), tot = xyzz_inf<F>();
    for (int k = L - 1; k >= 0; k--) {
        if (!b)
            tot = xyzz_add(tot, acc);
        acc = xyzz_add(acc, x[k]);
        if (b)
            tot = xyzz_add(tot, acc);
    }
    part[g] = tot;
    seg[g] = acc;
}

/* part[g] += (s·L)·seg[g] for segment s = g mod T (double-and-add): ends
 * the levels when few segments are left (then Σ_s part[w·T + s] is the
 * level's whole sum). */
template <class F>
__global__ void __launch_bounds__(128) msm_window_shift(xyzz<F> *part, const xyzz<F> *seg,
                                                        uint32_t T, uint32_t nwin, uint32_t L)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nwin * T)
        return;
    uint32_t f = (g % T) * L;
    if (!f)
        return;
    xyzz<F> r = seg[g], x = r;
    for (int bit = 30 - __clz(f); bit >= 0; bit--) {
        x = xyzz_dbl(x);
        if ((f >> bit) & 1)
            x = xyzz_add(x, r);
    }
    part[g] = xyzz_add(part[g], x);
}

/* One thread per window: win[w] = R_1 + L_1·(R_2 + L_2·(R_3 + ...)), R_l =
 * lvl[l][w·T_l] (each level's part array, tree-summed), L_l = 2^lb[l]. */
#define MSM_MAX_LEVELS 8
struct msm_levels {
    void *part[MSM_MAX_LEVELS];
    uint32_t T[MSM_MAX_LEVELS], lb[MSM_MAX_LEVELS];
    int n;
};
template <class F>
__global__ void msm_window_combine(msm_levels lv, uint32_t nwin, xyzz<F> *win)
{
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwin)
        return;
    int top = lv.n - 1;
    xyzz<F> acc = ((const xyzz<F> *)lv.part[top])[(size_t)w * lv.T[top]];
    for (int l = top - 1; l >= 0; l--) {
        for (uint32_t i = 0; i < lv.lb[l]; i++)
            acc = xyzz_dbl(acc);
        acc = xyzz_add(acc, ((const xyzz<F> *)lv.part[l])[(size_t)w * lv.T[l]]);
    }
    win[w] = acc;
}

/* part[w·T + i] += part[w·T + i + h] for i < h (one tree level). */
template <class F>
__global__ void __launch_bounds__(128) msm_tree_sum(xyzz<F> *part, uint32_t T, uint32_t h,
                                                    uint32_t nwin)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nwin * h)
        return;
    uint32_t w = g / h, i = g % h;
    xyzz<F> *p = part + (size_t)w * T;
    p[i] = xyzz_add(p[i], p[i + h]);
}

#endif
