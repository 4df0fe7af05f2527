/*
 * verify_bellperson.c - `slotprove verify --bellperson VK PUBLIC PROOF`:
 * verifies bellperson proofs (192 bytes each, common/bellperson_proof.h)
 * against a bellperson .vk (or the vk part of a .params). PROOF may hold k
 * proofs (a job's partitions, concatenated); PUBLIC is then k public.json
 * files joined by commas, one per partition in order (snarkjs's form: the
 * public inputs after wire 0 as decimal strings). Prints OK and exits 0
 * when every proof verifies; else "INVALID: ..." naming the file, the
 * partition and the reason, exit 1; 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bellperson_params.h"
#include "bellperson_proof.h"
#include "groth16.h"
#include "groth16_json.h"
#include "prove_bellperson.h"

int cmd_verify_bellperson(int argc, char **argv)
{
    int quiet = 0, i;
    const char *pos[3];
    int np = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bellperson") == 0)
            continue;
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "slotprove verify --bellperson: unknown option %s\n", argv[i]);
            return 2;
        }
        if (np == 3) {
            np++;
            break;
        }
        pos[np++] = argv[i];
    }
    if (np != 3) {
        fprintf(stderr, "usage: slotprove verify --bellperson [-q] VK PUBLIC[,PUBLIC...] PROOF\n");
        return 2;
    }
    const char *vk_path = pos[0], *pub_arg = pos[1], *proof_path = pos[2];
    struct sp_err e = { "" };
    struct bp_params bp;
    struct groth16_vk vk;
    int rc, have_bp = 0, have_vk = 0, fd = -1;
    uint8_t *proof = NULL;
    char *pubs = NULL;

    if ((fd = open(vk_path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = sp_fail(&e, -errno, "%s: %s", vk_path, strerror(errno));
        goto out;
    }
    /* a .vk, or failing that a .params (its vk part) */
    rc = bp_params_open(&bp, fd, vk_path, 1, &e);
    if (rc < 0) {
        struct sp_err e2 = { "" };
        if (bp_params_open(&bp, fd, vk_path, 0, &e2) == 0)
            rc = 0;
    }
    if (rc < 0) {
        /* a JSON file (snarkjs's vk.json) is not a bellperson key: say so */
        char c0 = 0;
        if (pread(fd, &c0, 1, 0) == 1 && c0 == '{')
            rc = sp_fail(&e, -SP_EFORMAT, "%s: a JSON file, not a bellperson verifying key "
                         "(a .vk or .params): for snarkjs's vk.json leave out --bellperson",
                         vk_path);
    }
    close(fd);
    if (rc < 0)
        goto out;
    have_bp = 1;
    if ((rc = bp_vk_to_groth16(&vk, &bp, 0, &e)) < 0)
        goto out;
    have_vk = 1;

    struct stat st;
    if ((fd = open(proof_path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
        rc = sp_fail(&e, -errno, "%s: %s", proof_path, strerror(errno));
        goto out;
    }
    size_t len = (size_t)st.st_size;
    if (len == 0 || len % BP_PROOF_BYTES) {
        rc = sp_fail(&e, SP_EFORMAT, "%s: %zu bytes, not a multiple of %d (one proof each)",
                     proof_path, len, BP_PROOF_BYTES);
        goto out;
    }
    proof = malloc(len);
    if (!proof || read(fd, proof, len) != (ssize_t)len) {
        rc = sp_fail(&e, -EIO, "%s: read failed", proof_path);
        goto out;
    }
    unsigned k = (unsigned)(len / BP_PROOF_BYTES);
    if (!(pubs = strdup(pub_arg))) {
        rc = sp_fail(&e, -ENOMEM, "out of memory");
        goto out;
    }
    char *save = NULL, *name = strtok_r(pubs, ",", &save);
    for (unsigned p = 0; p < k; p++, name = strtok_r(NULL, ",", &save)) {
        if (!name) {
            rc = sp_fail(&e, SP_EMISMATCH, "%s: %u proofs but %u public files", proof_path, k, p);
            goto out;
        }
        struct groth16_proof gp;
        uint8_t *pub = NULL;
        uint32_t n_pub = 0;
        if ((rc = groth16_public_read_json(&pub, &n_pub, name, &e)) < 0)
            goto out;
        if (n_pub != vk.n_public) {
            free(pub);
            rc = sp_fail(&e, SP_EMISMATCH, "%s: %u public inputs, but %s has %u (ic - 1)", name,
                         n_pub, vk_path, vk.n_public);
            goto out;
        }
        rc = bp_proof_decode(&gp, proof + (size_t)p * BP_PROOF_BYTES, proof_path, p, &e);
        if (rc == 0) {
            rc = groth16_verify(&vk, pub, n_pub, &gp, 1, &e);
            if (rc < 0) {
                char m[SP_ERR_MSG];
                snprintf(m, sizeof m, "%s", e.msg);
                sp_fail(&e, rc, "%s: proof %u (public %s): %s", proof_path, p, name, m);
            }
        }
        free(pub);
        if (rc < 0)
            goto out;
    }
    if (name) {
        rc = sp_fail(&e, SP_EMISMATCH, "%s: %u proofs but more public files", proof_path, k);
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(proof);
    free(pubs);
    if (have_vk)
        groth16_vk_free(&vk);
    if (have_bp)
        bp_params_close(&bp);
    if (rc < 0) {
        if (!quiet)
            fprintf(stderr, "slotprove verify: INVALID: %s\n", e.msg);
        return 1;
    }
    if (!quiet)
        printf("OK\n");
    return 0;
}
