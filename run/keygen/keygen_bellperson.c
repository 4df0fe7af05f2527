/*
 * keygen_bellperson.c - `slotprove keygen --format bellperson`: the
 * synthetic circuit of keygen_circuit_tmpl.h over BLS12-381, from ONE set of
 * secrets (τ, α, β, γ, δ), as both
 *   circuit.params / circuit.vk   bellperson's parameter files
 *                                 (common/bellperson_params.h)
 *   circuit.pce                   cuzk's constraint file (bellperson_pce.h)
 *   circuit.zkey / vk.json        the snarkjs key of the same circuit
 *   circuit.wtns / public.json    a satisfying witness (the same for both)
 * INSECURE, FOR TESTING ONLY, like every keygen key.
 *
 * Why the two keys share a verification key: bellperson puts constraint i
 * at ω_b^i (ω_b = 7^((r−1)/n)), snarkjs at ω_s^i (5-based). Both are the
 * same n points, in another order: ω_b^i = ω_s^(u·i mod n) for the odd u of
 * bp_row_map_factor. So the zkey lists bellperson's row i as its
 * constraint u·i mod n (the public-input rows N + k likewise), and every
 * wire's A_j(τ), B_j(τ), C_j(τ) - hence IC, A, B, L/C - is the same number
 * in both keys. Only the h/H sections differ in kind: the zkey's H holds
 * snarkjs's coset Lagrange bases (keygen_curve.h), the .params h the
 * monomials τ^i·Z(τ)/δ, i < n − 1.
 *
 * The circuit pass is held in memory whole (wires × ~100 bytes, the
 * domain's Lagrange bases while it runs, plus the matrices); the point
 * sections are computed and written in batches of KEYGEN_BP_CHUNK points, on the
 * GPU helper (keygen_gpu.h, --backend cuda|auto) or the CPU, the same bytes
 * either way. The .params is written in order; its l section is read back
 * from the zkey's C section (the same points).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bellperson_ntt.h"
#include "bellperson_pce_write.h"
#include "binfile_write.h"
#include "bls12381_pairing.h"
#include "bls12381_zcash.h"
#include "fixed_base.h"
#include "keygen_circuit.h"
#include "keygen_types.h"
#include "keygen_bellperson.h"
#include "keygen_curve.h"
#include "keygen_gpu.h"
#include "keygen_progress.h"
#include "keygen_vk.h"
#include "parallel.h"
#include "proof.h"
#include "random.h"
#include "wtns_write.h"
#include "zkey_write.h"

typedef bls12381_fr_t fr_t;
typedef bls12381_g1_affine_t g1_t;
typedef bls12381_g2_affine_t g2_t;

enum { F_PARAMS, F_VK, F_PCE, F_ZKEY, F_WTNS, F_VKJSON, F_PUBLIC, F_COUNT };
static const char *const file_names[F_COUNT] = {
    "circuit.params", "circuit.vk", "circuit.pce", "circuit.zkey",
    "circuit.wtns",   "vk.json",    "public.json",
};

/* ------------------------------------------------------------ circuit pass */

struct bk_acc {
    const fr_t *L;          /* L_i(τ) on bellperson's domain, i < n */
    fr_t *u, *v, *w;        /* per wire: A, B, C at τ */
    uint32_t *rp[3], *cols[3];
    fr_t *vals[3];
    uint64_t nnz[3], cap[3];
    struct zkey_coef *coefs;
    uint64_t ncoefs;
    uint64_t row_factor, row_mask; /* snarkjs row = (u·i) & (n − 1) */
    uint32_t next_row;
};

static uint32_t bk_snarkjs_row(const struct bk_acc *a, uint64_t row)
{
    return (uint32_t)((a->row_factor * row) & a->row_mask);
}

static void bk_coef(struct bk_acc *a, uint32_t matrix, uint32_t row, uint32_t signal,
                    const fr_t *value)
{
    struct zkey_coef *c = &a->coefs[a->ncoefs++];
    fr_t v2;
    bls12381_fr_to_mont(&v2, value); /* v·R² (snarkjs writeFr2) */
    c->matrix = matrix;
    c->constraint = bk_snarkjs_row(a, row);
    c->signal = signal;
    bls12381_fr_to_bytes(c->value, &v2);
}

static int bk_emit(void *ctx, uint32_t row, const struct keygen_bls12381_term *const rows[3],
                   const unsigned nt[3])
{
    struct bk_acc *a = ctx;
    fr_t *sum[3] = { a->u, a->v, a->w };
    if (row != a->next_row)
        return -EINVAL; /* the CSR rows are appended in order */
    a->next_row++;
    for (unsigned m = 0; m < 3; m++) {
        if (a->nnz[m] + nt[m] > a->cap[m]) {
            uint64_t cap = (a->cap[m] + nt[m]) * 2;
            uint32_t *c = realloc(a->cols[m], cap * sizeof(uint32_t));
            if (c)
                a->cols[m] = c;
            fr_t *v = realloc(a->vals[m], cap * sizeof(fr_t));
            if (v)
                a->vals[m] = v;
            if (!c || !v)
                return -ENOMEM;
            a->cap[m] = cap;
        }
        for (unsigned k = 0; k < nt[m]; k++) {
            const struct keygen_bls12381_term *t = &rows[m][k];
            fr_t p;
            bls12381_fr_mul(&p, &t->value, &a->L[row]);
            bls12381_fr_add(&sum[m][t->signal], &sum[m][t->signal], &p);
            a->cols[m][a->nnz[m]] = t->signal;
            a->vals[m][a->nnz[m]] = t->value;
            a->nnz[m]++;
            if (m < 2)
                bk_coef(a, m, row, t->signal, &t->value);
        }
        a->rp[m][row + 1] = (uint32_t)a->nnz[m];
    }
    return 0;
}

/* ------------------------------------------------------------------ points */

/* keygen_bellperson.h */
int keygen_bp_mul(struct keygen_bp_tables *t, int g2, void *out, const fr_t *sc, size_t n,
                  struct sp_err *e)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        fr_t s;
        bls12381_fr_from_mont(&s, &sc[i]);
        memcpy(t->k[i], s.l, 32);
    }
    int rc;
    if (t->gpu && (rc = keygen_gpu_mul(t->gpu, g2, out, (const uint64_t(*)[4])t->k, n, e)) < 0) {
        if (t->j->gpu == KEYGEN_GPU_REQUIRED)
            return rc;
        fprintf(stderr, "\nslotprove keygen: the GPU failed (%s); the CPU computes the rest of "
                        "the points\n", e->msg);
        keygen_gpu_close(t->gpu);
        t->gpu = NULL;
    }
    if (t->gpu)
        return 0;
    rc = g2 ? bls12381_g2_fb_mul_batch(out, &t->t2, (const uint64_t(*)[4])t->k, n, t->nthreads)
            : bls12381_g1_fb_mul_batch(out, &t->t1, (const uint64_t(*)[4])t->k, n, t->nthreads);
    return rc < 0 ? sp_fail(e, rc, "out of memory for the points") : 0;
}

static int bk_write(FILE *f, const void *p, size_t n)
{
    return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

static int bk_be32(FILE *f, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    return bk_write(f, b, 4);
}

static int bk_g1s(FILE *f, const g1_t *p, size_t n)
{
    uint8_t b[ZCASH_G1_BYTES];
    for (size_t i = 0; i < n; i++) {
        bls12381_g1_to_zcash(b, &p[i]);
        if (bk_write(f, b, sizeof b))
            return -EIO;
    }
    return 0;
}

static int bk_g2s(FILE *f, const g2_t *p, size_t n)
{
    uint8_t b[ZCASH_G2_BYTES];
    for (size_t i = 0; i < n; i++) {
        bls12381_g2_to_zcash(b, &p[i]);
        if (bk_write(f, b, sizeof b))
            return -EIO;
    }
    return 0;
}

/* The vk part (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, ic). */
static int bk_vk(FILE *f, const g1_t g1s[3], const g2_t g2s[3], const g1_t *ic, uint32_t n_ic)
{
    return bk_g1s(f, &g1s[0], 1) || bk_g1s(f, &g1s[1], 1) || bk_g2s(f, &g2s[0], 1) ||
                   bk_g2s(f, &g2s[1], 1) || bk_g1s(f, &g1s[2], 1) || bk_g2s(f, &g2s[2], 1) ||
                   bk_be32(f, n_ic) || bk_g1s(f, ic, n_ic)
               ? -EIO
               : 0;
}

static void bk_g1_std(uint64_t out[2][6], const g1_t *a)
{
    bls12381_fp_t t;
    bls12381_fp_from_mont(&t, &a->x);
    memcpy(out[0], t.l, sizeof t.l);
    bls12381_fp_from_mont(&t, &a->y);
    memcpy(out[1], t.l, sizeof t.l);
}

static void bk_g2_std(uint64_t out[2][2][6], const g2_t *a)
{
    bls12381_fp2_t t;
    bls12381_fp2_from_mont(&t, &a->x);
    memcpy(out[0][0], t.c0.l, sizeof t.c0.l);
    memcpy(out[0][1], t.c1.l, sizeof t.c1.l);
    bls12381_fp2_from_mont(&t, &a->y);
    memcpy(out[1][0], t.c0.l, sizeof t.c0.l);
    memcpy(out[1][1], t.c1.l, sizeof t.c1.l);
}

static char *bk_vk_json(const g1_t g1s[3], const g2_t g2s[3], const g1_t *ic, uint32_t n_public)
{
    struct keygen_vk vk;
    memset(&vk, 0, sizeof vk);
    vk.curve = CURVE_BLS12381;
    vk.n_public = n_public;
    bk_g1_std(vk.alpha1, &g1s[0]);
    bk_g2_std(vk.beta2, &g2s[0]);
    bk_g2_std(vk.gamma2, &g2s[1]);
    bk_g2_std(vk.delta2, &g2s[2]);
    vk.ic = malloc(((size_t)n_public + 1) * sizeof(*vk.ic));
    if (!vk.ic)
        return NULL;
    for (uint32_t i = 0; i <= n_public; i++)
        bk_g1_std(vk.ic[i], &ic[i]);
    bls12381_fp12_t ab;
    bls12381_pairing(&ab, &g1s[0], &g2s[0]);
    const bls12381_fp2_t *abc[2][3] = { { &ab.c0.c0, &ab.c0.c1, &ab.c0.c2 },
                                        { &ab.c1.c0, &ab.c1.c1, &ab.c1.c2 } };
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            bls12381_fp2_t t;
            bls12381_fp2_from_mont(&t, abc[i][k]);
            memcpy(vk.alphabeta[i][k][0], t.c0.l, sizeof t.c0.l);
            memcpy(vk.alphabeta[i][k][1], t.c1.l, sizeof t.c1.l);
        }
    char *s = keygen_vk_json(&vk);
    free(vk.ic);
    return s;
}

int keygen_bp_secret(fr_t *ret, struct keygen_rng *g, int seeded)
{
    do {
        if (seeded) {
            keygen_rng_below(g, ret->l, bls12381_fr_modulus.l);
        } else {
            int rc = random_below(ret->l, bls12381_fr_modulus.l);
            if (rc < 0)
                return rc;
        }
    } while (bls12381_fr_is_zero(ret));
    return 0;
}

static void bk_density(uint8_t *bits, const uint32_t *cols, uint64_t nnz)
{
    for (uint64_t k = 0; k < nnz; k++)
        bits[cols[k]] = 1;
}

/* --------------------------------------------------------------- the run */

struct bk_files {
    char tmp[F_COUNT][4096], final[F_COUNT][4096];
    FILE *f[F_COUNT];
};

static int bk_open(struct bk_files *o, const char *dir, struct sp_err *e)
{
    for (int i = 0; i < F_COUNT; i++) {
        snprintf(o->final[i], sizeof o->final[i], "%s/%s", dir, file_names[i]);
        snprintf(o->tmp[i], sizeof o->tmp[i], "%s/.%s.tmp.%d", dir, file_names[i], (int)getpid());
        o->f[i] = fopen(o->tmp[i], "w+b");
        if (!o->f[i])
            return sp_fail(e, -errno, "%s: %s", o->tmp[i], strerror(errno));
    }
    return 0;
}

static void bk_close(struct bk_files *o, int keep)
{
    for (int i = 0; i < F_COUNT; i++) {
        if (o->f[i])
            fclose(o->f[i]);
        o->f[i] = NULL;
        if (keep)
            rename(o->tmp[i], o->final[i]);
        else
            unlink(o->tmp[i]);
    }
}

int keygen_bellperson(struct keygen_job *j, const char *dir, struct sp_err *e)
{
    const struct keygen_shape *s = &j->shape;
    const uint64_t n = s->domain_size, nv = s->n_vars, np = s->n_public;
    const uint64_t n_in = np + 1, n_aux = nv - n_in;
    struct keygen_rng g, gs;
    fr_t tau, alpha, beta, gamma, delta, shift;
    struct keygen_bls12381_qap qs, qb;
    struct bk_acc a = { 0 };
    struct keygen_bp_tables t = { .nthreads = j->nthreads, .j = j };
    struct bk_files o = { 0 };
    fr_t *L = NULL, *w = NULL, *sc = NULL;
    g1_t *pts1 = NULL;
    g2_t *pts2 = NULL;
    uint8_t *wbytes = NULL, *dens[3] = { NULL, NULL, NULL };
    int tables = 0, rc;

    keygen_rng_seed(&g, j->seed);
    keygen_rng_seed(&gs, j->seed ^ 0x5ec7e75ec7e75ec7ULL); /* as keygen_setup_tmpl.h */
    bls12381_ntt_coset_shift(&shift, s->log_domain);
    if ((rc = keygen_bp_secret(&alpha, &gs, j->seeded)) < 0 || (rc = keygen_bp_secret(&beta, &gs, j->seeded)) < 0 ||
        (rc = keygen_bp_secret(&gamma, &gs, j->seeded)) < 0 || (rc = keygen_bp_secret(&delta, &gs, j->seeded)) < 0) {
        rc = sp_fail(e, rc, "getrandom: %s", strerror(-rc));
        goto out;
    }
    do {
        if ((rc = keygen_bp_secret(&tau, &gs, j->seeded)) < 0) {
            rc = sp_fail(e, rc, "getrandom: %s", strerror(-rc));
            goto out;
        }
    } while (keygen_bls12381_qap_init(&qs, &tau, &delta, s->log_domain, &shift) < 0);
    qb = qs;
    bp_root_of_unity(&qb.omega, s->log_domain); /* same τ, same points, bellperson's order */

    if ((rc = bk_open(&o, dir, e)) < 0)
        goto out;

    /* Lagrange bases of bellperson's rows at τ, and the circuit pass */
    keygen_phase(j->progress, "circuit and witness");
    L = malloc(n * sizeof(fr_t));
    a.u = calloc(nv, sizeof(fr_t));
    a.v = calloc(nv, sizeof(fr_t));
    a.w = calloc(nv, sizeof(fr_t));
    w = malloc(nv * sizeof(fr_t));
    a.coefs = malloc(s->n_coefs * sizeof(struct zkey_coef));
    for (int m = 0; m < 3; m++)
        a.rp[m] = calloc((size_t)s->n_constraints + np + 2, sizeof(uint32_t));
    if (!L || !a.u || !a.v || !a.w || !w || !a.coefs || !a.rp[0] || !a.rp[1] || !a.rp[2]) {
        rc = sp_fail(e, -ENOMEM, "out of memory for a 2^%u bellperson key", s->log_domain);
        goto out;
    }
    if ((rc = keygen_bls12381_lagrange(&qb, L, 0, n)) < 0) {
        rc = sp_fail(e, rc, "out of memory for the Lagrange bases");
        goto out;
    }
    a.L = L;
    a.row_factor = bp_row_map_factor(s->log_domain);
    a.row_mask = n - 1;
    if ((rc = keygen_bls12381_circuit(s, &g, w, bk_emit, &a)) < 0) {
        rc = sp_fail(e, rc, "circuit: %s", rc == -ENOMEM ? "out of memory" : "rows out of order");
        goto out;
    }
    for (uint32_t k = 0; k <= np; k++) { /* bellperson's input rows N + k */
        fr_t one;
        const struct keygen_bls12381_term t = { k, { { 0 } } }, *rows[3] = { &t, NULL, NULL };
        const unsigned nt[3] = { 1, 0, 0 };
        bls12381_fr_set_one(&one);
        /* in the PCE too, as cuzk records them (A = [1·input_k]), but not
         * in the zkey's B */
        struct keygen_bls12381_term t1 = t;
        t1.value = one;
        rows[0] = &t1;
        uint64_t before = a.ncoefs;
        if ((rc = bk_emit(&a, s->n_constraints + k, rows, nt)) < 0) {
            rc = sp_fail(e, rc, "out of memory");
            goto out;
        }
        if (a.ncoefs != before + 1) {
            rc = sp_fail(e, SP_EINTERNAL, "keygen: input row %u", k);
            goto out;
        }
    }
    if (a.ncoefs != s->n_coefs) {
        rc = sp_fail(e, SP_EINTERNAL, "keygen: %llu coefficients, planned %llu",
                     (unsigned long long)a.ncoefs, (unsigned long long)s->n_coefs);
        goto out;
    }

    /* the witness and public.json */
    wbytes = malloc(nv * 32);
    if (!wbytes) {
        rc = sp_fail(e, -ENOMEM, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i < nv; i++) {
        fr_t x;
        bls12381_fr_from_mont(&x, &w[i]);
        bls12381_fr_to_bytes(wbytes + 32 * i, &x);
    }
    if ((rc = wtns_write(fileno(o.f[F_WTNS]), o.tmp[F_WTNS], CURVE_BLS12381, wbytes,
                         (uint32_t)nv, e)) < 0)
        goto out;
    char *pub = public_to_json(wbytes + 32, (uint32_t)np);
    if (!pub || fputs(pub, o.f[F_PUBLIC]) < 0) {
        free(pub);
        rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PUBLIC]);
        goto out;
    }
    free(pub);
    keygen_phase_end(j->progress);

    /* the PCE */
    struct bp_pce_matrix pm[3];
    for (int m = 0; m < 3; m++)
        pm[m] = (struct bp_pce_matrix){ a.rp[m], a.cols[m], a.vals[m], a.nnz[m] };
    if ((rc = bp_pce_write(o.f[F_PCE], o.tmp[F_PCE], (uint32_t)n_in, (uint32_t)n_aux,
                           s->n_constraints + (uint32_t)n_in, pm, e)) < 0)
        goto out;

    /* points, in batches of KEYGEN_BP_CHUNK */
    free(L), L = NULL; /* the circuit pass is done */
    keygen_phase(j->progress, "points");
    keygen_phase_units(j->progress, 6 * nv + 2 * n - 1);
    tables = 1; /* fb_free is safe on a zeroed or failed table */
    if ((rc = bls12381_g1_fb_init(&t.t1, &bls12381_g1_generator,
                                  bls12381_g1_fb_window(4 * nv + 2 * n), j->nthreads)) < 0 ||
        (rc = bls12381_g2_fb_init(&t.t2, &bls12381_g2_generator, bls12381_g2_fb_window(2 * nv),
                                  j->nthreads)) < 0) {
        rc = sp_fail(e, rc, "out of memory for the generator tables");
        goto out;
    }
    if (j->gpu && (rc = keygen_gpu_open(&t.gpu, CURVE_BLS12381, t.t1.pts, t.t1.window, t.t2.pts,
                                        t.t2.window, KEYGEN_BP_CHUNK, e)) < 0) {
        if (j->gpu == KEYGEN_GPU_REQUIRED)
            goto out;
        fprintf(stderr, "slotprove keygen: the GPU failed (%s); the CPU computes the points\n",
                e->msg);
        t.gpu = NULL;
    }
    sc = malloc(KEYGEN_BP_CHUNK * sizeof(fr_t));
    pts1 = malloc(KEYGEN_BP_CHUNK * sizeof(g1_t));
    pts2 = malloc(KEYGEN_BP_CHUNK * sizeof(g2_t));
    t.k = malloc(KEYGEN_BP_CHUNK * sizeof(*t.k));
    g1_t *ic = malloc(n_in * sizeof(g1_t)), hdr1[3];
    g2_t hdr2[3];
    for (int k = 0; k < 3; k++)
        dens[k] = calloc(nv, 1);
    if (!sc || !pts1 || !pts2 || !t.k || !ic || !dens[0] || !dens[1] || !dens[2]) {
        free(ic);
        rc = sp_fail(e, -ENOMEM, "out of memory");
        goto out;
    }
    /* header points: alpha1, beta1, delta1 / beta2, gamma2, delta2 */
    fr_t h1[3] = { alpha, beta, delta }, h2[3] = { beta, gamma, delta };
    rc = keygen_bp_mul(&t, 0, hdr1, h1, 3, e);
    if (rc == 0)
        rc = keygen_bp_mul(&t, 1, hdr2, h2, 3, e);
    explicit_bzero(h1, sizeof h1);
    explicit_bzero(h2, sizeof h2);
    if (rc < 0)
        goto out_ic;

    /* zkey: layout, headers, coefficients */
    struct zkey_layout l;
    int zfd = fileno(o.f[F_ZKEY]);
    const char *zp = o.tmp[F_ZKEY];
    zkey_layout(&l, CURVE_BLS12381, (uint32_t)nv, (uint32_t)np, (uint32_t)n, s->n_coefs);
    uint8_t zh[3 * sizeof(g1_t) + 3 * sizeof(g2_t)], *zq = zh;
    memcpy(zq, &hdr1[0], sizeof(g1_t)), zq += sizeof(g1_t);
    memcpy(zq, &hdr1[1], sizeof(g1_t)), zq += sizeof(g1_t);
    memcpy(zq, &hdr2[0], sizeof(g2_t)), zq += sizeof(g2_t);
    memcpy(zq, &hdr2[1], sizeof(g2_t)), zq += sizeof(g2_t);
    memcpy(zq, &hdr1[2], sizeof(g1_t)), zq += sizeof(g1_t);
    memcpy(zq, &hdr2[2], sizeof(g2_t));
    if ((rc = zkey_write_headers(zfd, zp, &l, zh, e)) < 0 ||
        (rc = file_pwrite(zfd, zp, a.coefs, a.ncoefs * sizeof(struct zkey_coef),
                          l.off[ZKEY_COEFS] + 4, e)) < 0)
        goto out_ic;

    /* IC (/γ) and L = C (/δ): (β u + α v + w)/γ or /δ: the zkey's IC and
     * C sections (C read back below for the .params l) */
    fr_t gamma_inv, delta_inv;
    bls12381_fr_inv(&gamma_inv, &gamma);
    bls12381_fr_inv(&delta_inv, &delta);
    for (uint64_t first = 0; first < nv; first += KEYGEN_BP_CHUNK) {
        size_t cnt = nv - first < KEYGEN_BP_CHUNK ? (size_t)(nv - first) : KEYGEN_BP_CHUNK;
        for (size_t k = 0; k < cnt; k++) {
            uint64_t i = first + k;
            fr_t x, y;
            bls12381_fr_mul(&x, &beta, &a.u[i]);
            bls12381_fr_mul(&y, &alpha, &a.v[i]);
            bls12381_fr_add(&x, &x, &y);
            bls12381_fr_add(&x, &x, &a.w[i]);
            bls12381_fr_mul(&sc[k], &x, i < n_in ? &gamma_inv : &delta_inv);
            if (i >= n_in && bls12381_fr_is_zero(&sc[k])) {
                rc = sp_fail(e, SP_EINTERNAL, "keygen: aux wire %llu is unconstrained (l at "
                             "infinity)", (unsigned long long)(i - n_in));
                goto out_ic;
            }
        }
        if ((rc = keygen_bp_mul(&t, 0, pts1, sc, cnt, e)) < 0)
            goto out_ic;
        size_t n_ic = first >= n_in ? 0 : n_in - first < cnt ? (size_t)(n_in - first) : cnt;
        memcpy(ic + first, pts1, n_ic * sizeof(g1_t));
        if ((n_ic && (rc = file_pwrite(zfd, zp, pts1, n_ic * sizeof(g1_t),
                                       l.off[ZKEY_IC] + first * sizeof(g1_t), e)) < 0) ||
            (cnt > n_ic &&
             (rc = file_pwrite(zfd, zp, pts1 + n_ic, (cnt - n_ic) * sizeof(g1_t),
                               l.off[ZKEY_C] + (first + n_ic - n_in) * sizeof(g1_t), e)) < 0))
            goto out_ic;
        keygen_advance(j->progress, cnt);
    }

    /* .params and .vk: the vk part */
    FILE *pf = o.f[F_PARAMS];
    if ((rc = bk_vk(o.f[F_VK], hdr1, hdr2, ic, (uint32_t)n_in)) < 0 ||
        (rc = bk_vk(pf, hdr1, hdr2, ic, (uint32_t)n_in)) < 0) {
        rc = sp_fail(e, rc, "%s: write failed", o.tmp[F_PARAMS]);
        goto out_ic;
    }
    /* h: τ^i·Z(τ)/δ, i < n − 1 */
    {
        fr_t p, one;
        uint64_t ne[1] = { n };
        bls12381_fr_pow(&p, &tau, ne, 1);
        bls12381_fr_set_one(&one);
        bls12381_fr_sub(&p, &p, &one);
        bls12381_fr_mul(&p, &p, &delta_inv);
        if (bk_be32(pf, (uint32_t)(n - 1))) {
            rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PARAMS]);
            goto out_ic;
        }
        for (uint64_t first = 0; first + 1 < n; first += KEYGEN_BP_CHUNK) {
            size_t cnt = n - 1 - first < KEYGEN_BP_CHUNK ? (size_t)(n - 1 - first) : KEYGEN_BP_CHUNK;
            for (size_t k = 0; k < cnt; k++) {
                sc[k] = p;
                bls12381_fr_mul(&p, &p, &tau);
            }
            if ((rc = keygen_bp_mul(&t, 0, pts1, sc, cnt, e)) < 0)
                goto out_ic;
            if (bk_g1s(pf, pts1, cnt)) {
                rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PARAMS]);
                goto out_ic;
            }
            keygen_advance(j->progress, cnt);
        }
        explicit_bzero(&p, sizeof p);
    }
    /* l: the zkey's C points, read back */
    if (bk_be32(pf, (uint32_t)n_aux)) {
        rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PARAMS]);
        goto out_ic;
    }
    for (uint64_t first = 0; first < n_aux; first += KEYGEN_BP_CHUNK) {
        size_t cnt = n_aux - first < KEYGEN_BP_CHUNK ? (size_t)(n_aux - first) : KEYGEN_BP_CHUNK;
        ssize_t got = pread(zfd, pts1, cnt * sizeof(g1_t),
                            (off_t)(l.off[ZKEY_C] + first * sizeof(g1_t)));
        if (got != (ssize_t)(cnt * sizeof(g1_t))) {
            rc = sp_fail(e, -EIO, "%s: read back: %s", zp, got < 0 ? strerror(errno) : "short");
            goto out_ic;
        }
        if (bk_g1s(pf, pts1, cnt)) {
            rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PARAMS]);
            goto out_ic;
        }
    }

    /* A and B at τ: the zkey's A, B1, B2 (every wire) and the .params a,
     * b_g1, b_g2 sections (the wires the density bitmaps name; inputs
     * always in a) */
    bk_density(dens[0], a.cols[0], a.nnz[0]);
    bk_density(dens[1], a.cols[1], a.nnz[1]);
    for (uint64_t i = 0; i < n_in; i++)
        dens[0][i] = 1;
    uint64_t na = 0, nb = 0;
    for (uint64_t i = 0; i < nv; i++) {
        na += dens[0][i];
        nb += dens[1][i];
    }
    /* pass 0: A (G1, u), pass 1: B1 (G1, v), pass 2: B2 (G2, v) */
    for (int pass = 0; pass < 3; pass++) {
        int g2 = pass == 2;
        const uint8_t *dn = dens[pass ? 1 : 0];
        const fr_t *src = pass ? a.v : a.u;
        unsigned zsec = pass == 0 ? ZKEY_A : pass == 1 ? ZKEY_B1 : ZKEY_B2;
        size_t psz = g2 ? sizeof(g2_t) : sizeof(g1_t);
        void *buf = g2 ? (void *)pts2 : (void *)pts1;
        if (bk_be32(pf, (uint32_t)(pass ? nb : na))) {
            rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_PARAMS]);
            goto out_ic;
        }
        for (uint64_t first = 0; first < nv; first += KEYGEN_BP_CHUNK) {
            size_t cnt = nv - first < KEYGEN_BP_CHUNK ? (size_t)(nv - first) : KEYGEN_BP_CHUNK;
            if ((rc = keygen_bp_mul(&t, g2, buf, src + first, cnt, e)) < 0)
                goto out_ic;
            if ((rc = file_pwrite(zfd, zp, buf, cnt * psz, l.off[zsec] + first * psz, e)) < 0)
                goto out_ic;
            for (size_t k = 0; k < cnt; k++) {
                if (!dn[first + k])
                    continue;
                int bad = g2 ? bls12381_g2_affine_is_inf(&pts2[k]) || bk_g2s(pf, &pts2[k], 1)
                             : bls12381_g1_affine_is_inf(&pts1[k]) || bk_g1s(pf, &pts1[k], 1);
                if (bad) {
                    rc = sp_fail(e, SP_EINTERNAL, "keygen: wire %llu: %s at τ is zero or write "
                                 "failed", (unsigned long long)(first + k), pass ? "B" : "A");
                    goto out_ic;
                }
            }
            keygen_advance(j->progress, g2 ? 3 * cnt : cnt);
        }
    }
    /* the zkey's H: snarkjs's coset Lagrange bases */
    for (uint64_t first = 0; first < n; first += KEYGEN_BP_CHUNK) {
        size_t cnt = n - first < KEYGEN_BP_CHUNK ? (size_t)(n - first) : KEYGEN_BP_CHUNK;
        if ((rc = keygen_bls12381_h_bases(&qs, sc, first, cnt)) < 0) {
            rc = sp_fail(e, rc, "out of memory");
            goto out_ic;
        }
        if ((rc = keygen_bp_mul(&t, 0, pts1, sc, cnt, e)) < 0 ||
            (rc = file_pwrite(zfd, zp, pts1, cnt * sizeof(g1_t),
                              l.off[ZKEY_H] + first * sizeof(g1_t), e)) < 0)
            goto out_ic;
        keygen_advance(j->progress, cnt);
    }
    if (ftruncate(zfd, (off_t)l.file_size) != 0) {
        rc = sp_fail(e, -errno, "%s: ftruncate: %s", zp, strerror(errno));
        goto out_ic;
    }

    char *vkj = bk_vk_json(hdr1, hdr2, ic, (uint32_t)np);
    if (!vkj || fputs(vkj, o.f[F_VKJSON]) < 0) {
        free(vkj);
        rc = sp_fail(e, -EIO, "%s: write failed", o.tmp[F_VKJSON]);
        goto out_ic;
    }
    free(vkj);
    for (int i = 0; i < F_COUNT; i++)
        if (fflush(o.f[i]) != 0 || fsync(fileno(o.f[i])) != 0) {
            rc = sp_fail(e, -errno, "%s: %s", o.tmp[i], strerror(errno));
            goto out_ic;
        }
    keygen_phase_end(j->progress);
    free(ic);
    rc = 0;
    goto out;
out_ic:
    free(ic);
out:
    explicit_bzero(&tau, sizeof tau);
    explicit_bzero(&alpha, sizeof alpha);
    explicit_bzero(&beta, sizeof beta);
    explicit_bzero(&gamma, sizeof gamma);
    explicit_bzero(&delta, sizeof delta);
    explicit_bzero(&qs, sizeof qs);
    explicit_bzero(&qb, sizeof qb);
    explicit_bzero(&gs, sizeof gs);
    bk_close(&o, rc == 0);
    keygen_gpu_close(t.gpu);
    free(t.k);
    if (tables) {
        bls12381_g1_fb_free(&t.t1);
        bls12381_g2_fb_free(&t.t2);
    }
    for (int m = 0; m < 3; m++) {
        free(a.rp[m]);
        free(a.cols[m]);
        free(a.vals[m]);
        free(dens[m]);
    }
    free(a.u), free(a.v), free(a.w), free(a.coefs);
    free(L), free(w), free(sc), free(pts1), free(pts2), free(wbytes);
    return rc;
}

/* The most bytes the seven files of shape s take: .params and .vk
 * (bellperson_params.h: every wire counted in a, b_g1 and b_g2), the PCE
 * (bellperson_pce.h: header, three CSR matrices of N + inputs rows with
 * n_a + inputs, n_b and n_c entries of 4 + 32 bytes, three bitmaps), the
 * zkey (zkey_layout), the witness and the two JSON files. */
static uint64_t bk_disk_bytes(const struct keygen_shape *s)
{
    uint64_t n = s->domain_size, nv = s->n_vars, n_in = (uint64_t)s->n_public + 1;
    uint64_t vk = 3 * 96 + 3 * 192 + 4 + n_in * 96;
    uint64_t params = vk + 4 + (n - 1) * 96 + 4 + (nv - n_in) * 96 + 12 + 2 * nv * 96 + nv * 192;
    uint64_t rows = (uint64_t)s->n_constraints + n_in;
    uint64_t pce = 32 + 3 * (24 + (rows + 1) * 4) + (s->n_a + n_in + s->n_b + s->n_c) * 36 +
                   3 * (24 + 8 * (nv / 64 + 1)) + 4096;
    struct zkey_layout l;
    zkey_layout(&l, CURVE_BLS12381, s->n_vars, s->n_public, s->domain_size, s->n_coefs);
    uint64_t text = 4096 + 200 * n_in + 84 * (uint64_t)s->n_public;
    return params + vk + pce + l.file_size + wtns_file_bytes(s->n_vars) + 2 * text;
}

int keygen_bellperson_cmd(struct keygen_job *j, const char *dir, enum curve_id curve)
{
    struct sp_err e = { { 0 } };
    struct stat st;
    if (curve != CURVE_BLS12381) {
        fprintf(stderr, "slotprove keygen: --format bellperson: bellperson keys are BLS12-381 "
                        "(--curve bls12381)\n");
        return 2;
    }
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "slotprove keygen: %s: %s\n", dir,
                errno ? strerror(errno) : "not a directory");
        return 1;
    }
    struct statvfs vfs;
    uint64_t need = bk_disk_bytes(&j->shape);
    if (statvfs(dir, &vfs) < 0) {
        fprintf(stderr, "slotprove keygen: %s: statvfs: %s\n", dir, strerror(errno));
        return 1;
    }
    if ((uint64_t)vfs.f_bavail * vfs.f_frsize < need) {
        fprintf(stderr, "slotprove keygen: %s: not enough free space: the bellperson files need "
                        "up to %llu bytes (%.2f GiB: .params, .pce, .zkey and the rest), only "
                        "%llu bytes are free\n", dir, (unsigned long long)need,
                need / 1073741824.0, (unsigned long long)vfs.f_bavail * vfs.f_frsize);
        return 1;
    }
    fprintf(stderr, "slotprove keygen: INSECURE, FOR TESTING ONLY: a single-party setup whose "
                    "secrets %s\n",
            j->seeded ? "follow from --seed (anyone can recompute them)"
                      : "came from getrandom and are discarded at the end");
    if (!j->progress->quiet)
        fprintf(stderr, "slotprove keygen: bellperson format, %u constraints, %u public, %u wires, "
                        "domain 2^%u; up to %.2f GiB to %s\n",
                j->shape.n_constraints, j->shape.n_public, j->shape.n_vars, j->shape.log_domain,
                need / 1073741824.0, dir);
    j->progress->tty = isatty(2);
    if (keygen_bellperson(j, dir, &e) < 0) {
        fprintf(stderr, "slotprove keygen: %s\n", e.msg);
        return 1;
    }
    if (!j->progress->quiet)
        fprintf(stderr, "slotprove keygen: wrote %s/{circuit.params,circuit.vk,circuit.pce,"
                        "circuit.zkey,circuit.wtns,vk.json,public.json} (INSECURE, FOR TESTING "
                        "ONLY)\n", dir);
    return 0;
}
