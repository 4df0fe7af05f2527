/*
 * test_self_check.c - proof_self_check (common/self_check.h) and
 * groth16_verify on the fixtures' snarkjs proofs, read with
 * groth16_json.h: every proof passes against its own zkey, alternating
 * between keys of both curves (the e(alpha, beta) cache must not mix them
 * up); a changed public signal gives exactly "the witness does not satisfy
 * the circuit"; the verifying key read from verification_key.json equals
 * the one taken from the zkey.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16.h"
#include "groth16_json.h"
#include "self_check.h"
#include "zkey.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(self_check, .timeout = 120);

#define FIX "tests/fixtures/"

struct fx {
    struct zkey zk;
    int fd;
    char zpath[256];
    struct groth16_proof p;
    uint8_t *pub;
    uint32_t n_pub;
};

static void fx_open(struct fx *f, const char *curve, const char *name)
{
    char path[256];
    struct sp_err e = { "" };
    snprintf(f->zpath, sizeof(f->zpath), FIX "%s/%s.zkey", curve, name);
    f->fd = open(f->zpath, O_RDONLY);
    cr_assert(f->fd >= 0, "%s", f->zpath);
    cr_assert_eq(zkey_open(&f->zk, f->fd, f->zpath, &e), 0, "%s", e.msg);
    snprintf(path, sizeof(path), FIX "%s/%s.snarkjs.proof.json", curve, name);
    cr_assert_eq(groth16_proof_read_json(&f->p, f->zk.curve, path, &e), 0, "%s", e.msg);
    snprintf(path, sizeof(path), FIX "%s/%s.public.json", curve, name);
    cr_assert_eq(groth16_public_read_json(&f->pub, &f->n_pub, path, &e), 0, "%s", e.msg);
    cr_assert_eq(f->n_pub, f->zk.n_public);
}

static void fx_close(struct fx *f)
{
    free(f->pub);
    zkey_close(&f->zk);
    close(f->fd);
}

Test(self_check, fixtures_both_curves_alternating)
{
    static const char *const names[3] = { "chain", "nopub", "allpub" };
    struct fx f[6];
    for (int i = 0; i < 6; i++)
        fx_open(&f[i], i < 3 ? "bn128" : "bls12381", names[i % 3]);
    struct sp_err e = { "" };
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 6; i++) {
            uint64_t ns = 0;
            cr_assert_eq(proof_self_check(&f[i].zk, f[i].pub, &f[i].p, &ns, &e), 0,
                         "fixture %d: %s", i, e.msg);
            cr_assert(ns > 0);
        }
    /* a changed public signal: the honest prover's proof no longer fits */
    for (int i = 0; i < 6; i++) {
        if (f[i].n_pub == 0)
            continue;
        f[i].pub[0] ^= 1;
        int rc = proof_self_check(&f[i].zk, f[i].pub, &f[i].p, NULL, &e);
        cr_assert_eq(rc, -SP_EVERIFY);
        cr_assert(strncmp(e.msg, "the witness does not satisfy the circuit", 40) == 0,
                  "%s", e.msg);
        f[i].pub[0] ^= 1;
    }
    for (int i = 0; i < 6; i++)
        fx_close(&f[i]);
}

Test(self_check, vk_json_equals_zkey)
{
    static const char *const curves[2] = { "bn128", "bls12381" };
    for (int c = 0; c < 2; c++) {
        struct fx f;
        fx_open(&f, curves[c], "chain");
        char path[256];
        struct sp_err e = { "" };
        struct groth16_vk a, b;
        snprintf(path, sizeof(path), FIX "%s/chain.vk.json", curves[c]);
        cr_assert_eq(groth16_vk_read_json(&a, path, &e), 0, "%s", e.msg);
        groth16_vk_from_zkey(&b, &f.zk);
        size_t g1 = f.zk.ci->g1_bytes, g2 = f.zk.ci->g2_bytes;
        cr_assert_eq(a.curve, b.curve);
        cr_assert_eq(a.n_public, b.n_public);
        cr_assert(memcmp(a.alpha1, b.alpha1, g1) == 0);
        cr_assert(memcmp(a.beta2, b.beta2, g2) == 0);
        cr_assert(memcmp(a.gamma2, b.gamma2, g2) == 0);
        cr_assert(memcmp(a.delta2, b.delta2, g2) == 0);
        cr_assert(memcmp(a.ic, b.ic, g1 * (a.n_public + 1)) == 0);
        /* with and without the precomputed e(alpha, beta) */
        cr_assert_eq(groth16_verify(&b, f.pub, f.n_pub, &f.p, 1, &e), 0, "%s", e.msg);
        groth16_vk_prepare(&a);
        cr_assert_eq(groth16_verify(&a, f.pub, f.n_pub, &f.p, 1, &e), 0, "%s", e.msg);
        groth16_vk_free(&a);
        fx_close(&f);
    }
}
