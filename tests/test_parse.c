/*
 * test_parse.c — .zkey / .wtns readers: valid keys in every shape the
 * fixtures cover, and every bad-input case of the walking skeleton, each
 * expecting a specific error code and a message naming the file and reason.
 * Corrupt files are made by editing a fixture's bytes in memory (memfd).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wtns.h"
#include "zkey.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(parse_wtns, .timeout = 120);
TestSuite(parse_zkey, .timeout = 120);

#define FIX "tests/fixtures/"

struct blob {
    uint8_t *p;
    size_t n;
};

static struct blob slurp(const char *path)
{
    struct blob b = { 0, 0 };
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open fixture %s", path);
    fseek(f, 0, SEEK_END);
    b.n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.p = malloc(b.n + 1);
    cr_assert(fread(b.p, 1, b.n, f) == b.n);
    fclose(f);
    return b;
}

static int to_memfd(const uint8_t *p, size_t n)
{
    int fd = memfd_create("fixture", MFD_CLOEXEC);
    cr_assert(fd >= 0);
    cr_assert(write(fd, p, n) == (ssize_t)n);
    return fd;
}

/* Independent walk of the container: offset of section id's body. */
static size_t section_off(const struct blob *b, uint32_t id, uint64_t *size)
{
    uint32_t ns;
    memcpy(&ns, b->p + 8, 4);
    size_t off = 12;
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t sid;
        uint64_t sz;
        memcpy(&sid, b->p + off, 4);
        memcpy(&sz, b->p + off + 4, 8);
        if (sid == id) {
            if (size)
                *size = sz;
            return off + 12;
        }
        off += 12 + sz;
    }
    cr_assert_fail("section %u not found", id);
    return 0;
}

static int open_zkey_blob(const struct blob *b, struct zkey *zk, struct sp_err *e)
{
    int fd = to_memfd(b->p, b->n);
    int rc = zkey_open(zk, fd, "bad.zkey", e);
    close(fd);
    return rc;
}

#define expect_fail(rc, code, e, needle)                                                   \
    do {                                                                                   \
        cr_assert_eq((rc), -(code), "rc %d, expected %d (%s)", (rc), -(code), (e).msg);   \
        cr_assert(strstr((e).msg, (needle)), "message \"%s\" lacks \"%s\"", (e).msg, (needle)); \
        cr_assert(strstr((e).msg, "bad."), "message \"%s\" does not name the file", (e).msg); \
    } while (0)

static void check_fixture(const char *path, enum curve_id curve, int contributions)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(path);
    int fd = to_memfd(b.p, b.n);
    cr_assert_eq(zkey_open(&zk, fd, path, &e), 0, "%s", e.msg);
    cr_assert_eq(zk.curve, curve);
    /* snarkjs writes section 10 even with no contribution (hash + count 0) */
    cr_assert_eq(zk.has_contributions, contributions, "%s: contributions section", path);
    /* header fields read independently */
    size_t h = section_off(&b, 2, NULL);
    uint32_t n8q, nv, np, dom;
    memcpy(&n8q, b.p + h, 4);
    memcpy(&nv, b.p + h + 4 + n8q + 4 + 32, 4);
    memcpy(&np, b.p + h + 4 + n8q + 4 + 32 + 4, 4);
    memcpy(&dom, b.p + h + 4 + n8q + 4 + 32 + 8, 4);
    cr_assert_eq(zk.n_vars, nv);
    cr_assert_eq(zk.n_public, np);
    cr_assert_eq(zk.domain_size, dom);
    cr_assert_eq(zk.a, zk.map + section_off(&b, 5, NULL));
    cr_assert_eq(zkey_check_coefs(&zk, &e), 0, "%s", e.msg);
    zkey_close(&zk);
    close(fd);
    free(b.p);
}

Test(parse_zkey, fixtures_open)
{
    check_fixture(FIX "bn128/chain.zkey", CURVE_BN254, 1);
    check_fixture(FIX "bn128/nopub.zkey", CURVE_BN254, 1);
    check_fixture(FIX "bn128/allpub.zkey", CURVE_BN254, 1);
    check_fixture(FIX "bls12381/chain.zkey", CURVE_BLS12381, 1);
    check_fixture(FIX "bls12381/nopub.zkey", CURVE_BLS12381, 1);
    check_fixture(FIX "bls12381/allpub.zkey", CURVE_BLS12381, 1);
}

Test(parse_zkey, nopub_and_allpub_shapes)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    cr_assert_eq(open_zkey_blob(&b, &zk, &e), 0, "%s", e.msg);
    cr_assert_eq(zk.n_public, 0);
    zkey_close(&zk);
    free(b.p);
    b = slurp(FIX "bn128/allpub.zkey");
    cr_assert_eq(open_zkey_blob(&b, &zk, &e), 0, "%s", e.msg);
    cr_assert_eq(zk.n_vars, zk.n_public + 1, "allpub: every wire public, empty C");
    uint64_t csize = 1;
    section_off(&b, 8, &csize);
    cr_assert_eq(csize, 0);
    zkey_close(&zk);
    free(b.p);
}

/* Rewrites the sections in reverse order: the reader must index by id. */
Test(parse_zkey, sections_in_any_order)
{
    struct blob b = slurp(FIX "bn128/chain.zkey");
    uint32_t ns;
    memcpy(&ns, b.p + 8, 4);
    size_t offs[32], lens[32], off = 12;
    for (uint32_t i = 0; i < ns; i++) {
        uint64_t sz;
        memcpy(&sz, b.p + off + 4, 8);
        offs[i] = off;
        lens[i] = 12 + sz;
        off += 12 + sz;
    }
    uint8_t *r = malloc(b.n);
    memcpy(r, b.p, 12);
    size_t o = 12;
    for (uint32_t i = ns; i-- > 0;) {
        memcpy(r + o, b.p + offs[i], lens[i]);
        o += lens[i];
    }
    struct zkey z1, z2;
    struct sp_err e = { "" };
    struct blob rb = { r, b.n };
    cr_assert_eq(open_zkey_blob(&b, &z1, &e), 0, "%s", e.msg);
    cr_assert_eq(open_zkey_blob(&rb, &z2, &e), 0, "%s", e.msg);
    cr_assert_eq(z1.n_coefs, z2.n_coefs);
    cr_assert_eq(memcmp(z1.h, z2.h, (size_t)z1.domain_size * z1.ci->g1_bytes), 0);
    cr_assert_eq(memcmp(z1.b2, z2.b2, (size_t)z1.n_vars * z1.ci->g2_bytes), 0);
    cr_assert_eq(memcmp(z1.delta2, z2.delta2, z1.ci->g2_bytes), 0);
    cr_assert_eq(memcmp(z1.coefs, z2.coefs, z1.n_coefs * sizeof(struct zkey_coef)), 0);
    zkey_close(&z1);
    zkey_close(&z2);
    free(b.p);
    free(r);
}

/* b with a copy of section id appended at the end (nSections + 1). */
static struct blob with_section_repeated(const struct blob *b, uint32_t id)
{
    uint64_t size;
    size_t body = section_off(b, id, &size);
    struct blob r = { malloc(b->n + 12 + size), b->n + 12 + size };
    memcpy(r.p, b->p, b->n);
    memcpy(r.p + b->n, b->p + body - 12, 12 + size);
    uint32_t ns;
    memcpy(&ns, r.p + 8, 4);
    ns++;
    memcpy(r.p + 8, &ns, 4);
    return r;
}

/* snarkjs proves a key whose contributions section (10, never read by a
 * prover) repeats; a repeated section that the prover reads is refused. */
Test(parse_zkey, repeated_sections)
{
    struct blob b = slurp(FIX "bn128/chain.zkey");
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob r10 = with_section_repeated(&b, 10);
    cr_assert_eq(open_zkey_blob(&r10, &zk, &e), 0, "%s", e.msg);
    cr_assert_eq(zk.n_vars, 2981);
    zkey_close(&zk);
    static const struct { uint32_t id; const char *msg; } read[] = {
        { 1, "section 1 (header) appears twice" },
        { 2, "section 2 (Groth16 header) appears twice" },
        { 3, "section 3 (IC) appears twice" },
        { 4, "section 4 (coefficients) appears twice" },
        { 7, "section 7 (B2) appears twice" },
        { 9, "section 9 (H) appears twice" },
    };
    for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++) {
        struct blob r = with_section_repeated(&b, read[i].id);
        int rc = open_zkey_blob(&r, &zk, &e);
        expect_fail(rc, SP_EFORMAT, e, read[i].msg);
        free(r.p);
    }
    free(r10.p);
    free(b.p);

    struct blob w = slurp(FIX "bn128/chain.wtns");
    struct blob rw = with_section_repeated(&w, 2);
    struct wtns wt;
    int fd = to_memfd(rw.p, rw.n);
    int rc = wtns_open(&wt, fd, "bad.wtns", &e);
    close(fd);
    expect_fail(rc, SP_EFORMAT, e, "section 2 (witness values) appears twice");
    free(rw.p);
    free(w.p);
}

Test(parse_zkey, wrong_magic)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    memcpy(b.p, "wtns", 4);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EFORMAT, e, "wrong magic");
    free(b.p);
}

Test(parse_zkey, truncated)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    size_t cuts[] = { 0, 7, 12, 30, b.n / 2, b.n - 1 };
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        struct blob t = { b.p, cuts[i] };
        expect_fail(open_zkey_blob(&t, &zk, &e), SP_EFORMAT, e, "truncated");
    }
    free(b.p);
}

Test(parse_zkey, plonk_key_unsupported)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/plonk.zkey");
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EUNSUPPORTED, e, "PLONK");
    free(b.p);
}

Test(parse_zkey, unknown_curve_prime)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    size_t h = section_off(&b, 2, NULL);
    b.p[h + 4] ^= 0x01; /* low byte of q */
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EUNSUPPORTED, e, "unknown curve");
    free(b.p);
}

Test(parse_zkey, section_size_disagrees_with_header)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    size_t h = section_off(&b, 2, NULL);
    uint32_t nv;
    memcpy(&nv, b.p + h + 4 + 32 + 4 + 32, 4);
    nv += 1;
    memcpy(b.p + h + 4 + 32 + 4 + 32, &nv, 4);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EFORMAT, e, "header implies");
    free(b.p);
}

Test(parse_zkey, absurd_sizes)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    size_t h = section_off(&b, 2, NULL), dom_off = h + 4 + 32 + 4 + 32 + 8;
    uint32_t v = 1000; /* not a power of two */
    memcpy(b.p + dom_off, &v, 4);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_ERANGE, e, "power of two");
    v = 0x80000000u; /* 2^31: beyond 2^28 */
    memcpy(b.p + dom_off, &v, 4);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_ERANGE, e, "2^28");
    free(b.p);
    /* a section claiming more bytes than the file has */
    b = slurp(FIX "bn128/nopub.zkey");
    uint64_t huge = 1ull << 60;
    memcpy(b.p + 12 + 4, &huge, 8);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EFORMAT, e, "truncated");
    free(b.p);
}

Test(parse_zkey, ncoefs_mismatch_and_bad_entries)
{
    struct zkey zk;
    struct sp_err e = { "" };
    struct blob b = slurp(FIX "bn128/nopub.zkey");
    size_t c = section_off(&b, 4, NULL);
    uint32_t n;
    memcpy(&n, b.p + c, 4);
    n += 1;
    memcpy(b.p + c, &n, 4);
    expect_fail(open_zkey_blob(&b, &zk, &e), SP_EFORMAT, e, "nCoefs");
    n -= 1;
    memcpy(b.p + c, &n, 4);

    /* entry 0: signal beyond nVars, then constraint beyond domainSize, then value r */
    struct { size_t at; uint32_t v; const char *needle; } bad[] = {
        { 4 + 8, 0xfffffff0u, "signal" },
        { 4 + 4, 0xfffffff0u, "constraint" },
        { 4 + 0, 7u, "matrix" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint32_t saved;
        memcpy(&saved, b.p + c + bad[i].at, 4);
        memcpy(b.p + c + bad[i].at, &bad[i].v, 4);
        cr_assert_eq(open_zkey_blob(&b, &zk, &e), 0, "%s", e.msg);
        int rc = zkey_check_coefs(&zk, &e);
        expect_fail(rc, SP_EFORMAT, e, bad[i].needle);
        zkey_close(&zk);
        memcpy(b.p + c + bad[i].at, &saved, 4);
    }
    memcpy(b.p + c + 4 + 12, curve_get(CURVE_BN254)->r, 32);
    cr_assert_eq(open_zkey_blob(&b, &zk, &e), 0, "%s", e.msg);
    expect_fail(zkey_check_coefs(&zk, &e), SP_ERANGE, e, "below r");
    zkey_close(&zk);
    free(b.p);
}

static int open_wtns_blob(const struct blob *b, struct wtns *w, int *fd, struct sp_err *e)
{
    *fd = to_memfd(b->p, b->n);
    return wtns_open(w, *fd, "bad.wtns", e);
}

Test(parse_wtns, fixtures_and_values)
{
    const char *paths[] = { FIX "bn128/chain.wtns", FIX "bls12381/chain.wtns" };
    for (int i = 0; i < 2; i++) {
        struct blob b = slurp(paths[i]);
        struct wtns w;
        struct sp_err e = { "" };
        int fd;
        cr_assert_eq(open_wtns_blob(&b, &w, &fd, &e), 0, "%s", e.msg);
        cr_assert_eq(w.curve, i == 0 ? CURVE_BN254 : CURVE_BLS12381);
        uint8_t *v = malloc((size_t)w.n_witness * 32);
        cr_assert_eq(wtns_read(&w, fd, v, 0, w.n_witness, &e), 0, "%s", e.msg);
        /* wire 0 is 1, and the bytes are the file's section 2 */
        cr_assert_eq(v[0], 1);
        for (int k = 1; k < 32; k++)
            cr_assert_eq(v[k], 0);
        cr_assert_eq(memcmp(v, b.p + section_off(&b, 2, NULL), (size_t)w.n_witness * 32), 0);
        free(v);
        close(fd);
        free(b.p);
    }
}

Test(parse_wtns, bad_inputs)
{
    struct blob b = slurp(FIX "bn128/nopub.wtns");
    struct wtns w;
    struct sp_err e = { "" };
    int fd;

    memcpy(b.p, "zkey", 4);
    expect_fail(open_wtns_blob(&b, &w, &fd, &e), SP_EFORMAT, e, "wrong magic");
    close(fd);
    memcpy(b.p, "wtns", 4);

    size_t h = section_off(&b, 1, NULL);
    b.p[h + 4 + 5] ^= 0x40; /* a byte of the prime */
    expect_fail(open_wtns_blob(&b, &w, &fd, &e), SP_EUNSUPPORTED, e, "unknown prime");
    close(fd);
    b.p[h + 4 + 5] ^= 0x40;

    struct blob t = { b.p, b.n - 5 };
    expect_fail(open_wtns_blob(&t, &w, &fd, &e), SP_EFORMAT, e, "truncated");
    close(fd);

    /* a witness value equal to r */
    size_t v = section_off(&b, 2, NULL);
    memcpy(b.p + v + 32 * 3, curve_get(CURVE_BN254)->r, 32);
    cr_assert_eq(open_wtns_blob(&b, &w, &fd, &e), 0, "%s", e.msg);
    uint8_t *buf = malloc((size_t)w.n_witness * 32);
    expect_fail(wtns_read(&w, fd, buf, 0, w.n_witness, &e), SP_ERANGE, e, "witness value 3");
    free(buf);
    close(fd);
    free(b.p);
}
