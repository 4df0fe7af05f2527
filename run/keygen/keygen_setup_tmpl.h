/*
 * keygen_setup_tmpl.h — one curve's whole `keygen` run: the setup's secrets,
 * the QAP at τ, the key's sections, the witness file and vk.json. A "C
 * template": define
 *   KG_FR, KG, KG_NTT  as for keygen_circuit_tmpl.h / keygen_qap_tmpl.h
 *   KG_G1, KG_G2       group prefixes (bn254_g1, bn254_g2, …)
 *   KG_FP, KG_FP2      their coordinate fields; KG_FP_LIMBS its limbs
 *   KG_PAIR            pairing prefix (common/<curve>_pairing.h) for
 *                      vk_alphabeta_12 = e(alpha1, beta2)
 *   KG_RUN             name of the entry point (keygen_bn254)
 * then include (after the two other templates).
 *
 * The key has the form snarkjs's `zkey new` plus contributions gives for
 * this circuit, except that γ is random too (snarkjs leaves gamma2 at the
 * generator), with every secret drawn by one party (Groth16, as in snarkjs
 * zkey_new.js and the Groth16 paper, eprint 2016/260 §3.2):
 *   u_s, v_s, w_s = Σ over the A, B, C entries of signal s: value·L_row(τ),
 *                   plus L_{N+s}(τ) in u_s for s ≤ K (the public-input rows);
 *   alpha1 = α·G1, beta1 = β·G1, beta2 = β·G2, gamma2 = γ·G2,
 *   delta1 = δ·G1, delta2 = δ·G2;
 *   IC_s = (β u_s + α v_s + w_s)/γ·G1 (s ≤ K), C_s = (…)/δ·G1 (s > K),
 *   A_s = u_s·G1, B1_s = v_s·G1, B2_s = v_s·G2, H_i = h_i·G1 (keygen_curve.h).
 * The secrets live in this function's locals only and are wiped before it
 * returns (INSECURE all the same: one party knew them, and with --seed
 * anyone can recompute them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixed_base.h"
#include "parallel.h"
#include "proof.h"
#include "random.h"
#include "binfile_write.h"
#include "wtns_write.h"
#include "zkey_write.h"

#define KS_CAT2(a, b) a##_##b
#define KS_CAT(a, b) KS_CAT2(a, b)
#define KF(name) KS_CAT(KG_FR, name)
#define KGF(name) KS_CAT(KG, name)
#define K1(name) KS_CAT(KG_G1, name)
#define K2(name) KS_CAT(KG_G2, name)
#define KT KS_CAT(KG_FR, t)
#define KA1 KS_CAT(KG_G1, affine_t)
#define KA2 KS_CAT(KG_G2, affine_t)
#define KJ1 KS_CAT(KG_G1, jac_t)
#define KJ2 KS_CAT(KG_G2, jac_t)
#define KTERM struct KS_CAT(KG, term)
#define KQAP struct KS_CAT(KG, qap)

#define KS_CHUNK ((size_t)1 << 16) /* points per batch of a section */
#define KS_COEF_BUF 65536          /* coefficient entries per write */

_Static_assert(sizeof(KA1) == 2 * sizeof(KS_CAT(KG_FP, t)), "G1 affine is x||y as in a zkey");
_Static_assert(sizeof(KA2) == 4 * sizeof(KS_CAT(KG_FP, t)), "G2 affine is x.c0||x.c1||y.c0||y.c1");

/* A uniform non-zero secret: from the seeded stream, or from getrandom. */
static int KGF(secret)(KT *ret, struct keygen_rng *g, int seeded)
{
    do {
        if (seeded) {
            keygen_rng_below(g, ret->l, KF(modulus).l);
        } else {
            int rc = random_below(ret->l, KF(modulus).l);
            if (rc < 0)
                return rc;
        }
    } while (KF(is_zero)(ret));
    return 0;
}

struct KGF(lagrange_ctx) {
    const KQAP *q;
    KT *L;
    int failed;
};

static void KGF(lagrange_chunk)(void *arg, size_t b, size_t e)
{
    struct KGF(lagrange_ctx) *c = arg;
    if (KGF(lagrange)(c->q, c->L + b, b, e - b) < 0)
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
}

/* State of the circuit pass: QAP sums and the coefficient section. */
struct KGF(acc) {
    const KT *L;
    KT *u, *v, *w;
    struct zkey_coef *buf;
    size_t nbuf;
    uint64_t written;       /* entries already in the file */
    int fd;
    const char *path;
    uint64_t off;           /* file offset of entry 0 */
    struct sp_err *e;
    struct keygen_progress *progress; /* advanced by one unit per constraint */
};

static int KGF(flush)(struct KGF(acc) *a)
{
    int rc = file_pwrite(a->fd, a->path, a->buf, a->nbuf * sizeof(struct zkey_coef),
                         a->off + a->written * sizeof(struct zkey_coef), a->e);
    a->written += a->nbuf;
    a->nbuf = 0;
    return rc;
}

/* One section-4 entry: value stored as v·R² mod r, standard form — to_mont
 * of the Montgomery form v·R (snarkjs zkey_new.js writeCoef: Fr.mul(n, R2r)). */
static int KGF(put_coef)(struct KGF(acc) *a, uint32_t matrix, uint32_t row, uint32_t signal,
                         const KT *value)
{
    struct zkey_coef *c = &a->buf[a->nbuf++];
    KT v2;
    KF(to_mont)(&v2, value);
    c->matrix = matrix;
    c->constraint = row;
    c->signal = signal;
    KF(to_bytes)(c->value, &v2);
    return a->nbuf == KS_COEF_BUF ? KGF(flush)(a) : 0;
}

static int KGF(emit)(void *ctx, uint32_t row, const KTERM *const rows[3], const unsigned nt[3])
{
    struct KGF(acc) *a = ctx;
    KT *sum[3] = { a->u, a->v, a->w };
    int rc = 0;
    for (unsigned m = 0; m < 3; m++)
        for (unsigned k = 0; k < nt[m]; k++) {
            const KTERM *t = &rows[m][k];
            KT p;
            KF(mul)(&p, &t->value, &a->L[row]);
            KF(add)(&sum[m][t->signal], &sum[m][t->signal], &p);
            if (m < 2 && (rc = KGF(put_coef)(a, m, row, t->signal, &t->value)) < 0)
                return rc;
        }
    if ((row & 0xffff) == 0xffff)
        keygen_advance(a->progress, 0x10000);
    return 0;
}

/* Which scalars a section takes. */
enum KGF(what) { KS_IC, KS_A, KS_B, KS_C, KS_H };

struct KGF(points) {
    const struct keygen_job *j;
    const KT *u, *v, *w;
    const KQAP *q;
    KT alpha, beta, gamma_inv, delta_inv;
    struct K1(fb_table) t1;
    struct K2(fb_table) t2;
    struct keygen_gpu *gpu;  /* the tables on the GPU, or NULL: the CPU multiplies */
    KT *sc;                  /* KS_CHUNK scalars, Montgomery form */
    uint64_t (*k)[4];        /* the same, standard form */
    void *pts;               /* KS_CHUNK affine points */
    KA1 *ic;                 /* IC points kept for vk.json */
};

/* Scalars [first, first+count) of a section into p->sc. */
static int KGF(scalars)(struct KGF(points) *p, enum KGF(what) what, uint64_t first, size_t count)
{
    uint32_t base = what == KS_C ? p->j->shape.n_public + 1 : 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t s = base + first + i;
        KT x, y;
        switch (what) {
        case KS_A: p->sc[i] = p->u[s]; break;
        case KS_B: p->sc[i] = p->v[s]; break;
        case KS_IC:
        case KS_C:
            KF(mul)(&x, &p->beta, &p->u[s]);
            KF(mul)(&y, &p->alpha, &p->v[s]);
            KF(add)(&x, &x, &y);
            KF(add)(&x, &x, &p->w[s]);
            KF(mul)(&p->sc[i], &x, what == KS_IC ? &p->gamma_inv : &p->delta_inv);
            break;
        case KS_H: return KGF(h_bases)(p->q, p->sc, first, count);
        }
    }
    return 0;
}

/* --backend auto and the GPU failed: say why and go on on the CPU. */
static void KGF(gpu_off)(struct KGF(points) *p, const char *why)
{
    fprintf(stderr, "\nslotprove keygen: the GPU failed (%s); the CPU computes the rest of the points\n",
            why);
    keygen_gpu_close(p->gpu);
    p->gpu = NULL;
}

/* Writes section id: count points of scalars `what`, in G1 or G2. */
static int KGF(section)(struct KGF(points) *p, const struct zkey_layout *l, unsigned id,
                        enum KGF(what) what, uint64_t count, int g2, struct sp_err *e)
{
    const struct keygen_job *j = p->j;
    size_t psize = g2 ? sizeof(KA2) : sizeof(KA1);
    for (uint64_t first = 0; first < count; first += KS_CHUNK) {
        size_t n = count - first < KS_CHUNK ? (size_t)(count - first) : KS_CHUNK;
        int rc = KGF(scalars)(p, what, first, n);
        if (rc < 0)
            return sp_fail(e, rc, "%s: out of memory", j->zkey_path);
        for (size_t i = 0; i < n; i++)
            KF(from_mont)((KT *)p->k[i], &p->sc[i]);
        if (p->gpu && (rc = keygen_gpu_mul(p->gpu, g2, p->pts, (const uint64_t(*)[4])p->k, n, e)) < 0) {
            if (j->gpu == KEYGEN_GPU_REQUIRED)
                return rc;
            KGF(gpu_off)(p, e->msg); /* --backend auto: the CPU takes over */
        }
        if (!p->gpu) {
            rc = g2 ? K2(fb_mul_batch)(p->pts, &p->t2, (const uint64_t(*)[4])p->k, n, j->nthreads)
                    : K1(fb_mul_batch)(p->pts, &p->t1, (const uint64_t(*)[4])p->k, n, j->nthreads);
            if (rc < 0)
                return sp_fail(e, rc, "%s: out of memory", j->zkey_path);
        }
        if (what == KS_IC)
            memcpy(p->ic + first, p->pts, n * psize);
        if ((rc = file_pwrite(j->zkey_fd, j->zkey_path, p->pts, n * psize,
                              l->off[id] + first * psize, e)) < 0)
            return rc;
        keygen_advance(j->progress, g2 ? 3 * n : n);
    }
    return 0;
}

/* Standard-form limbs of affine coordinates, for vk.json. */
static void KGF(g1_std)(uint64_t out[2][6], const KA1 *a)
{
    KS_CAT(KG_FP, t) t;
    memset(out, 0, 2 * 6 * sizeof(uint64_t));
    KS_CAT(KG_FP, from_mont)(&t, &a->x);
    memcpy(out[0], t.l, sizeof(t.l));
    KS_CAT(KG_FP, from_mont)(&t, &a->y);
    memcpy(out[1], t.l, sizeof(t.l));
}

static void KGF(g2_std)(uint64_t out[2][2][6], const KA2 *a)
{
    KS_CAT(KG_FP2, t) t;
    memset(out, 0, 2 * 2 * 6 * sizeof(uint64_t));
    KS_CAT(KG_FP2, from_mont)(&t, &a->x);
    memcpy(out[0][0], t.c0.l, sizeof(t.c0.l));
    memcpy(out[0][1], t.c1.l, sizeof(t.c1.l));
    KS_CAT(KG_FP2, from_mont)(&t, &a->y);
    memcpy(out[1][0], t.c0.l, sizeof(t.c0.l));
    memcpy(out[1][1], t.c1.l, sizeof(t.c1.l));
}

/* Writes section 2's six points (alpha1, beta1, beta2, gamma2, delta1,
 * delta2: its on-disk order) and the other headers, and fills vk's alpha1,
 * beta2, gamma2, delta2 and vk_alphabeta_12. */
static int KGF(header)(const struct KGF(points) *p, const struct zkey_layout *l,
                       struct keygen_vk *vk, const KT *alpha, const KT *beta,
                       const KT *gamma, const KT *delta, struct sp_err *e)
{
    const KT *g1s[3] = { alpha, beta, delta }, *g2s[3] = { beta, gamma, delta };
    KA1 p1[3];
    KA2 p2[3];
    for (int i = 0; i < 3; i++) {
        KJ1 j1;
        KJ2 j2;
        KT k1, k2;
        KF(from_mont)(&k1, g1s[i]);
        KF(from_mont)(&k2, g2s[i]);
        K1(fb_mul)(&j1, &p->t1, k1.l);
        K2(fb_mul)(&j2, &p->t2, k2.l);
        K1(to_affine)(&p1[i], &j1);
        K2(to_affine)(&p2[i], &j2);
    }
    uint8_t hdr[3 * sizeof(KA1) + 3 * sizeof(KA2)], *h = hdr;
    memcpy(h, &p1[0], sizeof(KA1)); h += sizeof(KA1);
    memcpy(h, &p1[1], sizeof(KA1)); h += sizeof(KA1);
    memcpy(h, &p2[0], sizeof(KA2)); h += sizeof(KA2);
    memcpy(h, &p2[1], sizeof(KA2)); h += sizeof(KA2);
    memcpy(h, &p1[2], sizeof(KA1)); h += sizeof(KA1);
    memcpy(h, &p2[2], sizeof(KA2));
    int rc = zkey_write_headers(p->j->zkey_fd, p->j->zkey_path, l, hdr, e);
    if (rc < 0)
        return rc;
    KGF(g1_std)(vk->alpha1, &p1[0]);
    KGF(g2_std)(vk->beta2, &p2[0]);
    KGF(g2_std)(vk->gamma2, &p2[1]);
    KGF(g2_std)(vk->delta2, &p2[2]);

    /* vk_alphabeta_12 = e(alpha1, beta2), in ffjavascript's Fp12 layout
     * ([w][v][u], the same as common/fp12_tmpl.h's c0/c1 of c0/c1/c2) */
    KS_CAT(KG_PAIR, fp12_t) ab;
    KS_CAT(KG_PAIR, pairing)(&ab, &p1[0], &p2[0]);
    const KS_CAT(KG_FP2, t) *abc[2][3] = { { &ab.c0.c0, &ab.c0.c1, &ab.c0.c2 },
                                          { &ab.c1.c0, &ab.c1.c1, &ab.c1.c2 } };
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            KS_CAT(KG_FP2, t) t;
            KS_CAT(KG_FP2, from_mont)(&t, abc[i][k]);
            memcpy(vk->alphabeta[i][k][0], t.c0.l, sizeof(t.c0.l));
            memcpy(vk->alphabeta[i][k][1], t.c1.l, sizeof(t.c1.l));
        }
    return 0;
}

int KG_RUN(struct keygen_job *j, struct sp_err *e)
{
    const struct keygen_shape *s = &j->shape;
    struct keygen_rng g, gs;
    KT tau, alpha, beta, gamma, delta, shift;
    KQAP q;
    struct zkey_layout l;
    struct KGF(acc) a = { 0 };
    struct KGF(points) p = { 0 };
    KT *L = NULL, *w = NULL;
    uint8_t *wbytes = NULL;
    int rc;

    keygen_rng_seed(&g, j->seed);
    keygen_rng_seed(&gs, j->seed ^ 0x5ec7e75ec7e75ec7ULL); /* the secrets' own stream */
    zkey_layout(&l, j->curve, s->n_vars, s->n_public, s->domain_size, s->n_coefs);
    KS_CAT(KG_NTT, coset_shift)(&shift, s->log_domain);

    /* Secrets; τ again in the (negligible) case it lands on the domain or coset. */
    if ((rc = KGF(secret)(&alpha, &gs, j->seeded)) < 0 ||
        (rc = KGF(secret)(&beta, &gs, j->seeded)) < 0 ||
        (rc = KGF(secret)(&gamma, &gs, j->seeded)) < 0 ||
        (rc = KGF(secret)(&delta, &gs, j->seeded)) < 0) {
        rc = sp_fail(e, rc, "getrandom: %s", strerror(-rc));
        goto out;
    }
    do {
        if ((rc = KGF(secret)(&tau, &gs, j->seeded)) < 0) {
            rc = sp_fail(e, rc, "getrandom: %s", strerror(-rc));
            goto out;
        }
    } while (KGF(qap_init)(&q, &tau, &delta, s->log_domain, &shift) < 0);

    /* L_i(τ) over the domain. */
    keygen_phase(j->progress, "Lagrange bases at tau");
    L = malloc((size_t)s->domain_size * sizeof(KT));
    a.u = calloc(s->n_vars, sizeof(KT));
    a.v = calloc(s->n_vars, sizeof(KT));
    a.w = calloc(s->n_vars, sizeof(KT));
    w = malloc((size_t)s->n_vars * sizeof(KT));
    a.buf = malloc(KS_COEF_BUF * sizeof(struct zkey_coef));
    if (!L || !a.u || !a.v || !a.w || !w || !a.buf) {
        rc = sp_fail(e, -ENOMEM, "out of memory for a 2^%u key", s->log_domain);
        goto out;
    }
    struct KGF(lagrange_ctx) lc = { .q = &q, .L = L, .failed = 0 };
    parallel_for(s->domain_size, (size_t)1 << 14, j->nthreads, KGF(lagrange_chunk), &lc);
    if (lc.failed) {
        rc = sp_fail(e, -ENOMEM, "out of memory for a 2^%u key", s->log_domain);
        goto out;
    }
    keygen_phase_end(j->progress);

    /* The circuit: section 4 and the QAP sums, then the public-input rows. */
    keygen_phase(j->progress, "circuit and witness");
    keygen_phase_units(j->progress, s->n_constraints);
    a.progress = j->progress;
    a.L = L;
    a.fd = j->zkey_fd;
    a.path = j->zkey_path;
    a.off = l.off[ZKEY_COEFS] + 4;
    a.e = e;
    if ((rc = KGF(circuit)(s, &g, w, KGF(emit), &a)) < 0) {
        if (rc == -ENOMEM)
            rc = sp_fail(e, rc, "out of memory for a 2^%u key", s->log_domain);
        goto out;
    }
    for (uint32_t k = 0; k <= s->n_public; k++) {
        KT one;
        KF(set_one)(&one);
        KF(add)(&a.u[k], &a.u[k], &L[s->n_constraints + k]);
        if ((rc = KGF(put_coef)(&a, 0, s->n_constraints + k, k, &one)) < 0)
            goto out;
    }
    if ((rc = KGF(flush)(&a)) < 0)
        goto out;
    if (a.written != s->n_coefs) {
        rc = sp_fail(e, SP_EINTERNAL, "%s: wrote %llu coefficients, planned %llu", j->zkey_path,
                     (unsigned long long)a.written, (unsigned long long)s->n_coefs);
        goto out;
    }
    free(L);
    L = NULL;

    /* The witness file (standard form) and public.json. */
    wbytes = malloc((size_t)s->n_vars * 32);
    if (!wbytes) {
        rc = sp_fail(e, -ENOMEM, "out of memory for a 2^%u key", s->log_domain);
        goto out;
    }
    for (uint32_t i = 0; i < s->n_vars; i++) {
        KT t;
        KF(from_mont)(&t, &w[i]);
        KF(to_bytes)(wbytes + 32 * (size_t)i, &t);
    }
    if ((rc = wtns_write(j->wtns_fd, j->wtns_path, j->curve, wbytes, s->n_vars, e)) < 0)
        goto out;
    j->public_json = public_to_json(wbytes + 32, s->n_public);
    if (!j->public_json) {
        rc = sp_fail(e, -ENOMEM, "out of memory");
        goto out;
    }
    free(w);
    free(wbytes);
    w = NULL;
    wbytes = NULL;
    keygen_phase_end(j->progress);

    /* Tables of multiples of the generators. */
    keygen_phase(j->progress, "generator tables");
    uint64_t g1_count = 3 * (uint64_t)s->n_vars + s->domain_size;
    if ((rc = K1(fb_init)(&p.t1, &KS_CAT(KG_G1, generator), K1(fb_window)(g1_count), j->nthreads)) < 0 ||
        (rc = K2(fb_init)(&p.t2, &KS_CAT(KG_G2, generator), K2(fb_window)(s->n_vars), j->nthreads)) < 0) {
        rc = sp_fail(e, rc, "out of memory for the generator tables");
        goto out;
    }
    if (j->gpu && (rc = keygen_gpu_open(&p.gpu, j->curve, p.t1.pts, p.t1.window, p.t2.pts,
                                        p.t2.window, KS_CHUNK, e)) < 0) {
        if (j->gpu == KEYGEN_GPU_REQUIRED)
            goto out;
        KGF(gpu_off)(&p, e->msg);
    }
    keygen_phase_end(j->progress);

    /* Section 2 and the verification key's fixed part. */
    p.j = j;
    struct keygen_vk vk;
    memset(&vk, 0, sizeof(vk));
    vk.curve = j->curve;
    vk.n_public = s->n_public;
    if ((rc = KGF(header)(&p, &l, &vk, &alpha, &beta, &gamma, &delta, e)) < 0)
        goto out;
    {
        /* The point sections. */
        p.u = a.u;
        p.v = a.v;
        p.w = a.w;
        p.q = &q;
        p.alpha = alpha;
        p.beta = beta;
        KF(inv)(&p.gamma_inv, &gamma);
        KF(inv)(&p.delta_inv, &delta);
        p.sc = malloc(KS_CHUNK * sizeof(KT));
        p.k = malloc(KS_CHUNK * sizeof(*p.k));
        p.pts = malloc(KS_CHUNK * sizeof(KA2));
        p.ic = malloc(((size_t)s->n_public + 1) * sizeof(KA1));
        vk.ic = malloc(((size_t)s->n_public + 1) * sizeof(*vk.ic));
        if (!p.sc || !p.k || !p.pts || !p.ic || !vk.ic) {
            free(vk.ic);
            rc = sp_fail(e, -ENOMEM, "out of memory");
            goto out;
        }
        keygen_phase(j->progress, "points");
        keygen_phase_units(j->progress, keygen_work(s));
        uint64_t nv = s->n_vars, np = s->n_public;
        if ((rc = KGF(section)(&p, &l, ZKEY_IC, KS_IC, np + 1, 0, e)) < 0 ||
            (rc = KGF(section)(&p, &l, ZKEY_A, KS_A, nv, 0, e)) < 0 ||
            (rc = KGF(section)(&p, &l, ZKEY_B1, KS_B, nv, 0, e)) < 0 ||
            (rc = KGF(section)(&p, &l, ZKEY_B2, KS_B, nv, 1, e)) < 0 ||
            (rc = KGF(section)(&p, &l, ZKEY_C, KS_C, nv - np - 1, 0, e)) < 0 ||
            (rc = KGF(section)(&p, &l, ZKEY_H, KS_H, s->domain_size, 0, e)) < 0) {
            free(vk.ic);
            goto out;
        }
        keygen_phase_end(j->progress);
        for (uint64_t i = 0; i <= np; i++)
            KGF(g1_std)(vk.ic[i], &p.ic[i]);
        j->vk_json = keygen_vk_json(&vk);
        free(vk.ic);
        if (!j->vk_json) {
            rc = sp_fail(e, -ENOMEM, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    /* Forget the secrets (and the values derived from them). */
    explicit_bzero(&tau, sizeof(tau));
    explicit_bzero(&alpha, sizeof(alpha));
    explicit_bzero(&beta, sizeof(beta));
    explicit_bzero(&gamma, sizeof(gamma));
    explicit_bzero(&delta, sizeof(delta));
    explicit_bzero(&q, sizeof(q));
    explicit_bzero(&p.alpha, sizeof(p.alpha));
    explicit_bzero(&p.beta, sizeof(p.beta));
    explicit_bzero(&p.gamma_inv, sizeof(p.gamma_inv));
    explicit_bzero(&p.delta_inv, sizeof(p.delta_inv));
    explicit_bzero(&gs, sizeof(gs));
    keygen_gpu_close(p.gpu);
    K1(fb_free)(&p.t1);
    K2(fb_free)(&p.t2);
    free(p.sc);
    free(p.k);
    free(p.pts);
    free(p.ic);
    free(L);
    free(a.u);
    free(a.v);
    free(a.w);
    free(a.buf);
    free(w);
    free(wbytes);
    return rc;
}

#undef KS_CAT2
#undef KS_CAT
#undef KF
#undef KGF
#undef K1
#undef K2
#undef KT
#undef KA1
#undef KA2
#undef KJ1
#undef KJ2
#undef KTERM
#undef KQAP
#undef KS_CHUNK
#undef KS_COEF_BUF
