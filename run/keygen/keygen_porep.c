/*
 * keygen_porep.c - see keygen_porep.h. INSECURE, FOR TESTING ONLY.
 *
 * The circuit is banded so that nothing of size wires or rows is held:
 * aux wire j owns the rows [j·U/n_aux, (j+1)·U/n_aux) (U = rows_used), and
 * a row of wire j references j itself and wires at most W = 64 before it
 * (or, for the first W wires, public inputs). Once wire j's rows are done
 * wire j − W is final: its A, B, C at τ are known and its l, a, b points
 * are computed (in batches of KEYGEN_BP_CHUNK) and appended to their
 * sections. Every section of the .params and of the PCE has a size known
 * from the plan, so each is its own stream at its own offset (pwrite).
 *
 * Row of wire j (the first of its rows is its "home" row):
 *   A: [j] on the home row when j is an A wire, then earlier wires (A
 *      wires only) up to kA entries (kA from an even spread of the total);
 *   B: [j] on the home row when j is a B wire, else [wire 0];
 *   C: [j] on the home row when j is not an A wire, earlier wires, and
 *      [wire 0] whose coefficient is a·b − (the other C terms), so the
 *      witness satisfies every row whatever its values.
 * Which wires are A (all but 0.3 %) and B wires is an even spread too, so
 * the counts are exact and known before the first row. Coefficients are
 * random field elements; witness values are bits with probability
 * POREP_BIT_PERMILLE/1000 (0 or 1 alike) and random field elements
 * otherwise, public inputs random field elements.
 */
#include "keygen_porep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bellperson_ntt.h"
#include "bellperson_pce.h"
#include "binfile_write.h"
#include "bls12381_zcash.h"
#include "curve.h"
#include "fixed_base.h"
#include "keygen_bellperson.h"
#include "keygen_circuit.h"
#include "keygen_curve.h"
#include "keygen_gpu.h"
#include "keygen_out.h"
#include "keygen_progress.h"
#include "proof.h"
#include "wtns_write.h"

typedef bls12381_fr_t fr_t;
typedef bls12381_g1_affine_t g1_t;
typedef bls12381_g2_affine_t g2_t;

#define PW 64u           /* the band: a row reaches at most PW wires back */
#define PRING 128u       /* ring of wires in flight (> PW, power of two) */
#define PBUF (1u << 20)  /* bytes a stream buffers before its pwrite */

/* ------------------------------------------------------------------ plan */

static uint64_t scaled(uint64_t v, double f)
{
    return (uint64_t)llround((double)v * f);
}

int porep_plan(struct porep_plan *p, double scale, unsigned log_domain, struct sp_err *e)
{
    memset(p, 0, sizeof *p);
    if (!(scale > 0 && scale <= 1))
        return sp_fail(e, -SP_ERANGE, "--scale %g: want 0 < S <= 1", scale);
    if (log_domain < POREP_MIN_LOG_DOMAIN || log_domain > POREP_LOG_DOMAIN)
        return sp_fail(e, -SP_ERANGE, "--domain-log2 %u: want %u..%u", log_domain,
                       POREP_MIN_LOG_DOMAIN, POREP_LOG_DOMAIN);
    double d = ldexp(1.0, (int)log_domain - (int)POREP_LOG_DOMAIN), f = scale * d;
    p->scale = scale;
    p->log_domain = log_domain;
    p->domain = (uint64_t)1 << log_domain;
    p->n_in = POREP_INPUTS;
    p->rows = scaled(POREP_CONSTRAINTS - POREP_INPUTS, d) + POREP_INPUTS;
    p->rows_circuit = p->rows - p->n_in;
    p->rows_used = scaled(POREP_CONSTRAINTS - POREP_INPUTS, f);
    p->n_aux = scaled(POREP_AUX, f);
    p->nnz[0] = scaled(POREP_NNZ_A, f);
    p->nnz[1] = p->rows_used; /* one B entry a row: 130,278,541 at S = 1 (130.3 M) */
    p->nnz[2] = scaled(POREP_NNZ_C, f);
    p->a_aux_cols = (p->n_aux * POREP_A_AUX_PERMILLE + 500) / 1000;
    p->b_aux_cols = scaled(POREP_B_AUX_COLS, f);
    if (p->n_aux < 4 * PW)
        return sp_fail(e, -SP_ERANGE, "--scale %g at 2^%u: %llu aux wires, want at least %u "
                       "(a larger scale or domain)", scale, log_domain,
                       (unsigned long long)p->n_aux, 4 * PW);
    /* the construction's own limits (hold at every scale by the ratios) */
    uint64_t a_circ = p->nnz[0] - p->n_in;
    if (p->rows_used > p->rows_circuit || p->rows_used < p->n_aux || a_circ < 2 * p->rows_used ||
        a_circ > 3 * p->rows_used || p->nnz[2] < 2 * p->rows_used ||
        p->nnz[2] > 3 * p->rows_used || p->b_aux_cols >= p->rows_used || p->rows > p->domain ||
        2 * p->rows <= p->domain)
        return sp_fail(e, -SP_ERANGE, "--scale %g at 2^%u: the shape does not fit the "
                       "construction", scale, log_domain);
    p->n_a = p->n_in + p->a_aux_cols;
    p->n_b = 1 + p->b_aux_cols;
    uint64_t n_in = p->n_in;
    p->vk_bytes = 3 * 96 + 3 * 192 + 4 + n_in * 96;
    p->params_bytes = p->vk_bytes + 4 + (p->domain - 1) * 96 + 4 + p->n_aux * 96 + 4 +
                      p->n_a * 96 + 4 + p->n_b * 96 + 4 + p->n_b * 192;
    uint64_t nnz = p->nnz[0] + p->nnz[1] + p->nnz[2];
    p->pce_bytes = BP_PCE_HEADER_BYTES + 3 * (8 + 4 * (p->rows + 1) + 8 + 8) + nnz * 36 +
                   2 * (8 + 8 * ((p->n_aux + 63) / 64) + 16) + (8 + 8 * ((n_in + 63) / 64) + 16);
    p->wtns_bytes = wtns_file_bytes((uint32_t)(n_in + p->n_aux));
    p->public_bytes = 4096 + 84 * n_in;
    return 0;
}

/* ---------------------------------------------------------------- streams */

struct pstream {
    int fd;
    const char *path;
    uint64_t off;   /* where buf goes */
    uint8_t *buf;
    size_t len;
};

static int ps_flush(struct pstream *s, struct sp_err *e)
{
    if (s->len == 0)
        return 0;
    int rc = file_pwrite(s->fd, s->path, s->buf, s->len, s->off, e);
    s->off += s->len;
    s->len = 0;
    return rc;
}

static int ps_put(struct pstream *s, const void *p, size_t n, struct sp_err *e)
{
    if (s->len + n > PBUF) {
        int rc = ps_flush(s, e);
        if (rc < 0)
            return rc;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return 0;
}

static int ps_u32(struct pstream *s, uint32_t v, struct sp_err *e)
{
    return ps_put(s, &v, 4, e); /* little-endian host (x86-64, like the PCE reader) */
}

static void be32(uint8_t b[4], uint32_t v)
{
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

/* ------------------------------------------------------------------ state */

enum { PF_PARAMS, PF_VK, PF_PCE, PF_WTNS, PF_PUBLIC, PF_COUNT };
static const char *const pf_names[PF_COUNT] = {
    "circuit.params", "circuit.vk", "circuit.pce", "circuit.wtns", "public.json",
};

/* streams: the PCE's three matrices' row_ptrs, cols and values; the
 * .params l, a (aux part), b_g1 (aux), b_g2 (aux); the witness */
enum { S_RP = 0, S_COL = 3, S_VAL = 6, S_L = 9, S_A, S_B1, S_B2, S_W, S_COUNT };

struct pst {
    const struct porep_plan *p;
    struct keygen_job *j;
    struct keygen_bls12381_qap qb;
    fr_t alpha, beta, delta_inv;
    struct keygen_rng gw, gc;   /* witness values; coefficients */
    struct pstream s[S_COUNT];
    struct out_file of[PF_COUNT]; /* keygen_out.h: linked into place at the end */
    int fd[PF_COUNT];             /* of[i].fd */
    const char *tmp[PF_COUNT];    /* of[i].path, for messages */
    /* rows */
    fr_t *L;                    /* KEYGEN_BP_CHUNK Lagrange values from L0 */
    uint64_t L0, nL;
    uint64_t cum[3];            /* entries so far per matrix */
    /* wires in flight (ring by aux index) and the inputs */
    fr_t rw[PRING], ru[PRING], rv[PRING], rc[PRING];
    fr_t *iw, *iu, *iv, *ic;    /* n_in each */
    uint64_t *bm_a, *bm_b;      /* a_aux, b_aux bitmaps (n_aux bits) */
    uint64_t bits, bits_one;    /* aux values that are bits, of which 1 */
    /* finalized wires waiting for their points */
    struct keygen_bp_tables t;
    fr_t *q[3];                 /* l, a, b scalars */
    size_t nq[3];
    void *pts;                  /* KEYGEN_BP_CHUNK G2 points (G1 fit) */
    uint64_t nout[3];           /* aux points written: l, a, b */
};

static int is_a(const struct porep_plan *p, uint64_t j) /* j an A wire */
{
    uint64_t kn = p->n_aux - p->a_aux_cols;
    return (j + 1) * kn / p->n_aux == j * kn / p->n_aux;
}

static int is_b(const struct porep_plan *p, uint64_t j)
{
    return (j + 1) * p->b_aux_cols / p->n_aux > j * p->b_aux_cols / p->n_aux;
}

/* entries of matrix total T on circuit row r of U rows (an even spread) */
static unsigned spread(uint64_t T, uint64_t U, uint64_t r)
{
    return (unsigned)((r + 1) * T / U - r * T / U);
}

static void rand_fr(fr_t *x, struct keygen_rng *g)
{
    keygen_rng_below(g, x->l, bls12381_fr_modulus.l);
}

/* the value of wire col (input or aux in flight) */
static const fr_t *wval(const struct pst *st, uint64_t col)
{
    uint32_t n_in = st->p->n_in;
    return col < n_in ? &st->iw[col] : &st->rw[(col - n_in) % PRING];
}

static fr_t *acc(struct pst *st, int m, uint64_t col)
{
    uint32_t n_in = st->p->n_in;
    fr_t *in = m == 0 ? st->iu : m == 1 ? st->iv : st->ic;
    fr_t *ring = m == 0 ? st->ru : m == 1 ? st->rv : st->rc;
    return col < n_in ? &in[col] : &ring[(col - n_in) % PRING];
}

static const fr_t *lagrange(struct pst *st, uint64_t row, struct sp_err *e, int *rc)
{
    if (row < st->L0 || row >= st->L0 + st->nL) {
        uint64_t first = row, cnt = st->p->domain - row;
        if (cnt > KEYGEN_BP_CHUNK)
            cnt = KEYGEN_BP_CHUNK;
        if ((*rc = keygen_bls12381_lagrange(&st->qb, st->L, first, (size_t)cnt)) < 0) {
            sp_fail(e, *rc, "out of memory for the Lagrange bases");
            return NULL;
        }
        st->L0 = first, st->nL = cnt;
    }
    return &st->L[row - st->L0];
}

/* One entry (col, coef) of matrix m on a row with Lagrange value L. */
static int entry(struct pst *st, int m, uint64_t col, const fr_t *coef, const fr_t *L,
                 struct sp_err *e)
{
    fr_t t;
    bls12381_fr_mul(&t, coef, L);
    fr_t *a = acc(st, m, col);
    bls12381_fr_add(a, a, &t);
    st->cum[m]++;
    int rc = ps_u32(&st->s[S_COL + m], (uint32_t)col, e);
    return rc < 0 ? rc : ps_put(&st->s[S_VAL + m], coef->l, 32, e);
}

static int row_end(struct pst *st, struct sp_err *e)
{
    int rc = 0;
    for (int m = 0; m < 3 && rc == 0; m++)
        rc = ps_u32(&st->s[S_RP + m], (uint32_t)st->cum[m], e);
    return rc;
}

/* Earlier wire k of E in the band of wire j (aux index), an A wire when
 * need_a; the first PW wires use public inputs 1 + k instead. Column. */
static uint64_t earlier(const struct porep_plan *p, struct keygen_rng *g, uint64_t j, unsigned k,
                        int need_a)
{
    if (j < PW)
        return 1 + k;
    uint64_t t = j - (1 + 16 * k + keygen_rng_next(g) % 14);
    while (need_a && !is_a(p, t))
        t--; /* never two non-A wires in a row: at most one step (3 in 1000) */
    return p->n_in + t;
}

/* The rows of aux wire j. */
static int wire_rows(struct pst *st, uint64_t j, struct sp_err *e)
{
    const struct porep_plan *p = st->p;
    uint64_t U = p->rows_used, r0 = j * U / p->n_aux, r1 = (j + 1) * U / p->n_aux;
    uint64_t home = p->n_in + j;
    int rc = 0;
    for (uint64_t r = r0; r < r1 && rc == 0; r++) {
        const fr_t *L = lagrange(st, r, e, &rc);
        if (!L)
            return rc;
        int first = r == r0;
        fr_t a, b, c, t, coef;
        memset(&a, 0, sizeof a), memset(&c, 0, sizeof c);
        /* A */
        unsigned ka = spread(p->nnz[0] - p->n_in, U, r);
        if (first && is_a(p, j)) {
            rand_fr(&coef, &st->gc);
            bls12381_fr_mul(&t, &coef, wval(st, home));
            bls12381_fr_add(&a, &a, &t);
            rc = entry(st, 0, home, &coef, L, e);
            ka--;
        }
        for (unsigned i = 0; i < ka && rc == 0; i++) {
            uint64_t col = earlier(p, &st->gc, j, i, 1);
            rand_fr(&coef, &st->gc);
            bls12381_fr_mul(&t, &coef, wval(st, col));
            bls12381_fr_add(&a, &a, &t);
            rc = entry(st, 0, col, &coef, L, e);
        }
        /* B */
        uint64_t bcol = first && is_b(p, j) ? home : 0;
        rand_fr(&coef, &st->gc);
        bls12381_fr_mul(&b, &coef, wval(st, bcol));
        if (rc == 0)
            rc = entry(st, 1, bcol, &coef, L, e);
        if (bcol)
            st->bm_b[j / 64] |= (uint64_t)1 << (j % 64);
        /* C: the others, then wire 0 */
        unsigned kc = spread(p->nnz[2], U, r) - 1, i = 0;
        if (first && !is_a(p, j) && rc == 0) {
            rand_fr(&coef, &st->gc);
            bls12381_fr_mul(&t, &coef, wval(st, home));
            bls12381_fr_add(&c, &c, &t);
            rc = entry(st, 2, home, &coef, L, e);
            i = 1;
        }
        for (; i < kc && rc == 0; i++) {
            /* bands 1.. for C, so they never meet j's home entry */
            uint64_t col = earlier(p, &st->gc, j, i + 1, 0);
            rand_fr(&coef, &st->gc);
            bls12381_fr_mul(&t, &coef, wval(st, col));
            bls12381_fr_add(&c, &c, &t);
            rc = entry(st, 2, col, &coef, L, e);
        }
        bls12381_fr_mul(&t, &a, &b);
        bls12381_fr_sub(&coef, &t, &c); /* w[0] = 1 */
        if (rc == 0)
            rc = entry(st, 2, 0, &coef, L, e);
        if (rc == 0)
            rc = row_end(st, e);
    }
    if (is_a(p, j))
        st->bm_a[j / 64] |= (uint64_t)1 << (j % 64);
    return rc;
}

/* Multiplies and appends the waiting scalars of kind q (0 l, 1 a, 2 b). */
static int points_flush(struct pst *st, int q, struct sp_err *e)
{
    size_t n = st->nq[q];
    if (n == 0)
        return 0;
    int rc;
    if ((rc = keygen_bp_mul(&st->t, 0, st->pts, st->q[q], n, e)) < 0)
        return rc;
    uint8_t b[ZCASH_G2_BYTES];
    const g1_t *p1 = st->pts;
    for (size_t i = 0; i < n; i++) {
        if (bls12381_g1_affine_is_inf(&p1[i]))
            return sp_fail(e, SP_EINTERNAL, "keygen: a %s point at infinity",
                           q == 0 ? "l" : q == 1 ? "a" : "b_g1");
        bls12381_g1_to_zcash(b, &p1[i]);
        if ((rc = ps_put(&st->s[q == 0 ? S_L : q == 1 ? S_A : S_B1], b, ZCASH_G1_BYTES, e)) < 0)
            return rc;
    }
    if (q == 2) {
        if ((rc = keygen_bp_mul(&st->t, 1, st->pts, st->q[q], n, e)) < 0)
            return rc;
        const g2_t *p2 = st->pts;
        for (size_t i = 0; i < n; i++) {
            bls12381_g2_to_zcash(b, &p2[i]);
            if ((rc = ps_put(&st->s[S_B2], b, ZCASH_G2_BYTES, e)) < 0)
                return rc;
        }
    }
    st->nout[q] += n;
    keygen_advance(st->j->progress, q == 2 ? 4 * n : n);
    st->nq[q] = 0;
    return 0;
}

/* Aux wire j is final: its l, a and b scalars join their batches. */
static int wire_final(struct pst *st, uint64_t j, struct sp_err *e)
{
    unsigned s = (unsigned)(j % PRING);
    fr_t x, y;
    int rc;
    bls12381_fr_mul(&x, &st->beta, &st->ru[s]);
    bls12381_fr_mul(&y, &st->alpha, &st->rv[s]);
    bls12381_fr_add(&x, &x, &y);
    bls12381_fr_add(&x, &x, &st->rc[s]);
    bls12381_fr_mul(&st->q[0][st->nq[0]++], &x, &st->delta_inv);
    if (is_a(st->p, j))
        st->q[1][st->nq[1]++] = st->ru[s];
    if (is_b(st->p, j))
        st->q[2][st->nq[2]++] = st->rv[s];
    for (int q = 0; q < 3; q++)
        if (st->nq[q] == KEYGEN_BP_CHUNK && (rc = points_flush(st, q, e)) < 0)
            return rc;
    return 0;
}

/* Aux wire j enters: its value (witness file) and zero sums. */
static int wire_enter(struct pst *st, uint64_t j, struct sp_err *e)
{
    unsigned s = (unsigned)(j % PRING);
    fr_t *w = &st->rw[s];
    uint64_t u = keygen_rng_next(&st->gw);
    if (u % 1000 < POREP_BIT_PERMILLE) {
        st->bits++;
        if ((u >> 32) & 1) {
            bls12381_fr_set_one(w);
            st->bits_one++;
        } else {
            memset(w, 0, sizeof *w);
        }
    } else {
        rand_fr(w, &st->gw);
    }
    memset(&st->ru[s], 0, sizeof(fr_t));
    memset(&st->rv[s], 0, sizeof(fr_t));
    memset(&st->rc[s], 0, sizeof(fr_t));
    fr_t x;
    uint8_t b[32];
    bls12381_fr_from_mont(&x, w);
    bls12381_fr_to_bytes(b, &x);
    return ps_put(&st->s[S_W], b, 32, e);
}

/* ------------------------------------------------------------------- run */

static int p_open(struct pst *st, const char *dir, struct sp_err *e)
{
    for (int i = 0; i < PF_COUNT; i++) {
        int rc = out_open(&st->of[i], dir, pf_names[i], e);
        st->fd[i] = st->of[i].fd;
        st->tmp[i] = st->of[i].path;
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int put_g1(uint8_t **q, const g1_t *p)
{
    bls12381_g1_to_zcash(*q, p);
    *q += ZCASH_G1_BYTES;
    return 0;
}

static int put_g2(uint8_t **q, const g2_t *p)
{
    bls12381_g2_to_zcash(*q, p);
    *q += ZCASH_G2_BYTES;
    return 0;
}

static int bitmap_write(int fd, const char *path, uint64_t off, const uint64_t *w,
                        uint64_t bit_len, struct sp_err *e)
{
    uint64_t nw = (bit_len + 63) / 64, pop = 0, v;
    for (uint64_t i = 0; i < nw; i++)
        pop += (uint64_t)__builtin_popcountll(w[i]);
    int rc = file_pwrite(fd, path, &nw, 8, off, e);
    if (rc == 0)
        rc = file_pwrite(fd, path, w, nw * 8, off + 8, e);
    v = bit_len;
    if (rc == 0)
        rc = file_pwrite(fd, path, &v, 8, off + 8 + nw * 8, e);
    if (rc == 0)
        rc = file_pwrite(fd, path, &pop, 8, off + 16 + nw * 8, e);
    return rc;
}

static int porep_gen(struct pst *st, const char *dir, struct sp_err *e)
{
    const struct porep_plan *p = st->p;
    struct keygen_job *j = st->j;
    const uint64_t n = p->domain, n_in = p->n_in, n_aux = p->n_aux;
    struct keygen_rng gs;
    fr_t tau, gamma, delta, shift;
    int rc;

    keygen_rng_seed(&st->gw, j->seed);
    keygen_rng_seed(&st->gc, j->seed ^ 0xc0effc0effc0effcULL);
    keygen_rng_seed(&gs, j->seed ^ 0x5ec7e75ec7e75ec7ULL);
    bls12381_ntt_coset_shift(&shift, p->log_domain);
    if ((rc = keygen_bp_secret(&st->alpha, &gs, j->seeded)) < 0 ||
        (rc = keygen_bp_secret(&st->beta, &gs, j->seeded)) < 0 ||
        (rc = keygen_bp_secret(&gamma, &gs, j->seeded)) < 0 ||
        (rc = keygen_bp_secret(&delta, &gs, j->seeded)) < 0)
        return sp_fail(e, rc, "getrandom: %s", strerror(-rc));
    do {
        if ((rc = keygen_bp_secret(&tau, &gs, j->seeded)) < 0)
            return sp_fail(e, rc, "getrandom: %s", strerror(-rc));
    } while (keygen_bls12381_qap_init(&st->qb, &tau, &delta, p->log_domain, &shift) < 0);
    bp_root_of_unity(&st->qb.omega, p->log_domain);
    bls12381_fr_inv(&st->delta_inv, &delta);
    explicit_bzero(&gs, sizeof gs);

    if ((rc = p_open(st, dir, e)) < 0)
        return rc;
    /* the streams' offsets */
    uint64_t R = p->rows, off = BP_PCE_HEADER_BYTES;
    for (int m = 0; m < 3; m++) {
        st->s[S_RP + m].off = off + 8;
        st->s[S_COL + m].off = off + 8 + 4 * (R + 1) + 8;
        st->s[S_VAL + m].off = off + 8 + 4 * (R + 1) + 8 + 4 * p->nnz[m] + 8;
        uint64_t v[3] = { R + 1, p->nnz[m], p->nnz[m] };
        if ((rc = file_pwrite(st->fd[PF_PCE], st->tmp[PF_PCE], &v[0], 8, off, e)) < 0 ||
            (rc = file_pwrite(st->fd[PF_PCE], st->tmp[PF_PCE], &v[1], 8,
                              st->s[S_COL + m].off - 8, e)) < 0 ||
            (rc = file_pwrite(st->fd[PF_PCE], st->tmp[PF_PCE], &v[2], 8,
                              st->s[S_VAL + m].off - 8, e)) < 0)
            return rc;
        off = st->s[S_VAL + m].off + 32 * p->nnz[m];
    }
    const uint64_t bitmaps_off = off;
    uint64_t o_h = p->vk_bytes, o_l = o_h + 4 + (n - 1) * 96, o_a = o_l + 4 + n_aux * 96;
    uint64_t o_b1 = o_a + 4 + p->n_a * 96, o_b2 = o_b1 + 4 + p->n_b * 96;
    st->s[S_L].off = o_l + 4;
    st->s[S_A].off = o_a + 4 + n_in * 96;
    st->s[S_B1].off = o_b1 + 4 + 96;
    st->s[S_B2].off = o_b2 + 4 + 192;
    st->s[S_W].off = wtns_file_bytes((uint32_t)(n_in + n_aux)) - (n_in + n_aux) * 32;
    for (int i = 0; i < S_COUNT; i++) {
        int f = i < S_L ? PF_PCE : i == S_W ? PF_WTNS : PF_PARAMS;
        st->s[i].fd = st->fd[f];
        st->s[i].path = st->tmp[f];
        if (!(st->s[i].buf = malloc(PBUF)))
            return sp_fail(e, -ENOMEM, "out of memory");
    }
    {   /* section counts of the .params (big-endian u32) */
        uint8_t b[4];
        const uint64_t at[5] = { o_h, o_l, o_a, o_b1, o_b2 };
        const uint64_t cnt[5] = { n - 1, n_aux, p->n_a, p->n_b, p->n_b };
        for (int i = 0; i < 5; i++) {
            be32(b, (uint32_t)cnt[i]);
            if ((rc = file_pwrite(st->fd[PF_PARAMS], st->tmp[PF_PARAMS], b, 4, at[i], e)) < 0)
                return rc;
        }
    }

    /* the tables or the GPU, the batches */
    st->t.nthreads = j->nthreads;
    st->t.j = j;
    rc = bls12381_g1_fb_init(&st->t.t1, &bls12381_g1_generator,
                             bls12381_g1_fb_window(n_aux + p->n_a + p->n_b + n), j->nthreads);
    if (rc == 0)
        rc = bls12381_g2_fb_init(&st->t.t2, &bls12381_g2_generator,
                                 bls12381_g2_fb_window(p->n_b), j->nthreads);
    if (rc < 0)
        return sp_fail(e, rc, "out of memory for the generator tables");
    if (j->gpu && (rc = keygen_gpu_open(&st->t.gpu, CURVE_BLS12381, st->t.t1.pts, st->t.t1.window,
                                        st->t.t2.pts, st->t.t2.window, KEYGEN_BP_CHUNK, e)) < 0) {
        if (j->gpu == KEYGEN_GPU_REQUIRED)
            return rc;
        fprintf(stderr, "slotprove keygen: the GPU failed (%s); the CPU computes the points\n",
                e->msg);
        st->t.gpu = NULL;
    }
    st->t.k = malloc(KEYGEN_BP_CHUNK * sizeof(*st->t.k));
    st->L = malloc(KEYGEN_BP_CHUNK * sizeof(fr_t));
    st->pts = malloc(KEYGEN_BP_CHUNK * sizeof(g2_t));
    for (int q = 0; q < 3; q++)
        st->q[q] = malloc(KEYGEN_BP_CHUNK * sizeof(fr_t));
    st->iw = calloc(n_in, sizeof(fr_t)), st->iu = calloc(n_in, sizeof(fr_t));
    st->iv = calloc(n_in, sizeof(fr_t)), st->ic = calloc(n_in, sizeof(fr_t));
    st->bm_a = calloc(n_aux / 64 + 1, 8), st->bm_b = calloc(n_aux / 64 + 1, 8);
    if (!st->t.k || !st->L || !st->pts || !st->q[0] || !st->q[1] || !st->q[2] || !st->iw ||
        !st->iu || !st->iv || !st->ic || !st->bm_a || !st->bm_b)
        return sp_fail(e, -ENOMEM, "out of memory");
    st->nL = 0;

    /* the inputs' values: wire 0 = 1, the public inputs random */
    uint8_t *inb = malloc(n_in * 32);
    if (!inb)
        return sp_fail(e, -ENOMEM, "out of memory");
    bls12381_fr_set_one(&st->iw[0]);
    for (uint64_t i = 0; i < n_in; i++) {
        fr_t x;
        if (i)
            rand_fr(&st->iw[i], &st->gw);
        bls12381_fr_from_mont(&x, &st->iw[i]);
        bls12381_fr_to_bytes(inb + 32 * i, &x);
    }
    rc = wtns_write_header(st->fd[PF_WTNS], st->tmp[PF_WTNS], CURVE_BLS12381,
                           (uint32_t)(n_in + n_aux), e); /* the values: streamed */
    if (rc == 0)
        rc = ps_put(&st->s[S_W], inb, n_in * 32, e);
    if (rc == 0) {
        char *pub = public_to_json(inb + 32, (uint32_t)(n_in - 1));
        if (!pub)
            rc = sp_fail(e, -ENOMEM, "out of memory");
        else
            rc = file_pwrite(st->fd[PF_PUBLIC], st->tmp[PF_PUBLIC], pub, strlen(pub), 0, e);
        free(pub);
    }
    free(inb);
    if (rc < 0)
        return rc;

    /* the rows, wire by wire; wire j − PW is final after wire j */
    keygen_phase(j->progress, "circuit, witness, l/a/b points");
    keygen_phase_units(j->progress, n_aux + p->n_a - n_in + 4 * (p->n_b - 1));
    for (int m = 0; m < 3 && rc == 0; m++)
        rc = ps_u32(&st->s[S_RP + m], 0, e);
    for (uint64_t w = 0; w < n_aux && rc == 0; w++) {
        rc = wire_enter(st, w, e);
        if (rc == 0)
            rc = wire_rows(st, w, e);
        if (rc == 0 && w >= PW)
            rc = wire_final(st, w - PW, e);
    }
    for (uint64_t w = n_aux > PW ? n_aux - PW : 0; w < n_aux && rc == 0; w++)
        rc = wire_final(st, w, e);
    for (int q = 0; q < 3 && rc == 0; q++)
        rc = points_flush(st, q, e);
    /* the empty rows, then bellperson's input rows A = [1·input_k] */
    for (uint64_t r = p->rows_used; r < p->rows_circuit && rc == 0; r++)
        rc = row_end(st, e);
    for (uint64_t k = 0; k < n_in && rc == 0; k++) {
        fr_t one;
        bls12381_fr_set_one(&one);
        const fr_t *L = lagrange(st, p->rows_circuit + k, e, &rc);
        if (!L)
            break;
        rc = entry(st, 0, k, &one, L, e);
        if (rc == 0)
            rc = row_end(st, e);
    }
    for (int i = 0; i < S_COUNT && rc == 0; i++)
        rc = ps_flush(&st->s[i], e);
    if (rc < 0)
        return rc;
    for (int m = 0; m < 3; m++)
        if (st->cum[m] != p->nnz[m])
            return sp_fail(e, SP_EINTERNAL, "keygen: matrix %c has %llu entries, planned %llu",
                           "ABC"[m], (unsigned long long)st->cum[m],
                           (unsigned long long)p->nnz[m]);
    if (st->nout[1] != p->a_aux_cols || st->nout[2] != p->b_aux_cols)
        return sp_fail(e, SP_EINTERNAL, "keygen: %llu a and %llu b points, planned %llu and %llu",
                       (unsigned long long)st->nout[1], (unsigned long long)st->nout[2],
                       (unsigned long long)p->a_aux_cols, (unsigned long long)p->b_aux_cols);
    keygen_phase_end(j->progress);

    /* the PCE's header and bitmaps (b_input: wire 0 only) */
    {
        uint8_t h[BP_PCE_HEADER_BYTES] = { 0 };
        uint32_t v[4] = { BP_PCE_VERSION, (uint32_t)n_in, (uint32_t)n_aux, (uint32_t)R };
        uint64_t total = p->nnz[0] + p->nnz[1] + p->nnz[2];
        memcpy(h, BP_PCE_MAGIC, 4);
        memcpy(h + 4, v, 16);
        memcpy(h + 20, &total, 8);
        uint64_t bin[(POREP_INPUTS + 63) / 64] = { 1 };
        uint64_t aw = 8 + 8 * ((n_aux + 63) / 64) + 16;
        if ((rc = file_pwrite(st->fd[PF_PCE], st->tmp[PF_PCE], h, sizeof h, 0, e)) < 0 ||
            (rc = bitmap_write(st->fd[PF_PCE], st->tmp[PF_PCE], bitmaps_off, st->bm_a, n_aux,
                               e)) < 0 ||
            (rc = bitmap_write(st->fd[PF_PCE], st->tmp[PF_PCE], bitmaps_off + aw, bin, n_in,
                               e)) < 0 ||
            (rc = bitmap_write(st->fd[PF_PCE], st->tmp[PF_PCE],
                               bitmaps_off + aw + 8 + 8 * ((n_in + 63) / 64) + 16, st->bm_b,
                               n_aux, e)) < 0)
            return rc;
    }

    /* the inputs' points: IC (/γ), a (every input), b (wire 0); the vk */
    {
        fr_t gamma_inv, *sc = st->q[0];
        bls12381_fr_inv(&gamma_inv, &gamma);
        for (uint64_t i = 0; i < n_in; i++) {
            fr_t x, y;
            bls12381_fr_mul(&x, &st->beta, &st->iu[i]);
            bls12381_fr_mul(&y, &st->alpha, &st->iv[i]);
            bls12381_fr_add(&x, &x, &y);
            bls12381_fr_add(&x, &x, &st->ic[i]);
            bls12381_fr_mul(&sc[i], &x, &gamma_inv);
        }
        sc[n_in] = st->alpha, sc[n_in + 1] = st->beta, sc[n_in + 2] = delta;
        g1_t *pt = st->pts;
        if ((rc = keygen_bp_mul(&st->t, 0, pt, sc, n_in + 3, e)) < 0)
            return rc;
        uint64_t vkb = p->vk_bytes;
        uint8_t *vk = malloc(vkb), *q = vk;
        if (!vk)
            return sp_fail(e, -ENOMEM, "out of memory");
        g2_t h2[3];
        fr_t s2[3] = { st->beta, gamma, delta };
        g1_t h1[3] = { pt[n_in], pt[n_in + 1], pt[n_in + 2] };
        if ((rc = keygen_bp_mul(&st->t, 1, h2, s2, 3, e)) < 0) {
            free(vk);
            return rc;
        }
        explicit_bzero(s2, sizeof s2);
        put_g1(&q, &h1[0]), put_g1(&q, &h1[1]), put_g2(&q, &h2[0]), put_g2(&q, &h2[1]);
        put_g1(&q, &h1[2]), put_g2(&q, &h2[2]);
        be32(q, (uint32_t)n_in), q += 4;
        for (uint64_t i = 0; i < n_in; i++)
            put_g1(&q, &pt[i]);
        rc = file_pwrite(st->fd[PF_VK], st->tmp[PF_VK], vk, vkb, 0, e);
        if (rc == 0)
            rc = file_pwrite(st->fd[PF_PARAMS], st->tmp[PF_PARAMS], vk, vkb, 0, e);
        free(vk);
        if (rc < 0)
            return rc;
        /* a: A at τ of each input; b: B at τ of wire 0 */
        memcpy(sc, st->iu, n_in * sizeof(fr_t));
        sc[n_in] = st->iv[0];
        if ((rc = keygen_bp_mul(&st->t, 0, pt, sc, n_in + 1, e)) < 0)
            return rc;
        uint8_t b[ZCASH_G2_BYTES];
        for (uint64_t i = 0; i <= n_in; i++) {
            bls12381_g1_to_zcash(b, &pt[i]);
            if ((rc = file_pwrite(st->fd[PF_PARAMS], st->tmp[PF_PARAMS], b, ZCASH_G1_BYTES,
                                  i < n_in ? o_a + 4 + i * 96 : o_b1 + 4, e)) < 0)
                return rc;
        }
        g2_t bb;
        if ((rc = keygen_bp_mul(&st->t, 1, &bb, &st->iv[0], 1, e)) < 0)
            return rc;
        bls12381_g2_to_zcash(b, &bb);
        if ((rc = file_pwrite(st->fd[PF_PARAMS], st->tmp[PF_PARAMS], b, ZCASH_G2_BYTES, o_b2 + 4,
                              e)) < 0)
            return rc;
    }

    /* h: τ^i·Z(τ)/δ, i < n − 1 */
    keygen_phase(j->progress, "h points");
    keygen_phase_units(j->progress, n - 1);
    {
        fr_t pw, one;
        uint64_t ne[1] = { n };
        bls12381_fr_pow(&pw, &tau, ne, 1);
        bls12381_fr_set_one(&one);
        bls12381_fr_sub(&pw, &pw, &one);
        bls12381_fr_mul(&pw, &pw, &st->delta_inv);
        struct pstream hs = { .fd = st->fd[PF_PARAMS], .path = st->tmp[PF_PARAMS],
                              .off = o_h + 4, .buf = st->s[S_L].buf };
        fr_t *sc = st->q[0];
        for (uint64_t first = 0; first + 1 < n && rc == 0; first += KEYGEN_BP_CHUNK) {
            size_t cnt = n - 1 - first < KEYGEN_BP_CHUNK ? (size_t)(n - 1 - first)
                                                         : KEYGEN_BP_CHUNK;
            for (size_t k = 0; k < cnt; k++) {
                sc[k] = pw;
                bls12381_fr_mul(&pw, &pw, &tau);
            }
            if ((rc = keygen_bp_mul(&st->t, 0, st->pts, sc, cnt, e)) < 0)
                break;
            const g1_t *p1 = st->pts;
            uint8_t b[ZCASH_G1_BYTES];
            for (size_t k = 0; k < cnt && rc == 0; k++) {
                bls12381_g1_to_zcash(b, &p1[k]);
                rc = ps_put(&hs, b, sizeof b, e);
            }
            keygen_advance(j->progress, cnt);
        }
        if (rc == 0)
            rc = ps_flush(&hs, e);
        explicit_bzero(&pw, sizeof pw);
    }
    explicit_bzero(&tau, sizeof tau);
    explicit_bzero(&gamma, sizeof gamma);
    explicit_bzero(&delta, sizeof delta);
    if (rc < 0)
        return rc;
    keygen_phase_end(j->progress);
    struct stat sb;
    const uint64_t want[PF_COUNT - 1] = { p->params_bytes, p->vk_bytes, p->pce_bytes,
                                          p->wtns_bytes };
    for (int i = 0; i < PF_COUNT - 1; i++)
        if (fstat(st->fd[i], &sb) != 0 || (uint64_t)sb.st_size != want[i])
            return sp_fail(e, SP_EINTERNAL, "keygen: %s: %llu bytes, planned %llu", st->tmp[i],
                           (unsigned long long)sb.st_size, (unsigned long long)want[i]);
    return 0;
}

static void pst_free(struct pst *st)
{
    keygen_gpu_close(st->t.gpu);
    bls12381_g1_fb_free(&st->t.t1);
    bls12381_g2_fb_free(&st->t.t2);
    free(st->t.k), free(st->L), free(st->pts);
    for (int q = 0; q < 3; q++)
        free(st->q[q]);
    for (int i = 0; i < S_COUNT; i++)
        free(st->s[i].buf);
    free(st->iw), free(st->iu), free(st->iv), free(st->ic), free(st->bm_a), free(st->bm_b);
    explicit_bzero(st, sizeof *st);
}

int keygen_porep_cmd(struct keygen_job *j, const struct porep_plan *p, const char *dir)
{
    struct sp_err e = { { 0 } };
    struct stat sb;
    if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "slotprove keygen: %s: %s\n", dir,
                errno ? strerror(errno) : "not a directory");
        return 1;
    }
    uint64_t need = p->params_bytes + p->vk_bytes + p->pce_bytes + p->wtns_bytes +
                    p->public_bytes;
    struct statvfs vfs;
    if (statvfs(dir, &vfs) < 0) {
        fprintf(stderr, "slotprove keygen: %s: statvfs: %s\n", dir, strerror(errno));
        return 1;
    }
    uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
    fprintf(stderr, "slotprove keygen: --shape porep --scale %g: %llu bytes (%.2f GiB: .params "
                    "%.2f, .pce %.2f, witness %.2f GiB) to %s, %llu bytes free\n",
            p->scale, (unsigned long long)need, need / 1073741824.0,
            p->params_bytes / 1073741824.0, p->pce_bytes / 1073741824.0,
            p->wtns_bytes / 1073741824.0, dir, (unsigned long long)avail);
    if (avail < need) {
        fprintf(stderr, "slotprove keygen: %s: not enough free space: the porep-shaped files "
                        "need %llu bytes (%.2f GiB), only %llu bytes are free\n",
                dir, (unsigned long long)need, need / 1073741824.0, (unsigned long long)avail);
        return 1;
    }
    fprintf(stderr, "slotprove keygen: INSECURE, FOR TESTING ONLY: a single-party setup whose "
                    "secrets %s\n",
            j->seeded ? "follow from --seed (anyone can recompute them)"
                      : "came from getrandom and are discarded at the end");
    if (!j->progress->quiet)
        fprintf(stderr, "slotprove keygen: porep shape, domain 2^%u, %llu constraints (%llu with "
                        "entries), %u inputs, %llu aux; non-zeros A %llu, B %llu, C %llu; aux in "
                        "A %llu, in B %llu\n",
                p->log_domain, (unsigned long long)p->rows, (unsigned long long)p->rows_used,
                p->n_in, (unsigned long long)p->n_aux, (unsigned long long)p->nnz[0],
                (unsigned long long)p->nnz[1], (unsigned long long)p->nnz[2],
                (unsigned long long)p->a_aux_cols, (unsigned long long)p->b_aux_cols);
    j->progress->tty = isatty(2);
    struct pst *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "slotprove keygen: out of memory\n");
        return 1;
    }
    for (int i = 0; i < PF_COUNT; i++)
        st->fd[i] = st->of[i].fd = -1;
    st->p = p;
    st->j = j;
    int rc = porep_gen(st, dir, &e);
    if (rc == 0)
        rc = out_commit(st->of, PF_COUNT, dir, &e);
    uint64_t bits = st->bits, ones = st->bits_one;
    out_close(st->of, PF_COUNT);
    pst_free(st);
    free(st);
    if (rc < 0) {
        fprintf(stderr, "slotprove keygen: %s\n", e.msg);
        return 1;
    }
    if (!j->progress->quiet)
        fprintf(stderr, "slotprove keygen: aux values: %llu bits (%llu ones), %llu field "
                        "elements\nslotprove keygen: wrote %s/{circuit.params,circuit.vk,"
                        "circuit.pce,circuit.wtns,public.json} (INSECURE, FOR TESTING ONLY)\n",
                (unsigned long long)bits, (unsigned long long)ones,
                (unsigned long long)(p->n_aux - bits), dir);
    return 0;
}
