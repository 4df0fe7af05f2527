/*
 * test_bellperson_ntt.c - bellperson's domain and quotient
 * (common/bellperson_ntt.h): the 2^32-th root against the published ff
 * constant; the row map u (ω_snarkjs^u = ω_bellperson) against direct
 * powers; h from bp_quotient checked at a random point x against the
 * naive Lagrange interpolation of a, b, c on bellperson's domain:
 * A(x)·B(x) − C(x) = h(x)·(x^n − 1).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_ntt.h"

static uint64_t nt_state = 0xabcdef0123456789ULL;

static void rand_fr(bls12381_fr_t *x)
{
    for (int i = 0; i < 4; i++) {
        nt_state ^= nt_state << 13, nt_state ^= nt_state >> 7, nt_state ^= nt_state << 17;
        x->l[i] = nt_state;
    }
    x->l[3] &= 0x0fffffffffffffffULL; /* < r */
}

Test(bellperson_ntt, root_is_the_published_one)
{
    /* 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b */
    bls12381_fr_t w, s;
    bp_root_of_unity(&w, 32);
    bls12381_fr_from_mont(&s, &w);
    cr_assert_eq(s.l[3], 0x16a2a19edfe81f20ULL);
    cr_assert_eq(s.l[2], 0xd09b681922c813b4ULL);
    cr_assert_eq(s.l[1], 0xb63683508c2280b9ULL);
    cr_assert_eq(s.l[0], 0x3829971f439f0d2bULL);
}

Test(bellperson_ntt, row_map)
{
    for (unsigned k = 1; k <= 20; k += 3) {
        uint64_t u = bp_row_map_factor(k);
        cr_assert(u & 1, "u even for 2^%u", k);
        bls12381_fr_t ws, wb, x;
        bls12381_ntt_root_of_unity(&ws, k);
        bp_root_of_unity(&wb, k);
        uint64_t e[1] = { u };
        bls12381_fr_pow(&x, &ws, e, 1);
        cr_assert(bls12381_fr_eq(&x, &wb), "2^%u", k);
    }
}

/* Σ v_i L_i(x) on the domain of ω (size n), naively. */
static void interp(bls12381_fr_t *ret, const bls12381_fr_t *v, size_t n, const bls12381_fr_t *w,
                   const bls12381_fr_t *x)
{
    bls12381_fr_t xn, one, nf, f, wi, acc, t, den;
    uint64_t e[1] = { n };
    bls12381_fr_pow(&xn, x, e, 1);
    bls12381_fr_set_one(&one);
    bls12381_fr_sub(&xn, &xn, &one);
    bls12381_fr_from_u64(&nf, n);
    bls12381_fr_inv(&nf, &nf);
    bls12381_fr_mul(&f, &xn, &nf); /* (x^n − 1)/n */
    bls12381_fr_set_one(&wi);
    bls12381_fr_set_zero(&acc);
    for (size_t i = 0; i < n; i++) {
        bls12381_fr_sub(&den, x, &wi);
        bls12381_fr_inv(&den, &den);
        bls12381_fr_mul(&t, &wi, &den);
        bls12381_fr_mul(&t, &t, &f);
        bls12381_fr_mul(&t, &t, &v[i]);
        bls12381_fr_add(&acc, &acc, &t);
        bls12381_fr_mul(&wi, &wi, w);
    }
    *ret = acc;
}

Test(bellperson_ntt, quotient_at_a_random_point)
{
    unsigned k = 6;
    size_t n = (size_t)1 << k;
    bls12381_fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
                  *c = malloc(n * sizeof *c), *a0 = malloc(n * sizeof *a),
                  *b0 = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        rand_fr(&a[i]);
        rand_fr(&b[i]);
        bls12381_fr_mul(&c[i], &a[i], &b[i]);
    }
    memcpy(a0, a, n * sizeof *a);
    memcpy(b0, b, n * sizeof *b);
    struct bls12381_ntt_domain d;
    cr_assert_eq(bp_domain_init(&d, k, 2), 0);
    bp_quotient(a, b, c, &d, 2);
    cr_assert(bls12381_fr_is_zero(&a[n - 1]), "deg h <= n - 2 for a satisfied witness");

    bls12381_fr_t w, x, ax, bx, cx, hx, lhs, rhs, xn, one, xi, t;
    bp_root_of_unity(&w, k);
    rand_fr(&x);
    interp(&ax, a0, n, &w, &x);
    interp(&bx, b0, n, &w, &x);
    for (size_t i = 0; i < n; i++) /* c = a∘b again: c was overwritten */
        bls12381_fr_mul(&c[i], &a0[i], &b0[i]);
    interp(&cx, c, n, &w, &x);
    bls12381_fr_mul(&lhs, &ax, &bx);
    bls12381_fr_sub(&lhs, &lhs, &cx);
    bls12381_fr_set_zero(&hx);
    bls12381_fr_set_one(&xi);
    for (size_t i = 0; i + 1 < n; i++) {
        bls12381_fr_mul(&t, &a[i], &xi);
        bls12381_fr_add(&hx, &hx, &t);
        bls12381_fr_mul(&xi, &xi, &x);
    }
    uint64_t e[1] = { n };
    bls12381_fr_pow(&xn, &x, e, 1);
    bls12381_fr_set_one(&one);
    bls12381_fr_sub(&xn, &xn, &one);
    bls12381_fr_mul(&rhs, &hx, &xn);
    cr_assert(bls12381_fr_eq(&lhs, &rhs));
    bls12381_ntt_domain_free(&d);
    free(a), free(b), free(c), free(a0), free(b0);
}

/* The GPU's route to h (gpud/cuda/cuda_bellperson.h) taken on the CPU's
 * snarkjs-root NTT: rows moved by the row map, coset LDEs on snarkjs's
 * shift, a·b − c, inverse NTT, ×scale·shift_inv^i (bp_device_coset_constants)
 * must give bp_quotient's coefficients, made with bellperson's own roots and
 * coset, exactly. */
Test(bellperson_ntt, device_route_equals_bellperson_steps)
{
    for (unsigned log_n = 1; log_n <= 9; log_n += 4) {
        size_t n = (size_t)1 << log_n;
        bls12381_fr_t *a = calloc(n, 32), *b = calloc(n, 32), *c = calloc(n, 32);
        bls12381_fr_t *x = calloc(n, 32), *y = calloc(n, 32), *z = calloc(n, 32);
        struct bls12381_ntt_domain bd, sd;
        cr_assert(a && b && c && x && y && z);
        cr_assert_eq(bp_domain_init(&bd, log_n, 1), 0);
        cr_assert_eq(bls12381_ntt_domain_init(&sd, log_n, 1), 0);
        for (size_t i = 0; i < n; i++) {
            rand_fr(&a[i]);
            rand_fr(&b[i]);
            bls12381_fr_mul(&c[i], &a[i], &b[i]);
        }
        uint64_t u = bp_row_map_factor(log_n);
        for (size_t i = 0; i < n; i++) {
            size_t p = (size_t)((u * i) & (n - 1));
            x[p] = a[i], y[p] = b[i], z[p] = c[i];
        }
        bls12381_ntt_coset_lde(x, &sd, 1);
        bls12381_ntt_coset_lde(y, &sd, 1);
        bls12381_ntt_coset_lde(z, &sd, 1);
        for (size_t i = 0; i < n; i++) {
            bls12381_fr_mul(&x[i], &x[i], &y[i]);
            bls12381_fr_sub(&x[i], &x[i], &z[i]);
        }
        bls12381_ntt_inverse(x, &sd, 1);
        bls12381_fr_t scale, sinv, pw;
        bp_device_coset_constants(log_n, &scale, &sinv);
        pw = scale;
        for (size_t i = 0; i < n; i++) {
            bls12381_fr_mul(&x[i], &x[i], &pw);
            bls12381_fr_mul(&pw, &pw, &sinv);
        }
        bp_quotient(a, b, c, &bd, 1);
        for (size_t i = 0; i < n; i++)
            cr_assert(memcmp(&x[i], &a[i], 32) == 0, "2^%u: coefficient %zu differs", log_n, i);
        bls12381_fr_t zero;
        bls12381_fr_set_zero(&zero);
        cr_assert(memcmp(&a[n - 1], &zero, 32) == 0, "2^%u: h[n-1] != 0", log_n);
        bls12381_ntt_domain_free(&bd);
        bls12381_ntt_domain_free(&sd);
        free(a), free(b), free(c), free(x), free(y), free(z);
    }
}
