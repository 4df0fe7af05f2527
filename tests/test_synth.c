/*
 * test_synth.c — synthd's a = A·w, b = B·w (synthd/synth_tmpl.h,
 * over the index of synthd/synth_index.h) against a naive loop over the
 * key's coefficient entries in section order (one Montgomery product and
 * one modular addition per entry, as snarkjs buildABC1 does, then brought
 * to the slot's form of shm/payload.h: standard form), byte
 * for byte, on random keys of both curves at several thread counts.
 *
 * The keys mix every coefficient class and its edges: ±1, 0, small ±s up to
 * 2^24 − 1, the first values past the limit (±2^24), and uniform values;
 * witness values include 0 and r − 1 and rows are stacked with r − 1 times
 * the largest small coefficient, so the unreduced 5-limb sums reach their
 * largest; one row has more than 0xffff stream words (the escaped header),
 * rows of one +1 term (stored as the witness value itself, 0 and r − 1
 * among them), some rows are empty (alone, and in runs of 300 and 200 like a domain's
 * padding, which are zeroed with non-temporal stores) and some have only
 * general terms (up to 40 of them:
 * the 8-limb sum of products is folded every 27 (BN254) or 4 (BLS12-381)
 * on the way); one row adds 13 of the largest general products, (r −
 * 2^24)·(r − 1), to the largest stacked small sum, and rows of nothing
 * but 2–7 and 25–30 near-largest products sit at that fold's bound (one
 * product more than it, and they overflow). The last reduction of every
 * row sum is also checked alone against GMP up to its bound, 2^312. The
 * index is also
 * built into a sealed memfd and mapped back as another synthd maps it, and
 * damaged or unsealed copies are refused. Last, a, b are gathered as
 * synthd gathers a large witness: from its private huge-page copy made by
 * the witness read (synthd/witness_read.h), forced here for a small one.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gmp.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "synth_index.h"
#include "synth_index_share.h"
#include "witness_read.h"
#include "wtns_write.h"
#include "zkey.h"

#define LOG_N 12
#define N_VARS 3001
#define BIG_ROW 7          /* 70000 terms of +1 and −1: an escaped header */
#define STACKED_ROW 9      /* 4096 terms of (2^24 − 1)·(r − 1) */
#define GMAX_ROWS 2000     /* GMAX_N rows of only the largest general products */
#define GMAX_N 192

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

struct coefs {
    struct zkey_coef *v;
    size_t n, cap;
};

static void push(struct coefs *c, uint32_t m, uint32_t row, uint32_t sig, const uint64_t val[4])
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->v = realloc(c->v, c->cap * sizeof(*c->v));
        cr_assert(c->v);
    }
    struct zkey_coef *e = &c->v[c->n++];
    memcpy(&e->matrix, &m, 4);
    memcpy(&e->constraint, &row, 4);
    memcpy(&e->signal, &sig, 4);
    memcpy(e->value, val, 32);
}

/* An index in a sealed memfd (synth_index_share.h), mapped again as a
 * second synthd would: the same vectors; a copy of it with one signal out
 * of range, and one left unsealed, are refused. */
#define SHARED_TEST(F, SY)                                                                       \
    static void F##_shared(const struct zkey *zk, const struct synth_index *ix, const F##_t *w,  \
                           F##_t *a, F##_t *b, const F##_t *ea, const F##_t *eb)                 \
    {                                                                                            \
        struct sp_err e = { "" };                                                                \
        struct synth_index built, mapped;                                                        \
        int fd;                                                                                  \
        cr_assert_eq(synth_index_build_shared(&built, zk, &fd, &e), 0, "%s", e.msg);             \
        cr_assert_geq(fd, 0, "no memfd");                                                        \
        cr_assert_eq(built.block_bytes, ix->block_bytes);                                        \
        cr_assert(memcmp(built.block, ix->block, ix->block_bytes) == 0);                         \
        cr_assert_eq(synth_index_map_shared(&mapped, zk, fd, &e), 0, "%s", e.msg);               \
        memset(a, 0, (size_t)zk->domain_size * 32);                                              \
        SY##_synth_ab(&mapped, zk, w, a, b, 2);                                                  \
        cr_assert(memcmp(a, ea, (size_t)zk->domain_size * 32) == 0);                             \
        cr_assert(memcmp(b, eb, (size_t)zk->domain_size * 32) == 0);                             \
        synth_index_free(&mapped);                                                               \
        synth_index_free(&built);                                                                \
        close(fd);                                                                               \
        for (int sealed = 0; sealed < 2; sealed++) {                                             \
            int t = memfd_create("bad-index", MFD_CLOEXEC | MFD_ALLOW_SEALING);                  \
            cr_assert_geq(t, 0);                                                                 \
            uint8_t *copy = malloc(ix->block_bytes);                                             \
            cr_assert(copy);                                                                     \
            memcpy(copy, ix->block, ix->block_bytes);                                            \
            /* the first term's tag: after the empty rows' zero headers */                    \
            uint32_t *st = (uint32_t *)(copy + ((const uint8_t *)ix->stream -                    \
                                                (const uint8_t *)ix->block));                    \
            while (*st == 0)                                                                     \
                st++;                                                                            \
            st[1] = (st[1] & ~SYNTH_SIGNAL_MASK) | (zk->n_vars + 5);                              \
            cr_assert_eq(write(t, copy, ix->block_bytes), (ssize_t)ix->block_bytes);             \
            free(copy);                                                                          \
            if (sealed)                                                                          \
                cr_assert_eq(fcntl(t, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW),  \
                             0);                                                                 \
            cr_assert_eq(synth_index_map_shared(&mapped, zk, t, &e), -SP_EFORMAT,                \
                         "sealed %d: accepted", sealed);                                         \
            cr_assert(strstr(e.msg, sealed ? "malformed" : "sealed"), "%s", e.msg);               \
            close(t);                                                                            \
        }                                                                                        \
    }

SHARED_TEST(bn254_fr, bn254)
SHARED_TEST(bls12381_fr, bls12381)

/* synthd's path for a large witness (witness_read.h): the witness written
 * as a .wtns, read into a slot-like buffer and into the private huge-page
 * copy (forced for this small witness: min_bytes 0, whatever the THP
 * setting), and a, b gathered from the copy. */
#define COPY_TEST(F, SY)                                                                         \
    static void F##_via_copy(const struct zkey *zk, const struct synth_index *ix, const F##_t *w, \
                             F##_t *a, F##_t *b, const F##_t *ea, const F##_t *eb)               \
    {                                                                                            \
        struct sp_err e = { "" };                                                                \
        struct wtns wt;                                                                          \
        struct synth_wcopy wc;                                                                   \
        const void *gw = NULL;                                                                   \
        int fd = memfd_create("w.wtns", MFD_CLOEXEC);                                            \
        cr_assert_geq(fd, 0);                                                                    \
        cr_assert_eq(wtns_write(fd, "w.wtns", zk->curve, (const uint8_t *)w, zk->n_vars, &e), 0, "%s", e.msg);    \
        cr_assert_eq(wtns_open(&wt, fd, "w.wtns", &e), 0, "%s", e.msg);                          \
        F##_t *slot = aligned_alloc(64, (size_t)zk->n_vars * 32);                                \
        cr_assert(slot);                                                                         \
        synth_wcopy_init(&wc, 0);                                                                \
        wc.off = 0;                                                                              \
        cr_assert_eq(synth_read_witness_copy(&wt, fd, slot, &wc, &gw, 2, &e), 0, "%s", e.msg);   \
        cr_assert(gw != slot && gw == wc.p, "the copy was not made");                            \
        cr_assert_eq((uintptr_t)gw % (2u << 20), 0, "the copy is not 2 MiB aligned");            \
        cr_assert(memcmp(gw, w, (size_t)zk->n_vars * 32) == 0);                                  \
        cr_assert(memcmp(slot, w, (size_t)zk->n_vars * 32) == 0);                                \
        memset(slot, 0, (size_t)zk->n_vars * 32); /* a, b must come from the copy */             \
        for (unsigned th = 1; th <= 3; th += 2) {                                                \
            memset(a, 0xa5, (size_t)zk->domain_size * 32);                                       \
            memset(b, 0xa5, (size_t)zk->domain_size * 32);                                       \
            SY##_synth_ab(ix, zk, gw, a, b, th);                                                 \
            cr_assert(memcmp(a, ea, (size_t)zk->domain_size * 32) == 0, "a (%u threads)", th);   \
            cr_assert(memcmp(b, eb, (size_t)zk->domain_size * 32) == 0, "b (%u threads)", th);   \
        }                                                                                        \
        synth_wcopy_done(&wc);                                                                   \
        cr_assert_null(wc.p);                                                                    \
        free(slot);                                                                              \
        close(fd);                                                                               \
    }

COPY_TEST(bn254_fr, bn254)
COPY_TEST(bls12381_fr, bls12381)

/* The test for one curve's Fr: F is the field prefix, SY the synth prefix. */
#define SYNTH_TEST(F, SY, CURVE)                                                                 \
    static void F##_random(F##_t *x)                                                             \
    {                                                                                            \
        do {                                                                                     \
            for (int i = 0; i < 4; i++)                                                          \
                x->l[i] = next();                                                                \
            x->l[3] &= 0x7fffffffffffffffull;                                                    \
        } while (x->l[3] > F##_modulus.l[3] ||                                                   \
                 (x->l[3] == F##_modulus.l[3] && x->l[2] >= F##_modulus.l[2]));                  \
    }                                                                                            \
    /* the stored form of v: v·R² mod r (snarkjs writeFr2) */                                    \
    static void F##_stored(uint64_t out[4], const F##_t *v)                                      \
    {                                                                                            \
        F##_t t;                                                                                 \
        F##_mul(&t, v, &F##_r2);                                                                 \
        F##_mul(&t, &t, &F##_r2);                                                                \
        memcpy(out, t.l, 32);                                                                    \
    }                                                                                            \
    static void F##_coef(uint64_t out[4], int kind)                                              \
    {                                                                                            \
        F##_t v = { { 0, 0, 0, 0 } };                                                            \
        int neg = kind & 1;                                                                      \
        switch (kind >> 1) {                                                                     \
        case 0: v.l[0] = 1; break;                                                               \
        case 1: v.l[0] = next() % SYNTH_SMALL_LIMIT; break;                                      \
        case 2: v.l[0] = (next() & 1) ? SYNTH_SMALL_LIMIT - 1 : SYNTH_SMALL_LIMIT; break;         \
        case 3: v.l[0] = next() % 8; break;                                                      \
        default: F##_random(&v); break;                                                          \
        }                                                                                        \
        if (neg)                                                                                 \
            F##_neg(&v, &v);                                                                     \
        F##_stored(out, &v);                                                                     \
    }                                                                                            \
    static void F##_check(void)                                                                  \
    {                                                                                            \
        const uint32_t n = 1u << LOG_N;                                                          \
        struct coefs c = { 0 };                                                                  \
        uint64_t val[4];                                                                         \
        for (uint32_t row = 0; row < n; row++) {                                                 \
            if (row % 97 == 5 || (row >= 1000 && row < 1300) || row >= n - 200)                  \
                continue; /* empty; runs of 300 and 200: the non-temporal zero rows */          \
            if (row >= GMAX_ROWS && row < GMAX_ROWS + GMAX_N)                                    \
                continue; /* filled below */                                                     \
            if (row % 17 == 6) { /* one +1 term each (stored as w): w = 0, r − 1, random */      \
                F##_coef(val, 0);                                                                \
                push(&c, 0, row, row % 3 == 0 ? 1u : (uint32_t)(2 + row % 3), val);             \
                push(&c, 1, row, (uint32_t)(next() % N_VARS), val);                              \
                continue;                                                                        \
            }                                                                                    \
            for (uint32_t m = 0; m < 2; m++) {                                                   \
                unsigned terms = row % 13 == 3 ? 40 : (unsigned)(next() % 6);                    \
                int only_general = row % 11 == 4;                                                \
                for (unsigned k = 0; k < terms; k++) {                                           \
                    F##_coef(val, only_general ? 8 : (int)(next() % 12));                        \
                    push(&c, m, row, (uint32_t)(next() % N_VARS), val);                          \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        for (unsigned k = 0; k < 70000; k++) {                                                   \
            F##_coef(val, (int)(k & 1));                                                         \
            push(&c, 0, BIG_ROW, (uint32_t)(next() % N_VARS), val);                              \
        }                                                                                        \
        F##_t big = { { SYNTH_SMALL_LIMIT - 1, 0, 0, 0 } };                                      \
        F##_stored(val, &big);                                                                   \
        for (unsigned k = 0; k < 4096; k++) {                                                    \
            push(&c, 1, STACKED_ROW, 2 + k % 3, val);                                            \
            push(&c, 0, STACKED_ROW, 2 + k % 3, val);                                            \
        }                                                                                        \
        /* A's row also the largest general products, (r − 2^24)·(r − 1), 13 */                 \
        /* of them: the general sum folded on the way with that V on top    */                 \
        F##_t gmax = { { SYNTH_SMALL_LIMIT, 0, 0, 0 } };                                         \
        F##_neg(&gmax, &gmax);                                                                   \
        F##_stored(val, &gmax);                                                                  \
        for (unsigned k = 0; k < 13; k++)                                                        \
            push(&c, 0, STACKED_ROW, 2 + k % 3, val);                                            \
        /* rows GMAX_ROWS.. hold nothing but 2 to 7 (the first half) or 25 to */             \
        /* 30 products near the largest (coefficients r − 2^24 − j, j < 2^20, */              \
        /* so that the sums differ), around the 8-limb sum's bound of 4       */               \
        /* (BLS12-381) and 27 (BN254) products: one product more before a     */               \
        /* fold wraps past 2^512; 16 rows of each count, both matrices        */               \
        for (uint32_t row = GMAX_ROWS; row < GMAX_ROWS + GMAX_N; row++)                           \
            for (uint32_t m = 0; m < 2; m++)                                                     \
                for (unsigned k = 0;                                                             \
                     k < (row - GMAX_ROWS < GMAX_N / 2 ? 2u : 25u) + (row - GMAX_ROWS) % 6; k++) { \
                    F##_t g = { { SYNTH_SMALL_LIMIT + next() % (1u << 20), 0, 0, 0 } };         \
                    F##_neg(&g, &g);                                                             \
                    F##_stored(val, &g);                                                         \
                    push(&c, m, row, 2 + k % 3, val);                                            \
                }                                                                                \
        /* shuffle: section 4 has no guaranteed order */                                         \
        for (size_t i = c.n - 1; i > 0; i--) {                                                   \
            size_t j = next() % (i + 1);                                                         \
            struct zkey_coef t = c.v[i];                                                         \
            c.v[i] = c.v[j];                                                                     \
            c.v[j] = t;                                                                          \
        }                                                                                        \
        F##_t *w = aligned_alloc(64, (size_t)N_VARS * 32);                                       \
        cr_assert(w);                                                                            \
        for (uint32_t i = 0; i < N_VARS; i++)                                                    \
            F##_random(&w[i]);                                                                   \
        memset(&w[0], 0, 32);                                                                    \
        w[0].l[0] = 1;                                                                           \
        memset(&w[1], 0, 32);                                                                    \
        for (int k = 2; k < 5; k++) {                                                            \
            w[k] = F##_modulus;                                                                  \
            w[k].l[0] -= 1; /* r − 1 */                                                          \
        }                                                                                        \
        struct zkey zk = {                                                                       \
            .path = "random.zkey", .ci = curve_get(CURVE), .curve = CURVE, .n_vars = N_VARS,      \
            .n_public = 1, .domain_size = n, .log_domain = LOG_N, .n_coefs = c.n, .coefs = c.v,   \
        };                                                                                       \
        /* the naive loop, in section order */                                                   \
        F##_t *ea = calloc(n, 32), *eb = calloc(n, 32);                                          \
        cr_assert(ea && eb);                                                                     \
        for (size_t i = 0; i < c.n; i++) {                                                       \
            uint32_t m, row, sig;                                                                \
            F##_t v, t;                                                                          \
            memcpy(&m, &c.v[i].matrix, 4);                                                       \
            memcpy(&row, &c.v[i].constraint, 4);                                                 \
            memcpy(&sig, &c.v[i].signal, 4);                                                     \
            memcpy(v.l, c.v[i].value, 32);                                                       \
            F##_mul(&t, &v, &w[sig]);                                                            \
            F##_t *o = m ? &eb[row] : &ea[row];                                                  \
            F##_add(o, o, &t);                                                                   \
        }                                                                                        \
        /* to the slot's form (shm/payload.h): standard form, from Montgomery */              \
        /* form a·R by one reduction                                             */            \
        for (uint32_t r = 0; r < n; r++) {                                                       \
            F##_from_mont(&ea[r], &ea[r]);                                                       \
            F##_from_mont(&eb[r], &eb[r]);                                                       \
        }                                                                                        \
        struct sp_err e = { "" };                                                                \
        struct synth_index ix;                                                                   \
        cr_assert_eq(synth_index_build(&ix, &zk, &e), 0, "%s", e.msg);                           \
        cr_assert_eq(ix.hdr->n_coefs, c.n);                                                      \
        uint64_t sum = 0;                                                                        \
        for (int k = 0; k < 4; k++) {                                                            \
            cr_assert_gt(ix.hdr->class_count[k], 0, "class %d never used", k);                   \
            sum += ix.hdr->class_count[k];                                                       \
        }                                                                                        \
        cr_assert_eq(sum, c.n);                                                                  \
        F##_t *a = aligned_alloc(64, (size_t)n * 32), *b = aligned_alloc(64, (size_t)n * 32);    \
        cr_assert(a && b);                                                                       \
        /* th 1-3 with plain stores, 4-6 the same with non-temporal ones */                    \
        for (unsigned th = 1; th <= 6; th++) {                                                   \
            synth_nt_min_rows = th > 3 ? 1 : SYNTH_NT_MIN_ROWS;                                  \
            memset(a, 0xa5, (size_t)n * 32);                                                     \
            memset(b, 0xa5, (size_t)n * 32);                                                     \
            SY##_synth_ab(&ix, &zk, w, a, b, (th - 1) % 3 + 1);                                  \
            for (uint32_t r = 0; r < n; r++) {                                                   \
                cr_assert(memcmp(&a[r], &ea[r], 32) == 0, "a[%u] differs (case %u)", r, th);     \
                cr_assert(memcmp(&b[r], &eb[r], 32) == 0, "b[%u] differs (case %u)", r, th);     \
            }                                                                                    \
        }                                                                                        \
        synth_nt_min_rows = SYNTH_NT_MIN_ROWS;                                                   \
        F##_shared(&zk, &ix, w, a, b, ea, eb);                                                   \
        F##_via_copy(&zk, &ix, w, a, b, ea, eb);                                                 \
        synth_index_free(&ix);                                                                   \
        free(a), free(b), free(ea), free(eb), free(w), free(c.v);                                \
    }

SYNTH_TEST(bn254_fr, bn254, CURVE_BN254)
SYNTH_TEST(bls12381_fr, bls12381, CURVE_BLS12381)

Test(synth, bn254_matches_naive_loop, .timeout = 120)
{
    bn254_fr_check();
}

Test(synth, bls12381_matches_naive_loop, .timeout = 120)
{
    bls12381_fr_check();
}

static void mpz_add_si(mpz_t rop, const mpz_t op, long s)
{
    if (s >= 0)
        mpz_add_ui(rop, op, (unsigned long)s);
    else
        mpz_sub_ui(rop, op, (unsigned long)-s);
}

/* X_synth_reduce_wide (the row sums' last step: a quotient estimate and at
 * most two subtractions) against GMP's v mod r, for v at and near its
 * bound 2^312 − 1, at multiples of r and one either side, and random
 * values of every width up to 312 bits. */
static void reduce_wide_check(const char *curve, const uint64_t *r4,
                              void (*reduce)(uint64_t out[4], const uint64_t v[5]))
{
    mpz_t r, v, want, got, t;
    mpz_inits(r, v, want, got, t, NULL);
    mpz_import(r, 4, -1, 8, 0, 0, r4);
    for (int i = 0; i < 20000; i++) {
        uint64_t x[5] = { 0, 0, 0, 0, 0 }, out[4] = { 0, 0, 0, 0 };
        if (i < 4) { /* 2^312 − 1 − i */
            mpz_ui_pow_ui(v, 2, 312);
            mpz_sub_ui(v, v, 1 + (unsigned)i);
        } else if (i < 3000) { /* k·r − 1, k·r, k·r + 1 for k up to the largest below 2^312 */
            mpz_ui_pow_ui(t, 2, 312);
            mpz_fdiv_q(t, t, r);
            mpz_set_ui(v, i < 1500 ? (unsigned long)(i / 3) : 0);
            if (i >= 1500)
                mpz_sub_ui(v, t, (unsigned long)(i / 3 - 500));
            mpz_mul(v, v, r);
            mpz_add_si(v, v, i % 3 - 1);
            if (mpz_sgn(v) < 0)
                mpz_set_ui(v, 0);
        } else { /* random, of random width ≤ 312 bits */
            for (int j = 0; j < 5; j++)
                x[j] = next();
            unsigned bits = (unsigned)(next() % 313);
            mpz_import(v, 5, -1, 8, 0, 0, x);
            mpz_fdiv_r_2exp(v, v, bits);
        }
        cr_assert_leq(mpz_sizeinbase(v, 2), 312);
        memset(x, 0, sizeof(x));
        mpz_export(x, NULL, -1, 8, 0, 0, v);
        reduce(out, x);
        mpz_mod(want, v, r);
        mpz_import(got, 4, -1, 8, 0, 0, out);
        cr_assert(mpz_cmp(got, want) == 0, "%s: case %d: wrong v mod r", curve, i);
    }
    mpz_clears(r, v, want, got, t, NULL);
}

Test(synth, reduce_wide_matches_gmp)
{
    reduce_wide_check("bn254", bn254_fr_modulus.l, bn254_synth_reduce_wide);
    reduce_wide_check("bls12381", bls12381_fr_modulus.l, bls12381_synth_reduce_wide);
}

/* Each class on its own: the value classified is the one stored. */
Test(synth, coefficient_classes)
{
    uint64_t val[4];
    uint32_t s;
    bn254_fr_t v = { { 1, 0, 0, 0 } };
    bn254_fr_stored(val, &v);
    cr_assert_eq(synth_coef_class(CURVE_BN254, (uint8_t *)val, &s), SYNTH_ONE);
    bn254_fr_neg(&v, &v);
    bn254_fr_stored(val, &v);
    cr_assert_eq(synth_coef_class(CURVE_BN254, (uint8_t *)val, &s), SYNTH_NEG_ONE);
    bls12381_fr_t x = { { 12345, 0, 0, 0 } };
    bls12381_fr_stored(val, &x);
    cr_assert_eq(synth_coef_class(CURVE_BLS12381, (uint8_t *)val, &s), SYNTH_SMALL);
    cr_assert_eq(s, 12345u);
    bls12381_fr_neg(&x, &x);
    bls12381_fr_stored(val, &x);
    cr_assert_eq(synth_coef_class(CURVE_BLS12381, (uint8_t *)val, &s), SYNTH_SMALL);
    cr_assert_eq(s, 12345u | 1u << 31);
    x = (bls12381_fr_t){ { SYNTH_SMALL_LIMIT, 0, 0, 0 } };
    bls12381_fr_stored(val, &x);
    cr_assert_eq(synth_coef_class(CURVE_BLS12381, (uint8_t *)val, &s), SYNTH_GENERAL);
}
