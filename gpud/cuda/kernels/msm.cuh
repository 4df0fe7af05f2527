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
#include "gpu_mem.h"
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
/* At most this many point arrays per engine (a key's A, B1, C, H). */
#define MSM_MAX_ARRAYS 8

/* A device allocation through the ledger (gpu_mem.h), returning its error. */
#define MSM_ALLOC(ptr, bytes, part, what)                                                  \
    do {                                                                                   \
        int rc_ = gpu_mem_alloc((void **)&(ptr), (bytes), (part), (what), e);              \
        if (rc_)                                                                           \
            return rc_;                                                                    \
    } while (0)

/* The sizes of the working buffers for parts of n scalars with c-bit
 * windows (msm_engine::ensure allocates them). */
struct msm_dims {
    size_t np, chunks, lst, bk, prt, tmp;
};

struct msm_engine_base {
    virtual ~msm_engine_base() {}
    virtual int run(void *ret, size_t first, const void *scalars, size_t n, unsigned c,
                    struct sp_err *e) = 0;
    virtual unsigned window_bits(size_t n) = 0;
    virtual size_t held() const = 0;
};

/* How many parts run() cuts n scalars into (c-bit windows; chunk: the
 * most points a part may hold, 0 = no limit). */
static inline unsigned msm_parts(size_t n, unsigned c, bool g2, size_t chunk)
{
    /* Large inputs go in two parts with one bucket array: the second
     * part's scalars cross PCIe while the first part's buckets are being
     * summed. The second part's partial sums cost a second round of
     * msm_run_sum and a full addition into every bucket, which outweighs
     * the hidden copy for G1 from c = 18 on (BLS12-381 G1 at 2^24,
     * c = 19, on an H200: 229 ms in one part, 243 ms in two; G2 was not
     * measured in one part and keeps two); $SLOTPROVE_MSM_PARTS (1 or
     * 2) overrides this for tuning runs. A chunk limit (a device memory
     * budget, streamed points) makes more parts of at most chunk points. */
    static const unsigned forced_parts = msm_tune("SLOTPROVE_MSM_PARTS", 0, 1, 2, false);
    size_t parts = n < MSM_SPLIT_MIN ? 1 : forced_parts ? forced_parts : c <= 17 || g2 ? 2 : 1;
    if (chunk && (n + chunk - 1) / chunk > parts)
        parts = (n + chunk - 1) / chunk;
    return (unsigned)parts;
}

template <class G> struct msm_engine : msm_engine_base {
    typedef typename G::F F;
    size_t n_max = 0, cap_scalars = 0;
    affine<F> *points = nullptr; /* resident points, or NULL when streamed */
    /* streamed: the points stay in host memory (harr, hcnt: the arrays of
     * create) and each part's points are copied into stage[part & 1] */
    bool streamed = false;
    size_t chunk_max = 0; /* the most points a part holds (0: no limit) */
    const uint8_t *harr[MSM_MAX_ARRAYS] = {};
    size_t hcnt[MSM_MAX_ARRAYS] = {};
    unsigned narr = 0;
    affine<F> *stage[2] = {};
    cudaEvent_t stage_ready[2] = {}, stage_free[2] = {};
    /* working buffers, sized for the largest (n, c) seen so far */
    msm_dims cap = {};
    size_t stage_pts = 0; /* points of each staging buffer (streamed) */
    uint32_t *scalars = nullptr, *keys[2] = {}, *vals[2] = {}, *cnt = nullptr, *off = nullptr;
    uint32_t *lkeys[2] = {}, *seq = nullptr, *starts = nullptr, *nch = nullptr, *co = nullptr;
    uint8_t *flags = nullptr;
    xyzz<F> *list[2] = {}, *buckets = nullptr, *part = nullptr, *seg = nullptr, *win = nullptr;
    void *temp = nullptr;
    unsigned long long *counters = nullptr; /* [0] nonzero digits (pairs), [1] selected */
    cudaStream_t copy_stream = nullptr;     /* scalar upload, overlapping the digits */
    cudaEvent_t piece_done[MSM_UPLOAD_PIECES] = {};
    cudaEvent_t prof[8] = {};
    bool profile = false;

    ~msm_engine() override
    {
        gpu_mem_free(points);
        release();
        gpu_mem_free(stage[0]);
        gpu_mem_free(stage[1]);
        gpu_mem_free(scalars);
        gpu_mem_free(counters);
        gpu_mem_free(win);
        for (cudaEvent_t ev : stage_ready)
            if (ev)
                cudaEventDestroy(ev);
        for (cudaEvent_t ev : stage_free)
            if (ev)
                cudaEventDestroy(ev);
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
            gpu_mem_free(x);
        keys[0] = keys[1] = vals[0] = vals[1] = cnt = off = lkeys[0] = lkeys[1] = nullptr;
        seq = starts = nch = co = nullptr;
        flags = nullptr;
        list[0] = list[1] = buckets = part = seg = nullptr;
        temp = nullptr;
        cap = msm_dims{};
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

    /* Uploads k host point arrays back to back (counts[i] points each), or
     * with stream keeps them in host memory (they must outlive the engine;
     * page-locked for full-speed copies) and makes two staging buffers of
     * chunk points. chunk (0: no limit) bounds the points of one part and so
     * the working buffers, sized here for the largest single array. */
    int create(const void *const *arrays, const size_t *counts, unsigned k, size_t chunk,
               bool stream, struct sp_err *e)
    {
        size_t n = 0, largest = 0;
        for (unsigned i = 0; i < k; i++) {
            n += counts[i];
            largest = counts[i] > largest ? counts[i] : largest;
        }
        if (stream && (chunk == 0 || k > MSM_MAX_ARRAYS))
            return sp_fail(e, -EINVAL, "gpu msm: streamed points need a chunk size and at most %d arrays",
                           MSM_MAX_ARRAYS);
        n_max = n;
        streamed = stream;
        chunk_max = clamp_chunk(counts, k, chunk, stream); /* the staging buffers' size */
        msm_dims d;
        int rc = layout(counts, k, chunk_max, stream, &d, &stage_pts, e);
        if (rc)
            return rc;
        if (stream) {
            narr = k;
            for (unsigned i = 0; i < k; i++) {
                harr[i] = (const uint8_t *)arrays[i];
                hcnt[i] = counts[i];
            }
            MSM_ALLOC(stage[0], stage_pts * sizeof(affine<F>), GPU_MEM_STREAM, "msm stage");
            MSM_ALLOC(stage[1], stage_pts * sizeof(affine<F>), GPU_MEM_STREAM, "msm stage");
            for (int i = 0; i < 2; i++) {
                CU_TRY(cudaEventCreateWithFlags(&stage_ready[i], cudaEventDisableTiming), e, "events");
                CU_TRY(cudaEventCreateWithFlags(&stage_free[i], cudaEventDisableTiming), e, "events");
            }
        } else {
            MSM_ALLOC(points, n * sizeof(affine<F>), GPU_MEM_POINTS, "msm points");
            size_t at = 0;
            for (unsigned i = 0; i < k; at += counts[i], i++)
                CU_TRY(cudaMemcpy(points + at, arrays[i], counts[i] * sizeof(affine<F>),
                                  cudaMemcpyHostToDevice),
                       e, "points upload");
        }
        MSM_ALLOC(counters, 2 * sizeof(unsigned long long), GPU_MEM_MSM, "msm counters");
        MSM_ALLOC(win, 64 * sizeof(xyzz<F>), GPU_MEM_MSM, "msm window sums");
        CU_TRY(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking), e, "copy stream");
        for (cudaEvent_t &ev : piece_done)
            CU_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), e, "events");
        profile = getenv("SLOTPROVE_MSM_PROFILE") != nullptr;
        if (profile)
            for (cudaEvent_t &ev : prof)
                CU_TRY(cudaEventCreate(&ev), e, "events");
        return grow(d, e);
    }

    /* The working buffers' sizes for parts of n scalars, c-bit windows. */
    static int dims(size_t n, unsigned c, msm_dims *d, struct sp_err *e)
    {
        unsigned nwin = msm_nwin(G::scalar_bits, c);
        size_t m = (size_t)1 << (c - 1);
        size_t np = n * nwin, t = 0;
        d->np = np;
        d->chunks = (np + chunk_size(np) - 1) / chunk_size(np) + 1;
        d->lst = d->chunks + nwin * m + 1;
        d->bk = nwin * m;
        d->prt = 2 * nwin * (m > seg_len() ? m / seg_len() : 1); /* all levels */
        d->tmp = 0;
        if (np > 0x7fffffffu)
            return sp_fail(e, -EINVAL, "gpu msm: %zu points × %u windows is too many pairs", n, nwin);
        CU_TRY(cub::DeviceRadixSort::SortPairs(nullptr, t, (uint32_t *)0, (uint32_t *)0, (uint32_t *)0,
                                               (uint32_t *)0, (int)np, 0, 32),
               e, "sort size");
        d->tmp = t > d->tmp ? t : d->tmp;
        CU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, t, (uint32_t *)0, (uint32_t *)0, (int)d->lst + 1), e,
               "scan size");
        d->tmp = t > d->tmp ? t : d->tmp;
        CU_TRY(cub::DeviceSelect::Flagged(nullptr, t, (uint32_t *)0, (uint8_t *)0, (uint32_t *)0,
                                          (unsigned long long *)0, (int)d->lst),
               e, "select size");
        d->tmp = t > d->tmp ? t : d->tmp;
        return 0;
    }

    /* The working buffers of d, in allocation order: the one list both
     * the plan (work_bytes) and the allocation (grow) are sized from. */
    enum { W_KEYS0, W_KEYS1, W_VALS0, W_VALS1, W_CNT, W_OFF, W_LKEYS0, W_LKEYS1, W_LIST0, W_LIST1,
           W_SEQ, W_STARTS, W_NCH, W_CO, W_FLAGS, W_BUCKETS, W_PART, W_SEG, W_TEMP, W_N };
    static void work_sizes(const msm_dims &d, size_t sz[W_N])
    {
        sz[W_KEYS0] = sz[W_KEYS1] = sz[W_VALS0] = sz[W_VALS1] = d.np * 4;
        sz[W_CNT] = sz[W_OFF] = (d.chunks + 1) * 4;
        sz[W_LKEYS0] = sz[W_LKEYS1] = d.lst * 4;
        sz[W_LIST0] = sz[W_LIST1] = d.lst * sizeof(xyzz<F>);
        sz[W_SEQ] = sz[W_STARTS] = d.lst * 4;
        sz[W_NCH] = sz[W_CO] = (d.lst + 1) * 4;
        sz[W_FLAGS] = d.lst;
        sz[W_BUCKETS] = d.bk * sizeof(xyzz<F>);
        sz[W_PART] = sz[W_SEG] = d.prt * sizeof(xyzz<F>);
        sz[W_TEMP] = d.tmp;
    }

    /* Ledger bytes (gpu_mem_charge per buffer) of the working buffers of d;
     * 0 for none (d all zero). */
    static size_t work_bytes(const msm_dims &d)
    {
        if (!d.np && !d.lst && !d.bk)
            return 0;
        size_t sz[W_N], b = 0;
        work_sizes(d, sz);
        for (int i = 0; i < W_N; i++)
            b += gpu_mem_charge(sz[i]);
        return b;
    }

    /* Ledger bytes of the buffers an engine holds whatever it runs: the
     * counters, the window sums, and stage_pts points in each of the two
     * staging buffers (0 when resident). */
    static size_t fixed_bytes(size_t stage_pts)
    {
        return gpu_mem_charge(2 * sizeof(unsigned long long)) + gpu_mem_charge(64 * sizeof(xyzz<F>)) +
               2 * gpu_mem_charge(stage_pts * sizeof(affine<F>));
    }

    /* The layout of an engine over k arrays of ns[i] points in parts of at
     * most chunk points (0: no limit): the working buffers for the largest
     * run over one array (each dimension the largest over the arrays, each
     * run's window chosen as run() chooses it), and with stream the staging
     * buffers' points. create allocates exactly this; plan sums it. */
    static int layout(const size_t *ns, unsigned k, size_t chunk, bool stream, msm_dims *mx,
                      size_t *stage_pts, struct sp_err *e)
    {
        static const unsigned forced = msm_tune("SLOTPROVE_MSM_WINDOW", 0, 2, 24, false);
        size_t largest = 0;
        *mx = msm_dims{};
        for (unsigned i = 0; i < k; i++) {
            if (ns[i] == 0)
                continue;
            size_t wn = chunk && ns[i] > chunk ? chunk : ns[i];
            unsigned c = forced ? forced : msm_choose_window(G::group, wn);
            unsigned parts = msm_parts(ns[i], c, msm_is_g2<F>::value, chunk);
            msm_dims d;
            int rc = dims((ns[i] + parts - 1) / parts, c, &d, e);
            if (rc)
                return rc;
            mx->np = d.np > mx->np ? d.np : mx->np;
            mx->chunks = d.chunks > mx->chunks ? d.chunks : mx->chunks;
            mx->lst = d.lst > mx->lst ? d.lst : mx->lst;
            mx->bk = d.bk > mx->bk ? d.bk : mx->bk;
            mx->prt = d.prt > mx->prt ? d.prt : mx->prt;
            mx->tmp = d.tmp > mx->tmp ? d.tmp : mx->tmp;
            largest = ns[i] > largest ? ns[i] : largest;
        }
        *stage_pts = stream ? (chunk < largest ? chunk : largest) : 0;
        return 0;
    }

    /* The most local memory a thread of this engine's kernels takes
     * (cudaFuncGetAttributes' localSizeBytes: spills and call frames of the
     * out-of-line field products); 0 when it cannot be read. */
    static size_t local_bytes()
    {
        cudaFuncAttributes a;
        size_t mx = 0;
#define MSM_LOCAL(K)                                                                 \
        if (cudaFuncGetAttributes(&a, K) == cudaSuccess && a.localSizeBytes > mx)    \
            mx = a.localSizeBytes;                                                   \
        cudaGetLastError();
        MSM_LOCAL(msm_chunk_sum<F>)
        MSM_LOCAL(msm_run_sum<F>)
        MSM_LOCAL(msm_scatter<F>)
        MSM_LOCAL(msm_window_segments<F>)
        MSM_LOCAL(msm_window_shift<F>)
        MSM_LOCAL(msm_window_combine<F>)
        MSM_LOCAL(msm_tree_sum<F>)
        MSM_LOCAL(msm_digits)
#undef MSM_LOCAL
        return mx;
    }

    /* The chunk an engine works with: a streamed engine's parts are never
     * larger than its largest array (its staging buffers' size). */
    static size_t clamp_chunk(const size_t *ns, unsigned k, size_t chunk, bool stream)
    {
        size_t largest = 0;
        for (unsigned i = 0; i < k; i++)
            largest = ns[i] > largest ? ns[i] : largest;
        return stream && chunk > largest ? largest : chunk;
    }

    /* Ledger bytes of resident points for k arrays of ns[i] points (one
     * allocation). */
    static size_t points_bytes(const size_t *ns, unsigned k)
    {
        size_t n = 0;
        for (unsigned i = 0; i < k; i++)
            n += ns[i];
        return gpu_mem_charge(n * sizeof(affine<F>));
    }

    /* Ledger bytes an engine made by create(ns, k, chunk, stream) takes
     * besides resident points (msm_points_bytes): layout's buffers. Host
     * scalars (a run given host memory) add their buffer (msm_scalar_bytes)
     * at the first such run. 0 with e set on a CUDA error. */
    static size_t plan(const size_t *ns, unsigned k, size_t chunk, bool stream, struct sp_err *e)
    {
        msm_dims mx;
        size_t sp;
        if (layout(ns, k, clamp_chunk(ns, k, chunk, stream), stream, &mx, &sp, e))
            return 0;
        return work_bytes(mx) + fixed_bytes(sp);
    }

    /* Ledger bytes this engine holds now: what plan counted for it, its
     * resident points, its host-scalar buffer and any growth by a run
     * larger than its arrays. */
    size_t held() const override
    {
        return (points ? gpu_mem_charge(n_max * sizeof(affine<F>)) : 0) + work_bytes(cap) +
               (counters ? fixed_bytes(stage_pts) : 0) + gpu_mem_charge(cap_scalars * 32);
    }

    int ensure(size_t n, unsigned c, struct sp_err *e)
    {
        msm_dims d;
        int rc = dims(n, c, &d, e);
        return rc ? rc : grow(d, e);
    }

    /* The working buffers grown to hold d (each dimension the larger of d's
     * and what is held), allocated from work_sizes. */
    int grow(const msm_dims &want, struct sp_err *e)
    {
        if (want.np <= cap.np && want.chunks <= cap.chunks && want.lst <= cap.lst && want.bk <= cap.bk &&
            want.prt <= cap.prt && want.tmp <= cap.tmp)
            return 0;
        msm_dims d;
        d.np = want.np > cap.np ? want.np : cap.np;
        d.chunks = want.chunks > cap.chunks ? want.chunks : cap.chunks;
        d.lst = want.lst > cap.lst ? want.lst : cap.lst;
        d.bk = want.bk > cap.bk ? want.bk : cap.bk;
        d.prt = want.prt > cap.prt ? want.prt : cap.prt;
        d.tmp = want.tmp > cap.tmp ? want.tmp : cap.tmp;
        release();
        size_t sz[W_N];
        work_sizes(d, sz);
        MSM_ALLOC(keys[0], sz[W_KEYS0], GPU_MEM_MSM, "msm sort keys");
        MSM_ALLOC(keys[1], sz[W_KEYS1], GPU_MEM_MSM, "msm sort keys");
        MSM_ALLOC(vals[0], sz[W_VALS0], GPU_MEM_MSM, "msm sort values");
        MSM_ALLOC(vals[1], sz[W_VALS1], GPU_MEM_MSM, "msm sort values");
        MSM_ALLOC(cnt, sz[W_CNT], GPU_MEM_MSM, "msm chunk counts");
        MSM_ALLOC(off, sz[W_OFF], GPU_MEM_MSM, "msm chunk offsets");
        MSM_ALLOC(lkeys[0], sz[W_LKEYS0], GPU_MEM_MSM, "msm partial keys");
        MSM_ALLOC(lkeys[1], sz[W_LKEYS1], GPU_MEM_MSM, "msm partial keys");
        MSM_ALLOC(list[0], sz[W_LIST0], GPU_MEM_MSM, "msm partial sums");
        MSM_ALLOC(list[1], sz[W_LIST1], GPU_MEM_MSM, "msm partial sums");
        MSM_ALLOC(seq, sz[W_SEQ], GPU_MEM_MSM, "msm index sequence");
        MSM_ALLOC(starts, sz[W_STARTS], GPU_MEM_MSM, "msm run starts");
        MSM_ALLOC(nch, sz[W_NCH], GPU_MEM_MSM, "msm run chunks");
        MSM_ALLOC(co, sz[W_CO], GPU_MEM_MSM, "msm run chunk offsets");
        MSM_ALLOC(flags, sz[W_FLAGS], GPU_MEM_MSM, "msm run flags");
        MSM_ALLOC(buckets, sz[W_BUCKETS], GPU_MEM_MSM, "msm buckets");
        MSM_ALLOC(part, sz[W_PART], GPU_MEM_MSM, "msm window segments");
        MSM_ALLOC(seg, sz[W_SEG], GPU_MEM_MSM, "msm window segments");
        MSM_ALLOC(temp, sz[W_TEMP], GPU_MEM_MSM, "msm CUB scratch");
        cap = d;
        return 0;
    }

    static unsigned blocks(size_t n, unsigned bs) { return (unsigned)((n + bs - 1) / bs); }

    /* Queues on the copy stream the host points of part `part` (parts of
     * part_n of the run's n points from first_point) into stage[part & 1],
     * after the chunk sums of the part that used that buffer before; the
     * points may span several of create's arrays. */
    int stage_part(unsigned part, size_t first_point, size_t part_n, size_t n, struct sp_err *e)
    {
        size_t first = part * part_n, cnt = first + part_n < n ? part_n : n - first;
        size_t from = first_point + first, base = 0;
        uint8_t *dst = (uint8_t *)stage[part & 1];
        if (part >= 2)
            CU_TRY(cudaStreamWaitEvent(copy_stream, stage_free[part & 1], 0), e, "event wait");
        for (unsigned i = 0; i < narr && cnt; base += hcnt[i], i++) {
            if (from >= base + hcnt[i])
                continue;
            size_t off = from - base, take = hcnt[i] - off < cnt ? hcnt[i] - off : cnt;
            CU_TRY(cudaMemcpyAsync(dst, harr[i] + off * sizeof(affine<F>), take * sizeof(affine<F>),
                                   cudaMemcpyHostToDevice, copy_stream),
                   e, "streamed points upload");
            dst += take * sizeof(affine<F>);
            from += take;
            cnt -= take;
        }
        CU_TRY(cudaEventRecord(stage_ready[part & 1], copy_stream), e, "event");
        return 0;
    }

    /* ret = Σ_{i<n} k_i·points[first_point + i]; the scalars in host or device
     * memory (the copies use cudaMemcpyDefault). */
    int run(void *ret, size_t first_point, const void *host_scalars, size_t n, unsigned c,
            struct sp_err *e) override
    {
        if (first_point > n_max || n > n_max - first_point)
            return sp_fail(e, -EINVAL, "gpu msm: %zu scalars at %zu for %zu resident points", n,
                           first_point, n_max);
        /* with bounded parts the window follows the part size: its buckets
         * and partial-sum lists (windows × 2^(c−1) entries) stay in scale
         * with the part's sort buffers */
        if (c == 0)
            c = window_bits(chunk_max && n > chunk_max ? chunk_max : n);
        if (c < 2 || c > 24)
            return sp_fail(e, -EINVAL, "gpu msm: window of %u bits", c);
        unsigned nwin = msm_nwin(G::scalar_bits, c);
        uint32_t m = 1u << (c - 1);
        if (n == 0) {
            G::combine(ret, nullptr, 0, c);
            return 0;
        }
        /* parts (msm_parts): one bucket array; with streamed points each
         * part's points are copied into a staging buffer while the part
         * before is being summed */
        unsigned parts = msm_parts(n, c, msm_is_g2<F>::value, chunk_max);
        size_t part_n = (n + parts - 1) / parts;
        int rc = ensure(part_n, c, e);
        if (rc)
            return rc;
        /* scalars already in device memory (the CUDA backend's) are read in
         * place; host scalars are uploaded into a buffer of the engine */
        cudaPointerAttributes pa;
        bool dev_sc = cudaPointerGetAttributes(&pa, host_scalars) == cudaSuccess &&
                      (pa.type == cudaMemoryTypeDevice || pa.type == cudaMemoryTypeManaged);
        cudaGetLastError(); /* a plain host pointer may leave an error behind */
        if (!dev_sc && n > cap_scalars) {
            gpu_mem_free(scalars);
            scalars = nullptr;
            cap_scalars = 0;
            MSM_ALLOC(scalars, n * 32, GPU_MEM_MSM, "msm scalars");
            cap_scalars = n;
        }
        const uint4 *sc = dev_sc ? (const uint4 *)host_scalars : (const uint4 *)scalars;
        unsigned long long host_counters[2];
        if (profile)
            cudaEventRecord(prof[0], 0);
        /* 1. the whole upload, in pieces, queued on the copy stream now */
        size_t piece = (n + MSM_UPLOAD_PIECES - 1) / MSM_UPLOAD_PIECES;
        for (unsigned p = 0; !dev_sc && p < MSM_UPLOAD_PIECES && p * piece < n; p++) {
            size_t first = p * piece, end = first + piece < n ? first + piece : n;
            CU_TRY(cudaMemcpyAsync(scalars + 8 * first, (const uint8_t *)host_scalars + 32 * first,
                                   (end - first) * 32, cudaMemcpyDefault, copy_stream),
                   e, "scalars upload");
            CU_TRY(cudaEventRecord(piece_done[p], copy_stream), e, "event");
        }
        if (streamed && (rc = stage_part(0, first_point, part_n, n, e)))
            return rc;
        CU_TRY(cudaMemset(buckets, 0, (size_t)nwin * m * sizeof(xyzz<F>)), e, "memset buckets");
        int rounds = 0;
        for (unsigned part = 0; part < parts; part++) {
            size_t first = part * part_n, end = first + part_n < n ? first + part_n : n;
            if (streamed && part + 1 < parts && (rc = stage_part(part + 1, first_point, part_n, n, e)))
                return rc;
            CU_TRY(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)), e, "memset");
            /* each upload piece's digits as soon as it has landed */
            for (unsigned p = 0; p < MSM_UPLOAD_PIECES && p * piece < n; p++) {
                size_t pf = p * piece, pe = pf + piece < n ? pf + piece : n;
                pf = pf > first ? pf : first;
                pe = pe < end ? pe : end;
                if (pf >= pe)
                    continue;
                if (!dev_sc)
                    CU_TRY(cudaStreamWaitEvent(0, piece_done[p], 0), e, "event wait");
                msm_digits<<<blocks(pe - pf, 256), 256>>>(sc, (uint32_t)first,
                                                           (uint32_t)(pf - first), (uint32_t)(pe - first),
                                                           c, nwin, keys[0], vals[0], counters);
                CU_TRY(cudaGetLastError(), e, "digits kernel");
            }
            if (profile && part == 0)
                cudaEventRecord(prof[1], 0);
            /* 2. the pairs the digits made (zero digits made none) */
            CU_TRY(cudaMemcpy(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost), e,
                   "pair count");
            uint32_t M = (uint32_t)host_counters[0];
            int end_bit = 32 - __builtin_clz(nwin * m); /* keys < W·m */
            size_t tb = cap.tmp;
            if (M)
                CU_TRY(cub::DeviceRadixSort::SortPairs(temp, tb, keys[0], keys[1], vals[0], vals[1], (int)M, 0,
                                                       end_bit),
                       e, "radix sort");
            if (profile && part == 0)
                cudaEventRecord(prof[2], 0);
            if (M == 0)
                continue;
            /* 3. equal chunks of the sorted pairs → partial sums per run */
            uint32_t K = chunk_size(M);
            if ((M + K - 1) / K + 1 > cap.chunks) /* fewer digits than the buffers were sized for */
                K = (uint32_t)((M + cap.chunks - 2) / (cap.chunks - 1));
            uint32_t nchunks = (M + K - 1) / K;
            msm_chunk_count<<<blocks(nchunks, 256), 256>>>(keys[1], M, K, nchunks, cnt);
            CU_TRY(cudaGetLastError(), e, "chunk count kernel");
            tb = cap.tmp;
            CU_TRY(cub::DeviceScan::ExclusiveSum(temp, tb, cnt, off, (int)nchunks + 1), e, "scan");
            uint32_t S;
            CU_TRY(cudaMemcpy(&S, off + nchunks, 4, cudaMemcpyDeviceToHost), e, "partial count");
            /* the values name points first_point + first + i: a staging
             * buffer holds them from its index 0 */
            const affine<F> *pts = streamed ? stage[part & 1] - first : points + first_point;
            if (streamed)
                CU_TRY(cudaStreamWaitEvent(0, stage_ready[part & 1], 0), e, "event wait");
            msm_chunk_sum<F><<<blocks(nchunks, 128), 128>>>(keys[1], vals[1], M, K, nchunks, off, pts,
                                                            lkeys[0], list[0]);
            CU_TRY(cudaGetLastError(), e, "chunk sum kernel");
            if (streamed)
                CU_TRY(cudaEventRecord(stage_free[part & 1], 0), e, "event");
            if (profile && part == 0)
                cudaEventRecord(prof[3], 0);
            /* 4. until each key has a single partial sum */
            int cur = 0;
            for (;;) {
                msm_sequence<<<blocks(S, 256), 256>>>(seq, S);
                msm_run_flags<<<blocks(S, 256), 256>>>(lkeys[cur], S, flags);
                tb = cap.tmp;
                CU_TRY(cub::DeviceSelect::Flagged(temp, tb, seq, flags, starts, counters + 1, (int)S), e,
                       "select");
                CU_TRY(cudaMemcpy(host_counters, counters, sizeof(host_counters), cudaMemcpyDeviceToHost),
                       e, "run count");
                uint32_t D = (uint32_t)host_counters[1];
                if (D == S)
                    break;
                msm_run_chunks<<<blocks(D, 256), 256>>>(starts, D, S, run_group, nch);
                tb = cap.tmp;
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
    size_t gpu_msm_plan_##GROUP(const size_t *ns, unsigned k, size_t chunk, bool stream,  \
                                struct sp_err *e)                                      \
    {                                                                                 \
        return msm_engine<GROUP##_group>::plan(ns, k, chunk, stream, e);              \
    }                                                                                 \
    size_t gpu_msm_local_##GROUP(void)                                                \
    {                                                                                 \
        return msm_engine<GROUP##_group>::local_bytes();                              \
    }                                                                                 \
    size_t gpu_msm_points_##GROUP(const size_t *ns, unsigned k)                       \
    {                                                                                 \
        return msm_engine<GROUP##_group>::points_bytes(ns, k);                        \
    }                                                                                 \
    msm_engine_base *gpu_msm_new_##GROUP(const void *const *arrays, const size_t *counts,  \
                                         unsigned k, size_t chunk, bool stream,       \
                                         struct sp_err *e, int *rc)                   \
    {                                                                                 \
        msm_engine<GROUP##_group> *m = new (std::nothrow) msm_engine<GROUP##_group>(); \
        if (!m) {                                                                     \
            *rc = sp_fail(e, -ENOMEM, "gpu msm: out of host memory");                  \
            return nullptr;                                                           \
        }                                                                             \
        *rc = m->create(arrays, counts, k, chunk, stream, e);                                        \
        if (*rc) {                                                                    \
            delete m;                                                                 \
            return nullptr;                                                           \
        }                                                                             \
        return m;                                                                     \
    }

#endif
