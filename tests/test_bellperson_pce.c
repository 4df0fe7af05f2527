/*
 * test_bellperson_pce.c - the cuzk PCE reader and writer
 * (common/bellperson_pce.h, bellperson_pce_write.h): a small circuit
 * written and read back, its a, b, c against sums done with GMP (and the
 * input rows), the density bitmaps against the ones worked out by
 * hand; each malformed case refused with a message naming the part: magic,
 * version, row_ptrs, a column out of range, a value >= r, a bitmap that
 * disagrees with its matrix, a wrong popcount, a wrong total_nnz, a count
 * that overruns the file, truncation, trailing bytes.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bellperson_pce.h"
#include "bellperson_pce_write.h"
#include "pce_synth.h"

/* 2 inputs (w0 = 1, w1), 3 aux (w2, w3, w4), 3 constraints and the two
 * input rows cuzk appends (5 rows in all):
 *   A               B         C
 *   3 w1            w2        w3
 *   w2 + 5 w0       7 w3      w4
 *   w4              w0        w4
 *   w0              -         -
 *   w1              -         -                                           */
static const uint32_t a_rp[6] = { 0, 1, 3, 4, 5, 6 }, a_cols[6] = { 1, 2, 0, 4, 0, 1 };
static const uint64_t a_vals[6] = { 3, 1, 5, 1, 1, 1 };
static const uint32_t b_rp[6] = { 0, 1, 2, 3, 3, 3 }, b_cols[3] = { 2, 3, 0 };
static const uint64_t b_vals[3] = { 1, 7, 1 };
static const uint32_t c_rp[6] = { 0, 1, 2, 3, 3, 3 }, c_cols[3] = { 3, 4, 4 };
static const uint64_t c_vals[3] = { 1, 1, 1 };

static void to_fr(bls12381_fr_t *out, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bls12381_fr_from_u64(&out[i], v[i]);
}

/* The file's bytes. */
static uint8_t *make_pce(size_t *len)
{
    bls12381_fr_t av[6], bv[3], cv[3];
    to_fr(av, a_vals, 6), to_fr(bv, b_vals, 3), to_fr(cv, c_vals, 3);
    struct bp_pce_matrix m[3] = { { a_rp, a_cols, av, 6 }, { b_rp, b_cols, bv, 3 },
                                  { c_rp, c_cols, cv, 3 } };
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    struct sp_err e = { "" };
    cr_assert_eq(bp_pce_write(f, "mem", 2, 3, 5, m, &e), 0, "%s", e.msg);
    fclose(f);
    *len = n;
    return (uint8_t *)buf;
}

static int try_open(const uint8_t *b, size_t n, struct bp_pce *p, struct sp_err *e)
{
    int fd = memfd_create("pce", 0);
    cr_assert(fd >= 0);
    cr_assert(write(fd, b, n) == (ssize_t)n);
    int rc = bp_pce_open(p, fd, "t.pce", 2, e);
    close(fd);
    return rc;
}

static void expect(const uint8_t *b, size_t n, int want_rc, const char *want)
{
    struct bp_pce p;
    struct sp_err e = { "" };
    int rc = try_open(b, n, &p, &e);
    if (rc == 0)
        bp_pce_close(&p);
    cr_assert_eq(rc, want_rc, "rc %d \"%s\" (want \"%s\")", rc, e.msg, want);
    cr_assert(strstr(e.msg, want), "got \"%s\", want \"%s\"", e.msg, want);
    cr_assert(strncmp(e.msg, "t.pce: ", 7) == 0, "%s", e.msg);
}

static void fr_to_mpz(mpz_t out, const bls12381_fr_t *mont)
{
    bls12381_fr_t s;
    bls12381_fr_from_mont(&s, mont);
    mpz_import(out, 4, -1, 8, 0, 0, s.l);
}

Test(bellperson_pce, reads_back_and_synthesizes)
{
    size_t len;
    uint8_t *b = make_pce(&len);
    struct bp_pce p;
    struct sp_err e = { "" };
    cr_assert_eq(try_open(b, len, &p, &e), 0, "%s", e.msg);
    cr_assert_eq(p.num_inputs, 2);
    cr_assert_eq(p.num_aux, 3);
    cr_assert_eq(p.num_constraints, 5);
    cr_assert_eq(p.total_nnz, 12);
    /* a_aux {0, 2}, b_input {0}, b_aux {0, 1} (aux j = wire j + 2) */
    cr_assert_eq(p.a_aux.popcount, 2);
    cr_assert(bp_density_bit(&p.a_aux, 0) && !bp_density_bit(&p.a_aux, 1) &&
              bp_density_bit(&p.a_aux, 2));
    cr_assert(bp_density_bit(&p.b_input, 0) && !bp_density_bit(&p.b_input, 1));
    cr_assert(bp_density_bit(&p.b_aux, 0) && bp_density_bit(&p.b_aux, 1) &&
              !bp_density_bit(&p.b_aux, 2));
    unsigned logn;
    size_t n = bp_pce_domain_size(&p, &logn);
    cr_assert_eq(n, 8);
    cr_assert_eq(logn, 3);

    /* random witness (not satisfying: gpud's c = a∘b regardless) */
    bls12381_fr_t w[5], a[8], bb[8], c[8];
    uint64_t seed = 0x5eed;
    for (int i = 0; i < 5; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        bls12381_fr_from_u64(&w[i], i == 0 ? 1 : seed >> 1);
        if (i > 1) /* a full-size value */
            bls12381_fr_mul(&w[i], &w[i], &w[i - 1]);
    }
    bls12381_fr_t ws_std[5]; /* synthesis reads the witness in standard form */
    for (int i = 0; i < 5; i++)
        bls12381_fr_from_mont(&ws_std[i], &w[i]);
    bp_pce_synth_ab(&p, ws_std, a, bb, n, 2);
    /* c as gpud forms it (gpud/cpu/bellperson_prove.c, the device's
     * gpu_fr_mul): the Montgomery product of the slot's a and b */
    for (size_t i = 0; i < n; i++)
        bls12381_fr_mul(&c[i], &a[i], &bb[i]);

    /* a, b in the slot's form (shm/payload.h): standard form; and c, their
     * Montgomery product, a·b·R^-1 (the form payload.h documents for it) */
    mpz_t r, acc, t, ws[5], got, rinv;
    mpz_inits(r, acc, t, got, rinv, NULL);
    mpz_set_str(r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    mpz_ui_pow_ui(rinv, 2, 256);
    cr_assert(mpz_invert(rinv, rinv, r));
    for (int i = 0; i < 5; i++) {
        mpz_init(ws[i]);
        fr_to_mpz(ws[i], &w[i]);
    }
    const uint32_t *rps[2] = { a_rp, b_rp }, *cols[2] = { a_cols, b_cols };
    const uint64_t *vals[2] = { a_vals, b_vals };
    bls12381_fr_t *outs[2] = { a, bb };
    mpz_t ab[2];
    mpz_inits(ab[0], ab[1], NULL);
    for (int row = 0; row < 8; row++) {
        for (int mi = 0; mi < 2; mi++) {
            mpz_set_ui(acc, 0);
            if (row < 5) { /* rows 3, 4: the input rows, a = w_0, w_1 */
                for (uint32_t k = rps[mi][row]; k < rps[mi][row + 1]; k++) {
                    mpz_mul_ui(t, ws[cols[mi][k]], vals[mi][k]);
                    mpz_add(acc, acc, t);
                }
            }
            mpz_mod(acc, acc, r);
            mpz_set(ab[mi], acc);
            mpz_import(got, 4, -1, 8, 0, 0, outs[mi][row].l);
            cr_assert(mpz_cmp(got, acc) == 0, "row %d matrix %d", row, mi);
        }
        mpz_mul(t, ab[0], ab[1]);
        mpz_mul(t, t, rinv);
        mpz_mod(t, t, r);
        mpz_import(got, 4, -1, 8, 0, 0, c[row].l);
        cr_assert(mpz_cmp(got, t) == 0, "row %d c", row);
    }
    mpz_clears(r, acc, t, got, rinv, ab[0], ab[1], NULL);
    for (int i = 0; i < 5; i++)
        mpz_clear(ws[i]);
    bp_pce_close(&p);
    free(b);
}

/* Offsets in the file of make_pce. */
#define OFF_A_RP 40                    /* 6 row_ptrs */
#define OFF_A_COLS_COUNT (OFF_A_RP + 24)
#define OFF_A_COLS (OFF_A_COLS_COUNT + 8)
#define OFF_A_VALS (OFF_A_COLS + 24 + 8)

Test(bellperson_pce, malformed)
{
    size_t len;
    uint8_t *g = make_pce(&len);
    uint8_t *b = malloc(len + 8);
#define FRESH() memcpy(b, g, len)
    FRESH(), b[0] = 'X';
    expect(b, len, -SP_EFORMAT, "not a cuzk PCE file");
    FRESH(), b[4] = 3;
    expect(b, len, -SP_EUNSUPPORTED, "PCE version 3");
    FRESH(), b[20] = 13;
    expect(b, len, -SP_EFORMAT, "header total_nnz 13, matrices hold 12");
    FRESH(), b[OFF_A_RP + 8] = 0; /* row_ptrs[2] = 0 < row_ptrs[1] = 1 */
    expect(b, len, -SP_EFORMAT, "matrix A: row_ptrs[2] = 0 is below the row before");
    FRESH(), b[OFF_A_RP + 20] = 5; /* last row_ptr 5, nnz 6 */
    expect(b, len, -SP_EFORMAT, "matrix A: row_ptrs ends at 5, nnz is 6");
    FRESH(), b[OFF_A_COLS + 4] = 99;
    expect(b, len, -SP_ERANGE, "matrix A: cols[1] = 99 >= 5 wires");
    FRESH(), memset(b + OFF_A_VALS + 2 * 32, 0xff, 32);
    expect(b, len, -SP_ERANGE, "matrix A: vals[2] is not below r");
    FRESH(), b[OFF_A_COLS_COUNT + 7] = 1; /* cols count 2^56 + 6 */
    expect(b, len, -SP_EFORMAT, "matrix A cols: count 72057594037927942");
    /* the input rows: input 1's coefficient 1 changed */
    FRESH(), b[OFF_A_VALS + 5 * 32] ^= 1;
    expect(b, len, -SP_EFORMAT, "row 4 is not the input constraint of input 1");
    FRESH(), b[OFF_A_COLS + 4 * 4] = 1; /* row 3 names input 1 */
    expect(b, len, -SP_EFORMAT, "row 3 is not the input constraint of input 0");
    /* the a_aux bitmap: n_words at len - 96, its word at len - 88,
     * bit_len at len - 80, popcount at len - 72 */
    FRESH(), b[len - 88] ^= 2; /* aux 1 is not in A */
    expect(b, len, -SP_EFORMAT, "density a_aux: bit 1 is 1 but the matrix never uses it");
    FRESH(), b[len - 88] ^= 1;
    expect(b, len, -SP_EFORMAT, "density a_aux: bit 0 is 0 but the matrix uses it");
    FRESH(), b[len - 72] = 3;
    expect(b, len, -SP_EFORMAT, "density a_aux: popcount 3, bits set 2");
    FRESH(), b[len - 88] |= 0x80; /* past bit_len 3 */
    expect(b, len, -SP_EFORMAT, "density a_aux: bits set past bit_len 3");
    FRESH();
    expect(b, len - 4, -SP_EFORMAT, "truncated: density b_aux");
    expect(b, OFF_A_VALS + 40, -SP_EFORMAT, "matrix A vals: count 6 needs 192 bytes");
    expect(b, 20, -SP_EFORMAT, "truncated: 20 bytes");
    FRESH(), b[len] = 0;
    expect(b, len + 1, -SP_EFORMAT, "1 trailing bytes after density b_aux");
#undef FRESH
    free(b);
    free(g);
}
