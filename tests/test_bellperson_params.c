/*
 * test_bellperson_params.c - the bellperson .params/.vk reader
 * (common/bellperson_params.h) on files built here from random points k*G
 * with the zcash encoders: a good file opens, every point decodes back to
 * the point written, and each malformed case is refused with a message
 * naming the section (and the point's index): truncated inside the vk,
 * inside a count and inside a point section, a count that overruns the
 * file, trailing bytes, h not 2^k - 1, b_g1/b_g2 lengths, a compressed or
 * sign flag, a coordinate >= q, a point off the curve, outside the
 * subgroup (accepted when the subgroup test is off), at infinity; the first
 * bad point wins over a later one on several threads.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bellperson_params.h"
#include "bls12381_pairing.h"
#include "bls12381_zcash.h"

static uint64_t bt_state = 0xfeedfacecafebeefULL;

static uint64_t bt_rand(void)
{
    uint64_t x = bt_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    bt_state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

struct buf {
    uint8_t *b;
    size_t n, cap;
};

static void put(struct buf *f, const void *p, size_t n)
{
    if (f->n + n > f->cap) {
        f->cap = (f->n + n) * 2;
        f->b = realloc(f->b, f->cap);
    }
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void put_u32(struct buf *f, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    put(f, b, 4);
}

static void g1_rand(bls12381_g1_affine_t *p)
{
    uint64_t k[2] = { bt_rand(), bt_rand() | 1 };
    bls12381_g1_jac_t j;
    bls12381_g1_mul_scalar_affine(&j, &bls12381_g1_generator, k, 2);
    bls12381_g1_to_affine(p, &j);
}

static void g2_rand(bls12381_g2_affine_t *p)
{
    uint64_t k[2] = { bt_rand(), bt_rand() | 1 };
    bls12381_g2_jac_t j;
    bls12381_g2_mul_scalar_affine(&j, &bls12381_g2_generator, k, 2);
    bls12381_g2_to_affine(p, &j);
}

/* Sizes of the test file: ic 2, h 3 (m = 4), l 3, a 4, b 3. */
enum { N_IC = 2, N_H = 3, N_L = 3, N_A = 4, N_B = 3 };

/* Points written, in file order, for the decode check. */
static bls12381_g1_affine_t g1s[64];
static bls12381_g2_affine_t g2s[16];
static size_t ng1, ng2;

static void put_g1(struct buf *f)
{
    uint8_t b[ZCASH_G1_BYTES];
    g1_rand(&g1s[ng1]);
    bls12381_g1_to_zcash(b, &g1s[ng1++]);
    put(f, b, sizeof b);
}

static void put_g2(struct buf *f)
{
    uint8_t b[ZCASH_G2_BYTES];
    g2_rand(&g2s[ng2]);
    bls12381_g2_to_zcash(b, &g2s[ng2++]);
    put(f, b, sizeof b);
}

/* A good file; vk_only stops after ic. h_count/b2_count override. */
static struct buf build(int vk_only, uint32_t h_count, uint32_t b2_count)
{
    struct buf f = { 0 };
    ng1 = ng2 = 0;
    put_g1(&f), put_g1(&f), put_g2(&f), put_g2(&f), put_g1(&f), put_g2(&f);
    put_u32(&f, N_IC);
    for (int i = 0; i < N_IC; i++)
        put_g1(&f);
    if (vk_only)
        return f;
    put_u32(&f, h_count);
    for (uint32_t i = 0; i < h_count; i++)
        put_g1(&f);
    put_u32(&f, N_L);
    for (int i = 0; i < N_L; i++)
        put_g1(&f);
    put_u32(&f, N_A);
    for (int i = 0; i < N_A; i++)
        put_g1(&f);
    put_u32(&f, N_B);
    for (int i = 0; i < N_B; i++)
        put_g1(&f);
    put_u32(&f, b2_count);
    for (uint32_t i = 0; i < b2_count; i++)
        put_g2(&f);
    return f;
}

/* Offset of point i of a section in a good file (G1 96, G2 192 bytes). */
static size_t vk_bytes(void)
{
    return 3 * 96 + 3 * 192 + 4 + N_IC * 96;
}
static size_t off_h(size_t i) { return vk_bytes() + 4 + i * 96; }
static size_t off_l(size_t i) { return off_h(N_H) + 4 + i * 96; }
static size_t off_a(size_t i) { return off_l(N_L) + 4 + i * 96; }
static size_t off_b1(size_t i) { return off_a(N_A) + 4 + i * 96; }
static size_t off_b2(size_t i) { return off_b1(N_B) + 4 + i * 192; }

static int memfd_of(const uint8_t *p, size_t n)
{
    int fd = memfd_create("bp", 0);
    cr_assert(fd >= 0);
    cr_assert(write(fd, p, n) == (ssize_t)n);
    return fd;
}

/* Opens (and with check, checks with subgroups) and returns the rc;
 * the message in e. */
static int try_open(const uint8_t *b, size_t n, int vk, int check, int subgroup,
                    unsigned threads, struct sp_err *e)
{
    int fd = memfd_of(b, n);
    struct bp_params p;
    int rc = bp_params_open(&p, fd, "t.params", vk, e);
    if (rc == 0 && check)
        rc = bp_params_check(&p, subgroup, threads, NULL, e);
    if (rc == 0 || p.map)
        bp_params_close(&p);
    close(fd);
    return rc;
}

static void expect(int rc, int want_rc, const struct sp_err *e, const char *want)
{
    cr_assert_eq(rc, want_rc, "rc %d, message \"%s\"", rc, e->msg);
    cr_assert(strstr(e->msg, want), "got \"%s\", want \"%s\"", e->msg, want);
    cr_assert(strncmp(e->msg, "t.params: ", 10) == 0, "%s", e->msg);
}

Test(bellperson_params, good_file_decodes_to_the_points_written)
{
    struct buf f = build(0, N_H, N_B);
    int fd = memfd_of(f.b, f.n);
    struct bp_params p;
    struct sp_err e = { "" };
    cr_assert_eq(bp_params_open(&p, fd, "t.params", 0, &e), 0, "%s", e.msg);
    cr_assert_eq(p.count[BP_IC], N_IC);
    cr_assert_eq(p.count[BP_H], N_H);
    cr_assert_eq(p.count[BP_A], N_A);
    cr_assert_eq(p.count[BP_B_G2], N_B);
    uint64_t npts = 0;
    cr_assert_eq(bp_params_check(&p, 1, 2, &npts, &e), 0, "%s", e.msg);
    cr_assert_eq(npts, 6 + N_IC + N_H + N_L + N_A + 2 * N_B);
    /* file order of G1 points: alpha, beta1, delta1, ic, h, l, a, b_g1 */
    bls12381_g1_affine_t got[8];
    bls12381_g2_affine_t got2[4];
    cr_assert_eq(bp_params_decode(&p, BP_A, 1, 3, got, 1, 1, &e), 0, "%s", e.msg);
    size_t a0 = 3 + N_IC + N_H + N_L;
    for (int i = 0; i < 3; i++)
        cr_assert(bls12381_g1_affine_eq(&got[i], &g1s[a0 + 1 + i]));
    cr_assert_eq(bp_params_decode(&p, BP_VK_DELTA_G1, 0, 1, got, 1, 1, &e), 0);
    cr_assert(bls12381_g1_affine_eq(&got[0], &g1s[2]));
    cr_assert_eq(bp_params_decode(&p, BP_VK_DELTA_G2, 0, 1, got2, 1, 1, &e), 0);
    cr_assert(bls12381_g2_affine_eq(&got2[0], &g2s[2]));
    cr_assert_eq(bp_params_decode(&p, BP_B_G2, 0, N_B, got2, 1, 0, &e), 0);
    for (int i = 0; i < N_B; i++)
        cr_assert(bls12381_g2_affine_eq(&got2[i], &g2s[3 + i]));
    /* a range past the end is refused */
    cr_assert_lt(bp_params_decode(&p, BP_A, 2, 3, got, 1, 1, &e), 0);
    bp_params_close(&p);
    close(fd);
    free(f.b);
}

Test(bellperson_params, vk_file)
{
    struct buf v = build(1, 0, 0);
    struct sp_err e = { "" };
    cr_assert_eq(try_open(v.b, v.n, 1, 1, 1, 1, &e), 0, "%s", e.msg);
    /* a .vk read as .params: h's count is missing */
    expect(try_open(v.b, v.n, 0, 0, 0, 1, &e), -SP_EFORMAT, &e,
           "truncated: section h: the u32 count");
    /* a .params read as .vk: trailing bytes after ic */
    struct buf f = build(0, N_H, N_B);
    expect(try_open(f.b, f.n, 1, 0, 0, 1, &e), -SP_EFORMAT, &e, "trailing bytes after section ic");
    free(v.b);
    free(f.b);
}

Test(bellperson_params, layout_errors)
{
    struct sp_err e = { "" };
    struct buf f = build(0, N_H, N_B);
    /* truncated inside the vk */
    expect(try_open(f.b, 200, 0, 0, 0, 1, &e), -SP_EFORMAT, &e, "truncated: section vk.beta_g2");
    /* truncated inside a count */
    expect(try_open(f.b, off_l(0) - 2, 0, 0, 0, 1, &e), -SP_EFORMAT, &e,
           "truncated: section l: the u32 count");
    /* truncated inside the points of l */
    expect(try_open(f.b, off_l(1) + 10, 0, 0, 0, 1, &e), -SP_EFORMAT, &e,
           "section l: count 3 needs 288 bytes");
    /* a count that overruns the file */
    uint8_t save[4];
    memcpy(save, f.b + off_a(0) - 4, 4);
    f.b[off_a(0) - 4] = 0x10;
    expect(try_open(f.b, f.n, 0, 0, 0, 1, &e), -SP_EFORMAT, &e, "section a: count 268435460");
    memcpy(f.b + off_a(0) - 4, save, 4);
    /* trailing bytes */
    put(&f, "x", 1);
    expect(try_open(f.b, f.n, 0, 0, 0, 1, &e), -SP_EFORMAT, &e,
           "1 trailing bytes after section b_g2");
    free(f.b);
    /* h not 2^k - 1 */
    f = build(0, 4, N_B);
    expect(try_open(f.b, f.n, 0, 0, 0, 1, &e), -SP_EFORMAT, &e, "section h: count 4 is not 2^k - 1");
    free(f.b);
    /* b_g1 and b_g2 of different lengths */
    f = build(0, N_H, N_B + 1);
    expect(try_open(f.b, f.n, 0, 0, 0, 1, &e), -SP_EFORMAT, &e, "sections b_g1 (3 points) and b_g2 (4)");
    free(f.b);
    /* empty */
    expect(try_open((const uint8_t *)"", 0, 0, 0, 0, 1, &e), -SP_EFORMAT, &e, "empty file");
}

/* A point on G1's curve outside the subgroup, uncompressed. */
static void non_subgroup_g1(uint8_t out[96])
{
    for (uint64_t x = 1;; x++) {
        uint8_t c[48] = { 0x80 };
        c[47] = (uint8_t)x;
        bls12381_g1_affine_t p;
        if (bls12381_g1_from_zcash_compressed(&p, c, 0) == ZCASH_OK &&
            !bls12381_g1_in_subgroup_slow(&p)) {
            bls12381_g1_to_zcash(out, &p);
            return;
        }
    }
}

static void non_subgroup_g2(uint8_t out[192])
{
    for (uint64_t x = 1;; x++) {
        uint8_t c[96] = { 0x80 };
        c[95] = (uint8_t)x;
        bls12381_g2_affine_t p;
        if (bls12381_g2_from_zcash_compressed(&p, c, 0) == ZCASH_OK &&
            !bls12381_g2_in_subgroup_slow(&p)) {
            bls12381_g2_to_zcash(out, &p);
            return;
        }
    }
}

Test(bellperson_params, point_errors)
{
    struct sp_err e = { "" };
    struct buf f = build(0, N_H, N_B);
    uint8_t *g = malloc(f.n);
    memcpy(g, f.b, f.n);
#define RESET() memcpy(f.b, g, f.n)
    /* compressed flag in a (index 1) */
    f.b[off_a(1)] |= 0x80;
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section a point 1 ");
    cr_assert(strstr(e.msg, "compression flag"), "%s", e.msg);
    RESET();
    /* sign flag in vk.gamma_g2 */
    f.b[2 * 96 + 192] |= 0x20;
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section vk.gamma_g2 point 0");
    cr_assert(strstr(e.msg, "sign flag"), "%s", e.msg);
    RESET();
    /* off the curve in h (index 2) */
    f.b[off_h(2) + 95] ^= 1;
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section h point 2 ");
    cr_assert(strstr(e.msg, "not on the curve"), "%s", e.msg);
    RESET();
    /* a coordinate >= q in ic (index 1): y = 0xff.. */
    memset(f.b + vk_bytes() - 48, 0xff, 48);
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section ic point 1 ");
    cr_assert(strstr(e.msg, "not below the field prime"), "%s", e.msg);
    RESET();
    /* infinity in l (index 0) */
    memset(f.b + off_l(0), 0, 96);
    f.b[off_l(0)] = 0x40;
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section l point 0 ");
    cr_assert(strstr(e.msg, "infinity"), "%s", e.msg);
    RESET();
    /* outside the subgroup: b_g1 point 2 and b_g2 point 1 */
    non_subgroup_g1(f.b + off_b1(2));
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section b_g1 point 2 ");
    cr_assert(strstr(e.msg, "subgroup"), "%s", e.msg);
    cr_assert_eq(try_open(f.b, f.n, 0, 1, 0, 2, &e), 0, "%s", e.msg);
    RESET();
    non_subgroup_g2(f.b + off_b2(1));
    expect(try_open(f.b, f.n, 0, 1, 1, 2, &e), -SP_ERANGE, &e, "section b_g2 point 1 ");
    cr_assert(strstr(e.msg, "subgroup"), "%s", e.msg);
    cr_assert_eq(try_open(f.b, f.n, 0, 1, 0, 2, &e), 0, "%s", e.msg);
    RESET();
#undef RESET
    free(g);
    free(f.b);
}

Test(bellperson_params, first_bad_point_wins)
{
    /* a long h (1023 points), two bad ones; the earlier is named on 1 and
     * on 4 threads */
    struct sp_err e = { "" };
    bt_state = 77;
    struct buf f = { 0 };
    uint8_t p1[96], p2[192];
    bls12381_g1_to_zcash(p1, &bls12381_g1_generator);
    bls12381_g2_to_zcash(p2, &bls12381_g2_generator);
    for (int i = 0; i < 3; i++)
        put(&f, i == 2 ? p2 : p1, i == 2 ? 192 : 96);
    put(&f, p2, 192), put(&f, p1, 96), put(&f, p2, 192);
    put_u32(&f, 1), put(&f, p1, 96);
    size_t h0 = f.n + 4;
    put_u32(&f, 1023);
    for (int i = 0; i < 1023; i++)
        put(&f, p1, 96);
    put_u32(&f, 0);                  /* l */
    put_u32(&f, 1), put(&f, p1, 96); /* a: one per input */
    put_u32(&f, 0), put_u32(&f, 0);  /* b_g1, b_g2 */
    f.b[h0 + 900 * 96 + 95] ^= 1;
    f.b[h0 + 700 * 96 + 95] ^= 1;
    for (unsigned t = 1; t <= 4; t += 3) {
        expect(try_open(f.b, f.n, 0, 1, 1, t, &e), -SP_ERANGE, &e, "section h point 700 ");
    }
    free(f.b);
}
