/*
 * prove_tmpl.h — one Groth16 proof on the CPU for one curve. A "C template":
 * define PC (curve prefix: bn254 or bls12381) and include; it defines
 * PC##_cpu_prove, declared in cpu_prove.h.
 *
 * The math (snarkjs groth16_prove.js; DESIGN.md "The math"):
 *   c = a∘b (the slot holds a and b only: P_(form_c))
 *   a, b, c (evaluations on ⟨ω_n⟩, the slot's form) → each iNTT, ×shift^i, NTT
 *   h_i = a_i·b_i − c_i, out of Montgomery form
 *   πA' = Σ w_i A_i, πB1' = Σ w_i B1_i, πB' = Σ w_i B2_i (G2),
 *   πC' = Σ_{i>nPublic} w_i C_i, πH = Σ h_i H_i
 *   then the blinding and the proof: PC##_groth16_assemble (gpud/assemble.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "msm.h"
#include "ntt.h"

#define PC_CAT2(a, b) a##_##b
#define PC_CAT(a, b) PC_CAT2(a, b)
#define P_(name) PC_CAT(PC, name)

struct P_(h_ctx) {
    P_(fr_t) *a;
    const P_(fr_t) *b, *c;
};

/* a_i ← standard form of a_i·b_i − c_i (the H scalars, written over a):
 * a, b in the slot's form (shm/payload.h: standard form) and c their
 * Montgomery product, so a_i·b_i − c_i = h·R^-1 and the product with R^2
 * gives h. */
static void P_(h_pass)(void *arg, size_t b, size_t e)
{
    struct P_(h_ctx) *x = arg;
    for (size_t i = b; i < e; i++) {
        P_(fr_t) t;
        P_(fr_mul)(&t, &x->a[i], &x->b[i]);
        P_(fr_sub)(&t, &t, &x->c[i]);
        P_(fr_mul)(&x->a[i], &t, &P_(fr_r2)); /* R^2 as plain limbs */
    }
}

struct P_(c_ctx) {
    const P_(fr_t) *a, *b;
    P_(fr_t) *c;
};

/* c_i = a_i·b_i, the Montgomery product of the slot's standard-form a and
 * b: a·b·R^-1 (shm/payload.h). */
static void P_(c_pass)(void *arg, size_t b, size_t e)
{
    struct P_(c_ctx) *x = arg;
    for (size_t i = b; i < e; i++)
        P_(fr_mul)(&x->c[i], &x->a[i], &x->b[i]);
}

/* c ← a∘b (cpu_prove.h X_form_c). */
void P_(form_c)(P_(fr_t) *c, const P_(fr_t) *a, const P_(fr_t) *b, size_t n, unsigned nthreads)
{
    struct P_(c_ctx) cx = { a, b, c };
    parallel_for(n, 1 << 14, nthreads, P_(c_pass), &cx);
}

/* The four witness MSMs' sums (Jacobian). */
struct P_(pis) {
    P_(g1_jac_t) a, b1, c;
    P_(g2_jac_t) b;
};

/* The witness MSM of stage st (STAGE_MSM_A, _B1, _B2 or _C) into its sum in
 * *pi, on nthreads threads: A, B1 and B2 over all nVars witness values
 * (32-byte Fr, Montgomery form), C over the private ones (after 1 + nPublic).
 * 0 or -ENOMEM. */
static int P_(witness_msm)(struct P_(pis) *pi, enum stage st, const struct zkey *zk,
                           const uint8_t *witness, unsigned nthreads)
{
    size_t nv = zk->n_vars, np = zk->n_public;
    switch (st) {
    case STAGE_MSM_A:
        return P_(g1_msm)(&pi->a, zk->a, witness, nv, nthreads);
    case STAGE_MSM_B1:
        return P_(g1_msm)(&pi->b1, zk->b1, witness, nv, nthreads);
    case STAGE_MSM_B2:
        return P_(g2_msm)(&pi->b, zk->b2, witness, nv, nthreads);
    default: /* STAGE_MSM_C */
        return P_(g1_msm)(&pi->c, zk->c, witness + 32 * (np + 1), nv - np - 1, nthreads);
    }
}

/* The H pass's operands: a, b, c after their LDEs. */
static void P_(h_init)(struct P_(h_ctx) *hx, P_(fr_t) *a, const P_(fr_t) *b, const P_(fr_t) *c)
{
    hx->a = a;
    hx->b = b;
    hx->c = c;
}

/* The NTT stage on nthreads threads, one step after another: c = a∘b into
 * the buffer c, 3 coset LDEs and the H scalars (written over a). */
static void P_(ntt_stage)(P_(fr_t) *a, P_(fr_t) *b, P_(fr_t) *c,
                          const struct PC_CAT(PC, ntt_domain) *dom, unsigned nthreads)
{
    P_(form_c)(c, a, b, dom->n, nthreads);
    PC_CAT(PC, ntt_coset_lde)(a, dom, nthreads);
    PC_CAT(PC, ntt_coset_lde)(b, dom, nthreads);
    PC_CAT(PC, ntt_coset_lde)(c, dom, nthreads);
    struct P_(h_ctx) hx;
    P_(h_init)(&hx, a, b, c);
    parallel_for(dom->n, 1 << 14, nthreads, P_(h_pass), &hx);
}

/* A proof's stages as one-thread jobs for two threads (cpu_prove). */
struct P_(early) {
    const struct zkey *zk;
    P_(fr_t) *a, *b, *c;
    const uint8_t *witness;
    const struct PC_CAT(PC, ntt_domain) *dom;
    struct P_(pis) pi;
    struct P_(h_ctx) hx;        /* the H pass's operands */
    struct P_(g1_msm_split) *h; /* the H MSM's window tasks, or NULL */
    pthread_mutex_t lock;       /* guards lde_done, h_done */
    pthread_cond_t cond;
    int lde_done, h_done;       /* LDE jobs (of 3) and H-pass halves (of 2) done */
    int rc;                     /* an error (-ENOMEM), under __atomic ops */
    uint64_t ns[STAGE_COUNT];   /* STAGE_NTT: the LDE and H-pass jobs' sum */
    uint64_t h0, h1;            /* first H task's start, last one's end */
};

/* Waits until *v ≥ want (under x->lock), then returns. */
static void P_(early_wait)(struct P_(early) *x, const int *v, int want)
{
    pthread_mutex_lock(&x->lock);
    while (*v < want)
        pthread_cond_wait(&x->cond, &x->lock);
    pthread_mutex_unlock(&x->lock);
}

/* ++*v and wakes the waiters. */
static void P_(early_post)(struct P_(early) *x, int *v)
{
    pthread_mutex_lock(&x->lock);
    ++*v;
    pthread_cond_broadcast(&x->cond);
    pthread_mutex_unlock(&x->lock);
}

#define P_EARLY_LDE 0    /* jobs 0..2: the coset LDE of a, b, c */
#define P_EARLY_MSM 3    /* jobs 3..6: the witness MSMs */
#define P_EARLY_HPASS 7  /* jobs 7, 8: the H pass, two halves */
#define P_EARLY_HMSM 9   /* jobs 9..: the H MSM's window tasks */

/* Job i on one thread: 0..2 the coset LDE of a, b, c (c = a∘b is formed
 * before the jobs start); 3..6 the witness MSMs G2, C, A, B1 (longest
 * first, so that two threads taking them in turn end close together;
 * one-thread times at BLS12-381 2^15 about 83, 72, 47, 35 ms, an LDE about
 * 12); 7, 8 the H pass over one half of the domain each, after the three
 * LDEs; then, with x->h, the H MSM's window tasks, after both halves: the
 * fine-grained tail that evens out the two threads. The LDEs come first
 * so that the jobs that wait for them rarely do (on circuits whose witness
 * MSMs are small, such as circomlib's SHA-256 with its bits, the other
 * thread would otherwise sit idle through one thread's whole NTT stage). */
static void P_(early_job)(void *arg, size_t b, size_t e)
{
    static const enum stage msm_job[] = { STAGE_MSM_B2, STAGE_MSM_C, STAGE_MSM_A, STAGE_MSM_B1 };
    struct P_(early) *x = arg;
    for (size_t i = b; i < e; i++) {
        uint64_t s0 = now_ns();
        if (i < P_EARLY_MSM) {
            P_(fr_t) *v = i == 0 ? x->a : i == 1 ? x->b : x->c;
            PC_CAT(PC, ntt_coset_lde)(v, x->dom, 1);
            __atomic_add_fetch(&x->ns[STAGE_NTT], now_ns() - s0, __ATOMIC_RELAXED);
            P_(early_post)(x, &x->lde_done);
        } else if (i < P_EARLY_HPASS) {
            enum stage st = msm_job[i - P_EARLY_MSM];
            int rc = P_(witness_msm)(&x->pi, st, x->zk, x->witness, 1);
            x->ns[st] = now_ns() - s0;
            if (rc < 0)
                __atomic_store_n(&x->rc, rc, __ATOMIC_RELAXED);
        } else if (i < P_EARLY_HMSM) {
            P_(early_wait)(x, &x->lde_done, 3);
            s0 = now_ns();
            size_t n = x->dom->n, mid = n / 2;
            if (i == P_EARLY_HPASS)
                P_(h_pass)(&x->hx, 0, mid);
            else
                P_(h_pass)(&x->hx, mid, n);
            __atomic_add_fetch(&x->ns[STAGE_NTT], now_ns() - s0, __ATOMIC_RELAXED);
            P_(early_post)(x, &x->h_done);
        } else {
            P_(early_wait)(x, &x->h_done, 2);
            s0 = now_ns();
            __atomic_compare_exchange_n(&x->h0, &(uint64_t){ 0 }, s0, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            P_(g1_msm_split_run)(x->h, i - P_EARLY_HMSM, i - P_EARLY_HMSM + 1);
            uint64_t s1 = now_ns();
            /* the latest end (few tasks, rare contention) */
            uint64_t cur = __atomic_load_n(&x->h1, __ATOMIC_RELAXED);
            while (cur < s1 && !__atomic_compare_exchange_n(&x->h1, &cur, s1, 0,
                                                            __ATOMIC_RELAXED,
                                                            __ATOMIC_RELAXED))
                ;
        }
    }
}

int P_(cpu_prove)(const struct zkey *zk, P_(fr_t) *a, P_(fr_t) *b, P_(fr_t) *c,
                  const uint8_t *witness, const struct PC_CAT(PC, ntt_domain) *dom,
                  unsigned nthreads, stage_progress_fn progress, void *progress_arg,
                  struct groth16_proof *out, struct stage_times *t, struct sp_err *e)
{
#define STAGE_DONE(st) \
    do { \
        if (progress) \
            progress(progress_arg, (st), t->ns[st]); \
    } while (0)
    uint64_t s0;
    size_t n = zk->domain_size;
    int rc = 0;
    if (nthreads == 0)
        nthreads = parallel_threads();
    static const enum stage msms[] = { STAGE_MSM_A, STAGE_MSM_B1, STAGE_MSM_B2, STAGE_MSM_C };
    struct P_(pis) pi;
    P_(g1_jac_t) pi_h;

    struct P_(g1_msm_split) *hs = NULL;
    if (nthreads == 2 && !getenv("SLOTPROVE_SERIAL_STAGES")) {
        /* Two threads: c = a∘b on both, then one job list taken two at a
         * time (P_(early_job)): the three coset LDEs and the four witness
         * MSMs as one-thread jobs (no barriers inside them, each thread on
         * its own data), the H pass in two halves once the LDEs are done;
         * then the H MSM: from 2^15 on (where its plain windows are used
         * anyway, see msm_tmpl.h) its window tasks are the tail of the same
         * job list, below that it runs after on both threads (with the GLV
         * split). The stage times overlap; `prove` is the wall time. */
        struct P_(early) x = { .zk = zk, .a = a, .b = b, .c = c, .witness = witness,
                               .dom = dom };
        s0 = now_ns();
        P_(form_c)(c, a, b, n, 2);
        x.ns[STAGE_NTT] = now_ns() - s0;
        P_(h_init)(&x.hx, a, b, c);
        size_t njobs = P_EARLY_HMSM;
        if (n >= ((size_t)1 << 15)) {
            if ((rc = P_(g1_msm_split_begin)(&hs, zk->h, a, n, 2)) < 0)
                return sp_fail(e, rc, "MSM: out of memory");
            x.h = hs;
            njobs += P_(g1_msm_split_tasks)(hs);
        }
        pthread_mutex_init(&x.lock, NULL);
        pthread_cond_init(&x.cond, NULL);
        parallel_for(njobs, 1, 2, P_(early_job), &x);
        pthread_cond_destroy(&x.cond);
        pthread_mutex_destroy(&x.lock);
        t->ns[STAGE_NTT] = x.ns[STAGE_NTT];
        STAGE_DONE(STAGE_NTT);
        for (size_t i = 0; i < sizeof(msms) / sizeof(msms[0]); i++) {
            t->ns[msms[i]] = x.ns[msms[i]];
            STAGE_DONE(msms[i]);
        }
        rc = x.rc;
        pi = x.pi;
        if (hs) {
            t->ns[STAGE_MSM_H] = x.h1 > x.h0 ? x.h1 - x.h0 : 0;
            int rh = P_(g1_msm_split_end)(&pi_h, hs);
            if (rc == 0)
                rc = rh;
        }
    } else {
        s0 = now_ns();
        P_(ntt_stage)(a, b, c, dom, nthreads);
        t->ns[STAGE_NTT] = now_ns() - s0, s0 = now_ns();
        STAGE_DONE(STAGE_NTT);
        for (size_t i = 0; i < sizeof(msms) / sizeof(msms[0]); i++) {
            if (rc == 0)
                rc = P_(witness_msm)(&pi, msms[i], zk, witness, nthreads);
            t->ns[msms[i]] = now_ns() - s0, s0 = now_ns();
            STAGE_DONE(msms[i]);
        }
    }
    if (!hs) {
        s0 = now_ns();
        if (rc == 0)
            rc = P_(g1_msm)(&pi_h, zk->h, a, n, nthreads);
        t->ns[STAGE_MSM_H] = now_ns() - s0;
    }
    STAGE_DONE(STAGE_MSM_H);
    if (rc < 0)
        return sp_fail(e, rc, "MSM: out of memory");

    return P_(groth16_assemble)(zk, &pi.a, &pi.b1, &pi.b, &pi.c, &pi_h, out, e);
#undef STAGE_DONE
}

#undef P_EARLY_LDE
#undef P_EARLY_MSM
#undef P_EARLY_HPASS
#undef P_EARLY_HMSM
#undef P_
#undef PC_CAT
#undef PC_CAT2
#undef PC
