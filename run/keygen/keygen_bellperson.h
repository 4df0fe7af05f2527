/*
 * keygen_bellperson.h - `slotprove keygen --format bellperson`
 * (keygen_bellperson.c): one INSECURE setup written both as bellperson
 * files (circuit.params, circuit.vk, circuit.pce) and as the snarkjs key of
 * the same circuit (circuit.zkey, vk.json), with circuit.wtns and
 * public.json. BLS12-381 only.
 */
#ifndef SLOTPROVE_KEYGEN_BELLPERSON_H
#define SLOTPROVE_KEYGEN_BELLPERSON_H

#include "err.h"
#include "curve.h"
#include "keygen_types.h"
#include "bls12381.h"
#include "fixed_base.h"

#define KEYGEN_BP_CHUNK ((size_t)1 << 18) /* points per batch of a section */

/* The generator tables (CPU) or the GPU helper, shared by the bellperson
 * keygens (this file and keygen_porep.c). */
struct keygen_bp_tables {
    struct bls12381_g1_fb_table t1;
    struct bls12381_g2_fb_table t2;
    unsigned nthreads;
    const struct keygen_job *j;
    struct keygen_gpu *gpu; /* the tables on the GPU (keygen_gpu.h), or NULL: the CPU */
    uint64_t (*k)[4];       /* KEYGEN_BP_CHUNK scalars, standard form */
};

/* out[i] = sc[i]·G (sc Montgomery form, n ≤ KEYGEN_BP_CHUNK); G1 (g2 = 0,
 * out bls12381_g1_affine_t[n]) or G2 (bls12381_g2_affine_t[n]); on the GPU
 * helper when open (the same bytes as the CPU's: keygen_gpu.h), under
 * --backend auto the CPU takes over when it fails. 0 or rc with e. */
int keygen_bp_mul(struct keygen_bp_tables *t, int g2, void *out, const bls12381_fr_t *sc,
                  size_t n, struct sp_err *e);

/* A non-zero secret below r: from g when seeded, else getrandom. 0 or -errno. */
int keygen_bp_secret(bls12381_fr_t *ret, struct keygen_rng *g, int seeded);

/* The generation into DIR (temporaries renamed at the end; nothing left on
 * failure). j: shape, seed, threads, progress as for keygen_bls12381; its
 * fds and paths are not used. 0, -ENOMEM, -errno, with the reason in e. */
int keygen_bellperson(struct keygen_job *j, const char *dir, struct sp_err *e);

/* The command's tail after the arguments (keygen.c): checks DIR, prints
 * the INSECURE notice, runs keygen_bellperson. Exit status 0 / 1 / 2. */
int keygen_bellperson_cmd(struct keygen_job *j, const char *dir, enum curve_id curve);

#endif
