/*
 * msm.cuh — the host half of the GPU Pippenger MSM: buffers, window size,
 * the launch sequence of msm_kernels.cuh, and the final Horner sum of the
 * window sums on the CPU (W·c doublings: cheaper there than on one GPU
 * thread). Instantiated once per group in bn254_g1_msm.cu etc. with a group
 * description G:
 *   G::F                 coordinate field (fields.cuh)
 *   G::scalar_bits       bit length of r (254 for BN254, 255 for BLS12-381)
 *   G::group             its enum gpu_group (the window model's weights)
 *   G::combine(ret, win, nwin, c)  host: ret (CPU jac_t) = Σ 2^(w·c)·win[w]
 */
#ifndef SLOTPROVE_CUDA_MSM_CUH
#define SLOTPROVE_CUDA_MSM_CUH

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cub/cub.cuh>

#include "gpu_types.h"
#include "gpu_util.cuh"
#include "msm_kernels.cuh"

/* Windows needed for c-bit signed digits of a bits-bit scalar: the top
 * digit's carry must land in a window, so W·c ≥ bits + 1. */
static inline unsigned msm_nwin(unsigned bits, unsigned c)
{
    return (bits + 1 + c - 1) / c;
}

/* The window size that minimizes a cost model of the whole MSM: per window,
 * n bucket additions (mixed adds plus sort traffic, weight 2) and 2^(c−1)
 * buckets to reduce (two full adds each plus the segment overhead, weight
 * msm_bucket_weight). The weights are measured ratios on an H200 at 2^24
 * (2026-11-30, after the even/odd field product; best of 5 at each c):
 * BN254 G1 58.5 ms at c = 17 against 60.7 (16) and 63.4 (18), BN254 G2
 * 147.0 at 17 against 153.5 (16) and 153.6 (18): weight 13 picks 17;
 * BLS12-381 G1 116.7 ms at 20 against 119.4 (19) and 123.3 (18): weight 10
 * picks 20; BLS12-381 G2 348.4 ms at 17 against 363.9 (18), 402.9 (19) and
 * 467.9 (20), its window reduction (G2 full adds over 2^(c−1) buckets) the
 * costliest: weight 40. */
static inline double msm_bucket_weight(enum gpu_group g)
{
    switch (g) {
    case GPU_BLS12381_G1: return 10.0;
    case GPU_BLS12381_G2: return 40.0;
    default: return 13.0;
    }
}

static inline unsigned msm_scalar_bits(enum gpu_group g)
{
    return g == GPU_BN254_G1 || g == GPU_BN254_G2 ? 254 : 255;
}

static inline unsigned msm_choose_window(enum gpu_group g, size_t n)
{
    const unsigned bits = msm_scalar_bits(g);
    const double wb = msm_bucket_weight(g);
    unsigned best = 4;
    double best_cost = 1e300;
    for (unsigned c = 4; c <= 22; c++) {
        double cost = (double)msm_nwin(bits, c) * ((double)n * 2.0 + (double)(1u << (c - 1)) * wb);
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

/* A tuning override from the environment: $name as a number in [lo, hi]
 * (a power of two when pow2), else def. Read once per process. */
static inline unsigned msm_tune(const char *name, unsigned def, unsigned lo, unsigned hi, bool pow2)
{
    const char *s = getenv(name);
    unsigned v = s ? (unsigned)atoi(s) : def;
    if (v < lo || v > hi || (pow2 && (v & (v - 1))))
        return def;
    return v;
}

/* Whether F is a G2 coordinate field (Fp2). */
template <class F> struct msm_is_g2 {
    static constexpr bool value = false;
};
template <class P> struct msm_is_g2<fp2<P>> {
    static constexpr bool value = true;
};

/* The scalar upload goes in this many pieces, each piece's digits computed
 * while the next one is copied. */
#define MSM_UPLOAD_PIECES 8
/* From this many scalars on, the MSM runs in two parts (see run). */
#define MSM_SPLIT_MIN ((size_t)1 << 21)

struct msm_engine_base {
    virtual ~msm_engine_base() {}
    virtual int run(void *ret, size_t first, const void *scalars, size_t n, unsigned c,
                    struct sp_err *e) = 0;
    virtual unsigned window_bits(size_t n) = 0;
};

template <class G> struct msm_engine : msm_engine_base {
    typedef typename G::F F;
    size_t n_max = 0, cap_scalars = 0;
    affine<F> *points = nullptr;
    /* working buffers, sized for the largest (n, c) seen so far */
    size_t cap_np = 0, cap_chunks = 0, cap_list = 0, cap_buckets = 0, cap_part = 0, cap_temp = 0;
    uint32_t *scalars = nullptr, *keys[2] = {}, *vals[2] = {}, *cnt = nullptr, *off = nullptr;
    uint32_t *lkeys[2] = {}, *seq = nullptr, *starts = nullptr, *nch = nullptr, *co = nullptr;
    uint8_t *flags = nullptr;
    xyzz<F> *list[2] = {}, *buckets = nullptr, *part = nullptr, *seg = nullptr, *win = nullptr;
    void *temp = nullptr;
    unsigned long long *counters = nullptr; /* [0] zero digits, [1] selected */
    cudaStream_t copy_stream = nullptr;     /* scalar upload, overlapping the digits */
    cudaEvent_t piece_done[MSM_UPLOAD_PIECES] = {};
    cudaEvent_t prof[8] = {};
    bool profile = false;

    ~msm_engine() override
    {
        cudaFree(points);
        release();
        cudaFree(scalars);
        cudaFree(counters);
        cudaFree(win);
        for (cudaEvent_t ev : piece_done)
            if (ev)
                cudaEventDestroy(ev);
        for (cudaEvent_t ev : prof)
            if (ev)
                cudaEventDestroy(ev);
        if (copy_stream)
            cudaStreamDestroy(copy_stream);
    }

    void release()
    {
        void *p[] = { keys[0], keys[1], vals[0], vals[1], cnt, off, lkeys[0], lkeys[1], seq,
                      starts, nch, co, flags, list[0], list[1], buckets, part, seg, temp };
        for (void *x : p)
            cudaFree(x);
        keys[0] = keys[1] = vals[0] = vals[1] = cnt = off = lkeys[0] = lkeys[1] = nullptr;
        seq = starts = nch = co = nullptr;
        flags = nullptr;
        list[0] = list[1] = buckets = part = seg = nullptr;
        temp = nullptr;
        cap_np = cap_chunks = cap_list = cap_buckets = cap_part = cap_temp = 0;
    }

    /* $SLOTPROVE_MSM_WINDOW (2..24) overrides the model for tuning runs */
    unsigned window_bits(size_t n) override
    {
        static const unsigned forced = msm_tune("SLOTPROVE_MSM_WINDOW", 0, 2, 24, false);
        return forced ? forced : msm_choose_window(G::group, n);
    }

    static uint32_t chunk_size(size_t np)
    {
        /* enough chunks to fill the GPU (132 SMs × 2048 threads), at most 128
         * (longer chunks leave fewer partial sums for msm_run_sum) */
        static const uint32_t cap = msm_tune("SLOTPROVE_MSM_CHUNK", 128, 4, 4096, false);
        size_t k = np / (132 * 2048);
        return (uint32_t)(k < 4 ? 4 : k > cap ? cap : k);
    }
    static const uint32_t run_group = 16; /* K2 of msm_run_sum */
    /* A window-sum level with at most this many segments a window ends the
     * levels (msm_window_shift): its threads are too few to hide another
     * level's 2L-addition depth. */
    static const uint32_t seg_levels_max = 2048;
    /* L of msm_window_segments; $SLOTPROVE_MSM_SEG for tuning runs. 16:
     * BLS12-381 G1 at 2^24 (c = 19) took 19.0 ms for the window sums on an
     * H200 with L = 16, 22.4 ms with 32, 27.8 ms with 64. */
    static uint32_t seg_len()
    {
        static const uint32_t L = msm_tune("SLOTPROVE_MSM_SEG", 16, 4, 1024, true);
        return L;
    }

    /* Uploads k host point arrays back to back (counts[i] points each); the
     * working buffers are sized for the largest single array. */
    int create(const void *const *arrays, const size_t *counts, unsigned k, struct sp_err *e)
    {
        size_t n = 0, largest = 0;
        for (unsigned i = 0; i < k; i++) {
            n += counts[i];
            largest = counts[i] > largest ? counts[i] : largest;
        }
        n_max = n;
        CU_TRY(cudaMalloc(&points, n * sizeof(affine<F>)), e, "points");
        size_t at = 0;
        for (unsigned i = 0; i < k; at += counts[i], i++)
            CU_TRY(cudaMemcpy(points + at, arrays[i], counts[i] * sizeof(affine<F>),
                              cudaMemcpyHostToDevice),
                   e, "points upload");
        n = largest;
        cap_scalars = n;
        CU_TRY(cudaMalloc(&scalars, n * 32), e, "scalars");
        CU_TRY(cudaMalloc(&counters, 2 * sizeof(unsigned long long)), e, "counters");
        CU_TRY(cudaMalloc(&win, 64 * sizeof(xyzz<F>)), e, "window sums");
        CU_TRY(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking), e, "copy stream");
        for (cudaEvent_t &ev : piece_done)
            CU_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), e, "events");
        profile = getenv("SLOTPROVE_MSM_PROFILE") != nullptr;
        if (profile)
            for (cudaEvent_t &ev : prof)
                CU_TRY(cudaEventCreate(&ev), e, "events");
        return ensure(n, window_bits(n), e);
    }

    int ensure(size_t n, unsigned c, struct sp_err *e)
    {
        unsigned nwin = msm_nwin(G::scalar_bits, c);
        size_t m = (size_t)1 << (c - 1);
        size_t np = n * nwin;
        size_t chunks = (np + chunk_size(np) - 1) / chunk_size(np) + 1;
        size_t lst = chunks + nwin * m + 1;
        size_t bk = nwin * m;
        size_t prt = 2 * nwin * (m > seg_len() ? m / seg_len() : 1); /* all levels */
        size_t tmp = 0, t;
        if (np > 0x7fffffffu)
            return sp_fail(e, -EINVAL, "gpu msm: %zu points × %u windows is too many pairs", n, nwin);
        CU_TRY(cub::DeviceRadixSort::SortPairs(nullptr, t, (uint32_t *)0, (uint32_t *)0, (uint32_t *)0,
                                               (uint32_t *)0, (int)np, 0, 32),
               e, "sort size");
        tmp = t > tmp ? t : tmp;
        CU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, t, (uint32_t *)0, (uint32_t *)0, (int)lst + 1), e,
               "scan size");
        tmp = t > tmp ? t : tmp;
        CU_TRY(cub::DeviceSelect::Flagged(nullptr, t, (uint32_t *)0, (uint8_t *)0, (uint32_t *)0,
                                          (unsigned long long *)0, (int)lst),
               e, "select size");
        tmp = t > tmp ? t : tmp;
        if (np <= cap_np && chunks <= cap_chunks && lst <= cap_list && bk <= cap_buckets &&
            prt <= cap_part && tmp <= cap_temp)
            return 0;
        np = np > cap_np ? np : cap_np;
        chunks = chunks > cap_chunks ? chunks : cap_chunks;
        lst = lst > cap_list ? lst : cap_list;
        bk = bk > cap_buckets ? bk : cap_buckets;
        prt = prt > cap_part ? prt : cap_part;
        tmp = tmp > cap_temp ? tmp : cap_temp;
        release();
        CU_TRY(cudaMalloc(&keys[0], np * 4), e, "sort keys");
        CU_TRY(cudaMalloc(&keys[1], np * 4), e, "sort keys");
        CU_TRY(cudaMalloc(&vals[0], np * 4), e, "sort values");
        CU_TRY(cudaMalloc(&vals[1], np * 4), e, "sort values");
        CU_TRY(cudaMalloc(&cnt, (chunks + 1) * 4), e, "chunk counts");
        CU_TRY(cudaMalloc(&off, (chunks + 1) * 4), e, "chunk offsets");
        CU_TRY(cudaMalloc(&lkeys[0], lst * 4), e, "partial keys");
        CU_TRY(cudaMalloc(&lkeys[1], lst * 4), e, "partial keys");
        CU_TRY(cudaMalloc(&list[0], lst * sizeof(xyzz<F>)), e, "partial sums");
        CU_TRY(cudaMalloc(&list[1], lst * sizeof(xyzz<F>)), e, "partial sums");
        CU_TRY(cudaMalloc(&seq, lst * 4), e, "index sequence");
        CU_TRY(cudaMalloc(&starts, lst * 4), e, "run starts");
        CU_TRY(cudaMalloc(&nch, (lst + 1) * 4), e, "run chunks");
        CU_TRY(cudaMalloc(&co, (lst + 1) * 4), e, "run chunk offsets");
        CU_TRY(cudaMalloc(&flags, lst), e, "run flags");
        CU_TRY(cudaMalloc(&buckets, bk * sizeof(xyzz<F>)), e, "buckets");
        CU_TRY(cudaMalloc(&part, prt * sizeof(xyzz<F>)), e, "window segments");
        CU_TRY(cudaMalloc(&seg, prt * sizeof(xyzz<F>)), e, "window segments");
        CU_TRY(cudaMalloc(&temp, tmp), e, "CUB scratch");
        cap_np = np;
        cap_chunks = chunks;
        cap_list = lst;
        cap_buckets = bk;
        cap_part = prt;
        cap_temp = tmp;
        return 0;
    }

    static unsigned blocks(size_t n, unsigned bs) { return (unsigned)((n + bs - 1) / bs); }

    /* ret = Σ_{i<n} k_i·points[first_point + i]; the scalars in host or device
     * memory (the copies use cudaMemcpyDefault). */
    int run(void *ret, size_t first_point, const void *host_scalars, size_t n, unsigned c,
            struct sp_err *e) override
    {
        if (first_point > n_max || n > n_max - first_point || n > cap_scalars)
            return sp_fail(e, -EINVAL, "gpu msm: %zu scalars at %zu for %zu resident points", n,
                           first_point, n_max);
        if (c == 0)
            c = window_bits(n);
        if (c < 2 || c > 24)
            return sp_fail(e, -EINVAL, "gpu msm: window of %u bits", c);
        unsigned nwin = msm_nwin(G::scalar_bits, c);
        uint32_t m = 1u << (c - 1);
        if (n == 0) {
            G::combine(ret, nullptr, 0, c);
            return 0;
        }
        /* Large inputs go in two parts with one bucket array: the second
         * part's scalars cross PCIe while the first part's buckets are being
         * summed. The second part's partial sums cost a second round of
         * msm_run_sum and a full addition into every bucket, which outweighs
         * the hidden copy for G1 from c = 18 on (BLS12-381 G1 at 2^24,
         * c = 19, on an H200: 229 ms in one part, 243 ms in two; G2 was not
         * measured in one part and keeps two); $SLOTPROVE_MSM_PARTS (1 or
         * 2) overrides this for tuning runs. */
        static const unsigned forced_parts = msm_tune("SLOTPROVE_MSM_PARTS", 0, 1, 2, false);
        unsigned parts = n < MSM_SPLIT_MIN ? 1
                         : forced_parts    ? forced_parts
                         : c <= 17 || msm_is_g2<F>::value ? 2
                                                          : 1;
        size_t part_n = (n + parts - 1) / parts;
        int rc = ensure(part_n, c, e);
        if (rc)
            return rc;
        unsigned long long host_counters[2];
        if (profile)
            cudaEventRecord(prof[0], 0);
        /* 1. the whole upload, in pieces, queued on the copy stream now */
        size_t piece = (n + MSM_UPLOAD_PIECES - 1) / MSM_UPLOAD_PIECES;
        for (unsigned p = 0; p < MSM_UPLOAD_PIECES && p * piece < n; p++) {
            size_t first = p * piece, end = first + piece < n ? first + piece : n;
            CU_TRY(cudaMemcpyAsync(scalars + 8 * first, (const uint8_t *)host_scalars + 32 * first,
                                   (end - first) * 32, cudaMemcpyDefault, copy_stream),
                   e, "scalars upload");
            CU_TRY(cudaEventRecord(piece_done[p], copy_stream), e, "event");
        }
        CU_TRY(cudaMemset(buckets, 0, (size_t)nwin * m * sizeof(xyzz<F>)), e, "memset buckets");
        int rounds = 0;
        for (unsigned part = 0; part < parts; part++) {
            size_t first = part * part_n, end = first + part_n < n ? first + part_n : n;
            size_t cnt_n = end - first, np = cnt_n * nwin;
            CU_TRY(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)), e, "memset");
            /* each upload piece's digits as soon as it has landed */
            for (unsigned p = 0; p < MSM_UPLOAD_PIECES && p * piece < n; p++) {
                size_t pf = p * piece, pe = pf + piece < n ? pf + piece : n;
                pf = pf > first ? pf : first;
                pe = pe < end ? pe : end;
                if (pf >= pe)
                    continue;
                CU_TRY(cudaStreamWaitEvent(0, piece_done[p], 0), e, "event wait");
                msm_digits<<<blocks(pe - pf, 256), 256>>>((const uint4 *)scalars, (uint32_t)first,
                                                           (uint32_t)(pf - first), (uint32_t)(pe - first),
                                                           (uint32_t)cnt_n, c, nwin, keys[0], vals[0],
                                                           counters);
                CU_TRY(cudaGetLastError(), e, "digits kernel");
            }
            if (profile && part == 0)
                cudaEventRecord(prof[1], 0);
            /* 2. */
            int end_bit = 32 - __builtin_clz(nwin * m); /* the sentinel W·m needs these bits */
            size_t tb = cap_temp;
            CU_TRY(cub::DeviceRadixSort::SortPairs(temp, tb, keys[0], keys[1], vals[0], vals[1], (int)np, 0,
                                                   end_bit),
                   e, "radix sort");
            CU_TRY(cudaMemcpy(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost), e,
                   "zero count");
            if (profile && part == 0)
                cudaEventRecord(prof[2], 0);
            uint32_t M = (uint32_t)(np - host_counters[0]);
            if (M == 0)
                continue;
            /* 3. equal chunks of the sorted pairs → partial sums per run */
            uint32_t K = chunk_size(M);
            if ((M + K - 1) / K + 1 > cap_chunks) /* fewer digits than the buffers were sized for */
                K = (uint32_t)((M + cap_chunks - 2) / (cap_chunks - 1));
            uint32_t nchunks = (M + K - 1) / K;
            msm_chunk_count<<<blocks(nchunks, 256), 256>>>(keys[1], M, K, nchunks, cnt);
            CU_TRY(cudaGetLastError(), e, "chunk count kernel");
            tb = cap_temp;
            CU_TRY(cub::DeviceScan::ExclusiveSum(temp, tb, cnt, off, (int)nchunks + 1), e, "scan");
            uint32_t S;
            CU_TRY(cudaMemcpy(&S, off + nchunks, 4, cudaMemcpyDeviceToHost), e, "partial count");
            msm_chunk_sum<F><<<blocks(nchunks, 128), 128>>>(keys[1], vals[1], M, K, nchunks, off, points + first_point,
                                                            lkeys[0], list[0]);
            CU_TRY(cudaGetLastError(), e, "chunk sum kernel");
            if (profile && part == 0)
                cudaEventRecord(prof[3], 0);
            /* 4. until each key has a single partial sum */
            int cur = 0;
            for (;;) {
                msm_sequence<<<blocks(S, 256), 256>>>(seq, S);
                msm_run_flags<<<blocks(S, 256), 256>>>(lkeys[cur], S, flags);
                tb = cap_temp;
                CU_TRY(cub::DeviceSelect::Flagged(temp, tb, seq, flags, starts, counters + 1, (int)S), e,
                       "select");
                CU_TRY(cudaMemcpy(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost),
                       e, "run count");
                uint32_t D = (uint32_t)host_counters[1];
                if (D == S)
                    break;
                msm_run_chunks<<<blocks(D, 256), 256>>>(starts, D, S, run_group, nch);
                tb = cap_temp;
                CU_TRY(cub::DeviceScan::ExclusiveSum(temp, tb, nch, co, (int)D + 1), e, "scan");
                uint32_t C;
                CU_TRY(cudaMemcpy(&C, co + D, 4, cudaMemcpyDeviceToHost), e, "group count");
                /* seq is free until the next round: each group's run */
                msm_group_runs<<<blocks(D, 256), 256>>>(co, D, seq);
                msm_run_sum<F><<<blocks(C, 128), 128>>>(lkeys[cur], list[cur], S, starts, D, co, seq, C,
                                                        run_group, lkeys[cur ^ 1], list[cur ^ 1]);
                CU_TRY(cudaGetLastError(), e, "run sum kernel");
                cur ^= 1;
                S = C;
                rounds++;
            }
            /* 5. into the bucket array (added to the first part's sums) */
            msm_scatter<F><<<blocks(S, 256), 256>>>(lkeys[cur], list[cur], S, buckets, part > 0);
            CU_TRY(cudaGetLastError(), e, "scatter kernel");
        }
        if (profile)
            cudaEventRecord(prof[4], 0);
        /* 6. window sums: segment levels (msm_window_segments), each
         * level's part tree-summed, then msm_window_combine */
        msm_levels lv = {};
        const xyzz<F> *X = buckets;
        size_t at = 0;
        for (uint32_t len = m, b = 1;; b = 0) {
            uint32_t L = len < seg_len() ? len : seg_len(), T = len / L;
            if (lv.n == MSM_MAX_LEVELS)
                return sp_fail(e, -EINVAL, "gpu msm: window sums need over %d levels", MSM_MAX_LEVELS);
            xyzz<F> *pl = this->part + at, *sl = seg + at;
            msm_window_segments<F><<<blocks((size_t)nwin * T, 128), 128>>>(X, len, nwin, L, b, pl, sl);
            CU_TRY(cudaGetLastError(), e, "window segment kernel");
            /* at most this many segments a window: the last level */
            bool last = T <= seg_levels_max;
            if (last && T > 1) {
                msm_window_shift<F><<<blocks((size_t)nwin * T, 128), 128>>>(pl, sl, T, nwin, L);
                CU_TRY(cudaGetLastError(), e, "window shift kernel");
            }
            for (uint32_t h = T / 2; h >= 1; h /= 2) {
                msm_tree_sum<F><<<blocks((size_t)nwin * h, 128), 128>>>(pl, T, h, nwin);
                CU_TRY(cudaGetLastError(), e, "tree sum kernel");
            }
            lv.part[lv.n] = pl;
            lv.T[lv.n] = T;
            lv.lb[lv.n] = 31 - __builtin_clz(L);
            lv.n++;
            if (last)
                break;
            X = sl;
            at += (size_t)nwin * T;
            len = T;
        }
        msm_window_combine<F><<<1, 64>>>(lv, nwin, win);
        CU_TRY(cudaGetLastError(), e, "window combine kernel");
        if (profile)
            cudaEventRecord(prof[5], 0);
        xyzz<F> host_win[64];
        CU_TRY(cudaMemcpy(host_win, win, nwin * sizeof(xyzz<F>), cudaMemcpyDeviceToHost), e,
               "window sums download");
        G::combine(ret, host_win, nwin, c);
        if (profile) {
            cudaEventRecord(prof[6], 0);
            cudaEventSynchronize(prof[6]);
            float t[6];
            for (int i = 0; i < 6; i++)
                cudaEventElapsedTime(&t[i], prof[i], prof[i + 1]);
            fprintf(stderr,
                    "msm profile n=%zu c=%u: upload+digits %.2f sort %.2f chunk sums %.2f "
                    "run sums (%d rounds) %.2f windows %.2f host %.2f ms\n",
                    n, c, t[0], t[1], t[2], rounds, t[3], t[4], t[5]);
        }
        return 0;
    }
};

/* ret = Σ_w 2^(w·c)·win[w] on the CPU; win holds XYZZ points of the CPU
 * field type GF (same bytes as xyzz<F>). Jacobian (X·ZZ·ZZZ², Y·ZZ³·ZZZ²,
 * ZZ·ZZZ) is the same point as XYZZ (X, Y, ZZ, ZZZ). */
#define MSM_HOST_COMBINE(GROUP, GF)                                                  \
    static void combine(void *ret_, const void *win_, unsigned nwin, unsigned c)     \
    {                                                                                \
        GROUP##_jac_t *ret = (GROUP##_jac_t *)ret_;                                  \
        const GF##_t *w = (const GF##_t *)win_;                                      \
        GROUP##_set_inf(ret);                                                        \
        for (int i = (int)nwin - 1; i >= 0; i--) {                                   \
            if (!GROUP##_is_inf(ret))                                                \
                for (unsigned j = 0; j < c; j++)                                     \
                    GROUP##_dbl(ret, ret);                                           \
            const GF##_t *X = &w[4 * i], *Y = &w[4 * i + 1];                         \
            const GF##_t *ZZ = &w[4 * i + 2], *ZZZ = &w[4 * i + 3];                  \
            if (GF##_is_zero(ZZ))                                                    \
                continue;                                                            \
            GROUP##_jac_t p;                                                         \
            GF##_t zzz2, zz3;                                                        \
            GF##_mul(&p.Z, ZZ, ZZZ);                                                 \
            GF##_sqr(&zzz2, ZZZ);                                                    \
            GF##_sqr(&zz3, ZZ);                                                      \
            GF##_mul(&zz3, &zz3, ZZ);                                                \
            GF##_mul(&p.X, X, ZZ);                                                   \
            GF##_mul(&p.X, &p.X, &zzz2);                                             \
            GF##_mul(&p.Y, Y, &zz3);                                                 \
            GF##_mul(&p.Y, &p.Y, &zzz2);                                             \
            GROUP##_add(ret, ret, &p);                                               \
        }                                                                            \
    }

/* Defines the factory gpu_msm_new_GROUP used by gpu_msm.cu. */
#define MSM_INSTANCE(GROUP)                                                           \
    msm_engine_base *gpu_msm_new_##GROUP(const void *const *arrays, const size_t *counts,  \
                                         unsigned k, struct sp_err *e, int *rc)       \
    {                                                                                 \
        msm_engine<GROUP##_group> *m = new (std::nothrow) msm_engine<GROUP##_group>(); \
        if (!m) {                                                                     \
            *rc = sp_fail(e, -ENOMEM, "gpu msm: out of host memory");                  \
            return nullptr;                                                           \
        }                                                                             \
        *rc = m->create(arrays, counts, k, e);                                        \
        if (*rc) {                                                                    \
            delete m;                                                                 \
            return nullptr;                                                           \
        }                                                                             \
        return m;                                                                     \
    }

#endif
