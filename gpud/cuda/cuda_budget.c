/* cuda_budget.c — how a key is proved within the device budget (see cuda_budget.h). */
#include "cuda_budget.h"

#include <errno.h>

#include "gpu_mem.h"
#include "gpu_msm.h"
#include "gpu_ntt.h"
#include "payload.h"

#define GIB 1073741824.0

void cuda_set_sizes(size_t domain_size, size_t n_vars, int lean, size_t sz[CUDA_SET_NBUF])
{
    /* a, b, c, scratch, two LDE outputs: fast a, b, scratch, LDE outputs
     * (c = a∘b is formed in the scratch); lean a, b, c (c formed there) */
    for (int i = 0; i < CUDA_SET_NBUF - 1; i++)
        sz[i] = i < 2 || (i == 2 ? lean : !lean) ? domain_size * 32 : 0;
    sz[CUDA_SET_NBUF - 1] = n_vars * 32; /* the witness */
}

size_t cuda_set_bytes(size_t domain_size, size_t n_vars, int lean)
{
    size_t sz[CUDA_SET_NBUF], b = 0;
    cuda_set_sizes(domain_size, n_vars, lean, sz);
    for (int i = 0; i < CUDA_SET_NBUF; i++)
        b += gpu_mem_charge(sz[i]);
    return b;
}

static const size_t resident_chunks[] = { 0, (size_t)1 << 22, (size_t)1 << 20 };
#define STREAM_CHUNK_MAX 24
#define STREAM_CHUNK_MIN 16

/* The engines' bytes for s with (chunk, stream); 0 on a CUDA error. */
static size_t msm_bytes(const struct cuda_shape *s, size_t chunk, int stream, struct sp_err *e)
{
    size_t a = gpu_msm_plan(s->g1, s->g1n, 4, chunk, stream, e);
    size_t b = a ? gpu_msm_plan(s->g2, &s->g2n, 1, chunk, stream, e) : 0;
    return a && b ? a + b : 0;
}

static int try_plan(const struct cuda_shape *s, size_t budget, int stream, size_t chunk,
                    unsigned sets, int lean, struct cuda_plan *pl, size_t pts, struct sp_err *e)
{
    size_t msm = msm_bytes(s, chunk, stream, e);
    if (!msm)
        return -EIO;
    size_t pinned = s->pinned_held + (stream ? s->pinned_stream : 0);
    size_t total = (stream ? 0 : pts) + msm + sets * s->vec[lean] + s->ntt[lean] + pinned;
    *pl = (struct cuda_plan){ stream, chunk, sets, lean, stream ? 0 : pts, msm, s->vec[lean],
                              s->ntt[lean], pinned, total };
    return total <= budget ? 1 : 0;
}

int cuda_plan_shape(const struct cuda_shape *s, const char *name, size_t budget,
                    struct cuda_plan *pl, struct sp_err *e)
{
    /* each figure from the function the allocation is sized by */
    size_t pts = gpu_msm_plan_points(s->g1, s->g1n, 4) + gpu_msm_plan_points(s->g2, &s->g2n, 1);
    unsigned max_sets = s->max_sets < 1 ? 1 : s->max_sets > 2 ? 2 : s->max_sets;
    int rc;
    for (int lean = 0; lean <= 1; lean++) {
        for (unsigned i = 0; i < sizeof(resident_chunks) / sizeof(resident_chunks[0]); i++)
            for (unsigned sets = max_sets; sets >= 1; sets--)
                if ((rc = try_plan(s, budget, 0, resident_chunks[i], sets, lean, pl, pts, e)) != 0)
                    return rc < 0 ? rc : 0;
        for (unsigned lg = STREAM_CHUNK_MAX; lg >= STREAM_CHUNK_MIN; lg--)
            for (unsigned sets = max_sets; sets >= 1; sets--)
                if ((rc = try_plan(s, budget, 1, (size_t)1 << lg, sets, lean, pl, pts, e)) != 0)
                    return rc < 0 ? rc : 0;
    }
    /* pl: the last try, the smallest way */
    return sp_fail(e, -E2BIG,
                   "the --gpu-mem budget of %.2f GiB is too small for key %s: one worker needs "
                   "%.2f GiB (lean vectors %.2f, NTT tables %.2f, MSM buffers %.2f GiB streaming 2^%d "
                   "points at a time, page-locked host memory's device cost %.2f GiB)",
                   budget / GIB, name, pl->total / GIB, pl->vectors / GIB, pl->ntt / GIB,
                   pl->msm / GIB, STREAM_CHUNK_MIN, pl->pinned / GIB);
}

/* A zkey's shape: G1 MSMs over A, B1 (the wires), C (the private wires)
 * and H (the domain), G2 over B2; two workers' buffer sets. */
static void zkey_shape(const struct zkey *zk, struct cuda_shape *s)
{
    size_t nv = zk->n_vars, nc = nv - zk->n_public - 1, n = zk->domain_size;
    *s = (struct cuda_shape){ 0 };
    s->g1 = zk->curve == CURVE_BN254 ? GPU_BN254_G1 : GPU_BLS12381_G1;
    s->g2 = zk->curve == CURVE_BN254 ? GPU_BN254_G2 : GPU_BLS12381_G2;
    s->g1n[0] = nv, s->g1n[1] = nv, s->g1n[2] = nc, s->g1n[3] = n;
    s->g2n = nv;
    for (int lean = 0; lean <= 1; lean++) {
        s->vec[lean] = cuda_set_bytes(n, nv, lean);
        s->ntt[lean] = gpu_ntt_plan(zk->log_domain, lean); /* lean: a compact domain */
    }
    s->max_sets = 2;
}

int cuda_plan_key(const struct zkey *zk, const char *name, size_t budget, size_t pinned_held,
                  size_t pinned_stream, struct cuda_plan *pl, struct sp_err *e)
{
    struct cuda_shape s;
    zkey_shape(zk, &s);
    s.pinned_held = pinned_held;
    s.pinned_stream = pinned_stream;
    return cuda_plan_shape(&s, name, budget, pl, e);
}

size_t cuda_budget_floor(void)
{
    struct zkey zk = { 0 };
    struct cuda_plan pl;
    struct sp_err e;
    zk.curve = CURVE_BLS12381;
    zk.domain_size = 1024;
    zk.log_domain = 10;
    zk.n_vars = 1024;
    zk.n_public = 1;
    struct cuda_shape s;
    zkey_shape(&zk, &s);
    s.pinned_stream = gpu_mem_pin_ceiling(1); /* its few KiB of points locked */
    if (try_plan(&s, 0, 1, (size_t)1 << STREAM_CHUNK_MIN, 1, 1, &pl, 0, &e) < 0)
        return 0;
    return pl.total;
}
