/*
 * fuzz_bellperson.c - libFuzzer target for the bellperson readers: the first
 * byte picks the reader, the rest becomes a memfd:
 *   0  bellperson .params (bp_params_open, then every point decoded with
 *      the curve checks; subgroup tests for files of at most 64 points)
 *   1  bellperson .vk (the same)
 *   2  cuzk PCE (bp_pce_open; when accepted and the domain is at most 2^12,
 *      synthesis with an all-ones witness)
 *   3  192-byte proofs (bp_proof_decode of each whole proof)
 * Besides the sanitizers, it checks that a rejected file's message names it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "bellperson_params.h"
#include "bellperson_pce.h"
#include "bellperson_proof.h"
#include "pce_synth.h"

#define NAME "fuzz.bin"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void names_file(int rc, const struct sp_err *e)
{
    if (rc < 0 && strncmp(e->msg, NAME ": ", sizeof(NAME ": ") - 1) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned which = data[0] % 4;
    data++, size--;
    struct sp_err e = { "" };
    if (which == 3) {
        for (size_t off = 0; off + BP_PROOF_BYTES <= size; off += BP_PROOF_BYTES) {
            struct groth16_proof p;
            names_file(bp_proof_decode(&p, data + off, NAME, 0, &e), &e);
        }
        return 0;
    }
    int fd = fuzz_memfd(data, size);
    if (which == 2) {
        struct bp_pce p;
        int rc = bp_pce_open(&p, fd, NAME, 1, &e);
        names_file(rc, &e);
        if (rc == 0) {
            size_t n = bp_pce_domain_size(&p, NULL);
            if (n <= 4096 && (uint64_t)p.num_inputs + p.num_aux <= 65536) {
                size_t nw = (size_t)p.num_inputs + p.num_aux;
                bls12381_fr_t *w = malloc((nw + 1) * sizeof *w), *a = malloc(n * sizeof *a),
                              *b = malloc(n * sizeof *b);
                for (size_t i = 0; i < nw; i++)
                    bls12381_fr_set_one(&w[i]);
                bp_pce_synth_ab(&p, w, a, b, n, 1);
                free(w), free(a), free(b);
            }
            bp_pce_close(&p);
        }
    } else {
        struct bp_params p;
        int rc = bp_params_open(&p, fd, NAME, which == 1, &e);
        names_file(rc, &e);
        if (rc == 0) {
            uint64_t total = 0;
            for (int s = 0; s < BP_NSECTIONS; s++)
                total += p.count[s];
            names_file(bp_params_check(&p, total <= 64, 1, NULL, &e), &e);
            bp_params_close(&p);
        }
    }
    close(fd);
    return 0;
}
