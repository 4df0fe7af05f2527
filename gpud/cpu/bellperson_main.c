/*
 * bellperson_main.c - `gpud --bellperson-prove`: one job of bellperson
 * partitions proved in this process on the CPU backend, the entry point
 * `slotprove prove --params P --pce C` execs (run/prove_bellperson.c).
 *
 *   gpud --bellperson-prove [--threads N] [--quiet] [--no-subgroup-check]
 *        [--json PROOF.json PUBLIC.json] PARAMS PCE OUT WITNESS...
 *
 * Loads the .params (every point decoded and checked, subgroups included
 * unless --no-subgroup-check) and the PCE, checks they describe one circuit,
 * then for each witness (a .wtns over BLS12-381's r, nWitness = num_inputs
 * + num_aux, wire 0 = 1, inputs then aux) proves, checks the proof against
 * the file's own vk (pairing) before anything is written, and appends its
 * 192 bytes to OUT (written whole at the end through a temporary and a
 * rename). --json (one witness only) also writes snarkjs's proof.json and
 * public.json for the same proof. Exit status 0, 1 (bad input or a proof
 * that fails its check: nothing written), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bellperson_main.h"
#include "bellperson_proof.h"
#include "bellperson_prove.h"
#include "groth16.h"
#include "proof.h"
#include "wtns.h"

static double bm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bm_write_file(const char *path, const void *buf, size_t len, struct sp_err *e)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return sp_fail(e, -errno, "%s: %s", tmp, strerror(errno));
    int bad = fwrite(buf, 1, len, f) != len;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        return sp_fail(e, -err, "%s: %s", path, strerror(err));
    }
    return 0;
}

/* The key's vk as groth16_vk (points already checked by bp_key_load). */
static int bm_vk(struct groth16_vk *vk, const struct bp_key *k)
{
    memset(vk, 0, sizeof *vk);
    vk->curve = CURVE_BLS12381;
    vk->n_public = k->params.count[BP_IC] - 1;
    memcpy(vk->alpha1, &k->alpha1, 96);
    memcpy(vk->beta2, &k->beta2, 192);
    memcpy(vk->gamma2, &k->gamma2, 192);
    memcpy(vk->delta2, &k->delta2, 192);
    vk->ic = (const uint8_t *)k->ic;
    groth16_vk_prepare(vk);
    return 0;
}

/* Reads a witness for the PCE: n values, standard form. */
static int bm_witness(const char *path, const struct bp_pce *p, uint8_t **out, struct sp_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sp_fail(e, -errno, "%s: %s", path, strerror(errno));
    struct wtns w;
    uint64_t n = (uint64_t)p->num_inputs + p->num_aux;
    int rc = wtns_open(&w, fd, path, e);
    if (rc == 0 && w.curve != CURVE_BLS12381)
        rc = sp_fail(e, SP_EMISMATCH, "%s: witness is not over BLS12-381's r (bellperson keys are)",
                     path);
    if (rc == 0 && w.n_witness != n)
        rc = sp_fail(e, SP_EMISMATCH, "%s: nWitness %u != %u inputs + %u aux of %s", path,
                     w.n_witness, p->num_inputs, p->num_aux, p->path);
    uint8_t *v = NULL;
    if (rc == 0 && !(v = malloc(n * 32)))
        rc = sp_fail(e, -ENOMEM, "%s: out of memory", path);
    if (rc == 0)
        rc = wtns_read(&w, fd, v, 0, n, e);
    if (rc == 0) {
        static const uint8_t one[32] = { 1 };
        if (memcmp(v, one, 32) != 0)
            rc = sp_fail(e, SP_ERANGE, "%s: wire 0 is not 1", path);
    }
    close(fd);
    if (rc < 0) {
        free(v);
        return rc;
    }
    *out = v;
    return 0;
}

int bellperson_prove_main(int argc, char **argv)
{
    unsigned nthreads = 0;
    int quiet = 0, subgroup = 1, i = 1;
    const char *json_proof = NULL, *json_public = NULL;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            nthreads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--quiet") == 0)
            quiet = 1;
        else if (strcmp(argv[i], "--no-subgroup-check") == 0)
            subgroup = 0;
        else if (strcmp(argv[i], "--json") == 0 && i + 2 < argc)
            json_proof = argv[i + 1], json_public = argv[i + 2], i += 2;
        else {
            fprintf(stderr, "gpud --bellperson-prove: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (argc - i < 4) {
        fprintf(stderr, "usage: gpud --bellperson-prove [--threads N] [--quiet] "
                        "[--no-subgroup-check] [--json PROOF.json PUBLIC.json] PARAMS PCE OUT "
                        "WITNESS...\n");
        return 2;
    }
    const char *params_path = argv[i], *pce_path = argv[i + 1], *out_path = argv[i + 2];
    char **wit = argv + i + 3;
    int nwit = argc - i - 3;
    if (json_proof && nwit != 1) {
        fprintf(stderr, "slotprove prove: --json takes one witness (got %d)\n", nwit);
        return 2;
    }
    struct sp_err e = { "" };
    struct bp_key k;
    struct bp_pce pce;
    struct groth16_vk vk;
    uint8_t *proofs = NULL, *w = NULL;
    int rc, have_key = 0, have_pce = 0;
    double t0 = bm_now();

    int fd = open(params_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "slotprove prove: %s: %s\n", params_path, strerror(errno));
        return 1;
    }
    rc = bp_key_load(&k, fd, params_path, subgroup, nthreads, &e);
    close(fd);
    if (rc < 0)
        goto fail;
    have_key = 1;
    double t_key = bm_now();
    if ((fd = open(pce_path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = sp_fail(&e, -errno, "%s: %s", pce_path, strerror(errno));
        goto fail;
    }
    rc = bp_pce_open(&pce, fd, pce_path, nthreads, &e);
    close(fd);
    if (rc < 0)
        goto fail;
    have_pce = 1;
    if ((rc = bp_key_match_pce(&k, &pce, &e)) < 0)
        goto fail;
    bm_vk(&vk, &k);
    double t_pce = bm_now();
    if (!quiet)
        fprintf(stderr,
                "slotprove prove: bellperson key %s: %u inputs, %u aux, domain %u; %s: %u "
                "constraints; load %.3f s (points checked%s), PCE %.3f s\n",
                params_path, pce.num_inputs, pce.num_aux, k.params.count[BP_H] + 1, pce_path,
                pce.num_constraints, t_key - t0, subgroup ? ", subgroups too" : "",
                t_pce - t_key);

    proofs = malloc((size_t)nwit * BP_PROOF_BYTES);
    if (!proofs) {
        rc = sp_fail(&e, -ENOMEM, "out of memory");
        goto fail;
    }
    struct groth16_proof gp;
    for (int p = 0; p < nwit; p++) {
        double ts = bm_now();
        bls12381_g1_affine_t A, C;
        bls12381_g2_affine_t B;
        if ((rc = bm_witness(wit[p], &pce, &w, &e)) < 0 ||
            (rc = bp_prove(&k, &pce, w, &A, &B, &C, nthreads, &e)) < 0)
            goto fail;
        bp_proof_to_groth16(&gp, &A, &B, &C);
        rc = groth16_verify(&vk, w + 32, pce.num_inputs - 1, &gp, 0, &e);
        if (rc < 0) {
            rc = sp_fail(&e, rc, "%s: the proof fails its check against %s's vk (%s): the "
                         "witness does not satisfy the circuit", wit[p], params_path, e.msg);
            goto fail;
        }
        bp_proof_encode(proofs + (size_t)p * BP_PROOF_BYTES, &A, &B, &C);
        if (!quiet)
            fprintf(stderr, "slotprove prove: partition %d (%s): proved and checked in %.3f s\n",
                    p, wit[p], bm_now() - ts);
        if (json_proof) {
            char *pj = proof_to_json(&gp), *pub = public_to_json(w + 32, pce.num_inputs - 1);
            if (!pj || !pub) {
                free(pj), free(pub);
                rc = sp_fail(&e, -ENOMEM, "out of memory");
                goto fail;
            }
            rc = bm_write_file(json_proof, pj, strlen(pj), &e);
            if (rc == 0)
                rc = bm_write_file(json_public, pub, strlen(pub), &e);
            free(pj), free(pub);
            if (rc < 0)
                goto fail;
        }
        free(w);
        w = NULL;
    }
    if ((rc = bm_write_file(out_path, proofs, (size_t)nwit * BP_PROOF_BYTES, &e)) < 0)
        goto fail;
    if (!quiet)
        fprintf(stderr, "slotprove prove: wrote %s (%d x %d bytes)\n", out_path, nwit,
                BP_PROOF_BYTES);
    free(proofs);
    bp_pce_close(&pce);
    bp_key_free(&k);
    return 0;
fail:
    fprintf(stderr, "slotprove prove: %s\n", e.msg);
    free(w);
    free(proofs);
    if (have_pce)
        bp_pce_close(&pce);
    if (have_key)
        bp_key_free(&k);
    return rc == -SP_EUSAGE ? 2 : 1;
}
