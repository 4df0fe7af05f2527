/*
 * fuzz_verify.c — libFuzzer target for what `slotprove verify` reads: the
 * input becomes a memfd, read through /proc/self/fd as a verification key,
 * as a proof and as public signals (common/groth16_json.h). A proof that
 * parses is then verified, with the subgroup tests, against the bundled
 * bn128/chain key (and against the input itself when that parses as a key
 * too, with the signals when they parse).
 *
 * Besides the sanitizers, it checks that every rejection names the file,
 * and that a proof with coordinates changed at random is not accepted as
 * the fixture's (it would mean a forgery).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "groth16.h"
#include "groth16_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct groth16_vk fixed;
static int fixed_ok = -1;

static int names_file(const struct sp_err *e, const char *path)
{
    return strncmp(e->msg, path, strlen(path)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sp_err e = { "" };
    if (fixed_ok < 0) {
        fixed_ok = groth16_vk_read_json(&fixed, "tests/fixtures/bn128/chain.vk.json", &e) == 0;
        if (fixed_ok)
            groth16_vk_prepare(&fixed);
    }
    int fd = fuzz_memfd(data, size);
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

    struct groth16_vk vk;
    int vk_ok = groth16_vk_read_json(&vk, path, &e) == 0;
    if (!vk_ok && !names_file(&e, path))
        abort();
    uint8_t *pub = NULL;
    uint32_t n_pub = 0;
    int pub_ok = groth16_public_read_json(&pub, &n_pub, path, &e) == 0;
    if (!pub_ok && !names_file(&e, path))
        abort();
    struct groth16_proof p;
    int proof_ok = groth16_proof_read_json(&p, CURVE_BN254, path, &e) == 0;
    if (!proof_ok && !names_file(&e, path))
        abort();
    if (proof_ok && fixed_ok) {
        /* the fixture's signals are 2 values; use zeros unless given */
        uint8_t zeros[64] = { 0 };
        int rc = groth16_verify(&fixed, pub_ok && n_pub == 2 ? pub : zeros, 2, &p, 1, &e);
        if (rc == 0 && !(pub_ok && n_pub == 2))
            abort(); /* a proof for all-zero signals of the fixture: a forgery */
    }
    if (proof_ok && vk_ok && pub_ok)
        (void)groth16_verify(&vk, pub, n_pub, &p, 1, &e);
    if (vk_ok)
        groth16_vk_free(&vk);
    free(pub);
    close(fd);
    return 0;
}
