/*
 * keygen_types.h — the types `slotprove keygen`'s pieces share (keygen.h lists the
 * pieces); no functions.
 */
#ifndef SLOTPROVE_KEYGEN_TYPES_H
#define SLOTPROVE_KEYGEN_TYPES_H

#include <stdint.h>

#include "curve.h"
#include "zkey.h"

/* Largest domain: 2^28 (BN254's 2-adicity, and the zkey reader's cap for
 * both curves, ZKEY_MAX_LOG_DOMAIN). */
#define KEYGEN_MAX_LOG_DOMAIN ZKEY_MAX_LOG_DOMAIN

/* Kinds of constraint (w = witness, o = the constraint's new wire):
 *   BIT   o·(o − 1) = 0             A [o], B [o, −1], C []        o ∈ {0, 1}
 *   AND   x·y = o                   A [x], B [y], C [o]           x, y bits
 *   XOR   2x·y = x + y − o          A [2x], B [y], C [x, y, −o]   x, y bits
 *   PACK  (Σ 2^k b_k)·1 = o         A [8 bits], B [1], C [o]      o < 256
 *   MUL   (c1 x + c2)(c3 z + c4) = o  A [x, 1], B [z, 1], C [o]   full size
 *   LIN   (c1 x + c2 y + c3 z)·1 = o  A [x, y, z], B [1], C [o]   full size
 * "1" is wire 0. Operands are earlier wires drawn at random. The kinds repeat
 * in a fixed pattern of 16, so the counts follow from N alone. */
enum keygen_kind { KG_BIT, KG_AND, KG_XOR, KG_PACK, KG_MUL, KG_LIN };

#define KEYGEN_PATTERN_LEN 16
#define KEYGEN_MAX_TERMS 8 /* most terms in one row of A, B or C */

struct keygen_shape {
    uint32_t n_constraints; /* N */
    uint32_t n_public;      /* K */
    uint32_t n_vars;        /* 1 + K + N (wire 0, K public inputs, one new wire per
                             * constraint), or fewer: keygen_shape_vars */
    uint32_t domain_size;   /* smallest power of two >= N + K + 1 (the public-input rows) */
    unsigned log_domain;
    uint64_t n_a, n_b, n_c; /* entries of A, B, C over the N constraints */
    uint64_t n_coefs;       /* section 4: n_a + n_b + K + 1 */
};

/* xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64: the
 * circuit, and the setup's secrets when --seed is given. Not a CSPRNG. */
struct keygen_rng {
    uint64_t s[4];
};

/* Progress of the long phases: a bar on stderr when it is a terminal,
 * otherwise one line per finished phase. */
struct keygen_progress {
    int quiet, tty;
    uint64_t total, done;  /* the phase's work units (points: a G2 point counts 3) */
    int last_pct;
    double t_phase;        /* start of the current phase, seconds */
    const char *phase;
};

enum { KEYGEN_GPU_AUTO = 1, KEYGEN_GPU_REQUIRED = 2 };

struct keygen_job {
    enum curve_id curve;
    int gpu;                /* the point sections on the GPU (keygen_gpu_*): 0 no,
                             * KEYGEN_GPU_AUTO (the CPU takes over if it fails),
                             * KEYGEN_GPU_REQUIRED (--backend cuda: a failure ends keygen) */
    struct keygen_shape shape;
    uint64_t seed;
    int seeded;             /* secrets from the seed (reproducible), else getrandom */
    unsigned nthreads;      /* 0 = all CPUs */
    int zkey_fd, wtns_fd;   /* open, sized output files */
    const char *zkey_path, *wtns_path; /* names for messages */
    struct keygen_progress *progress;
    char *vk_json;          /* out: vk.json text (malloc) */
    char *public_json;      /* out: public.json text (malloc) */
};

/* The verification key, coordinates in standard form (LE limbs; 4-limb Fq
 * leaves the top two zero). */
struct keygen_vk {
    enum curve_id curve;
    uint32_t n_public;
    uint64_t alpha1[2][6];
    uint64_t beta2[2][2][6], gamma2[2][2][6], delta2[2][2][6];
    uint64_t (*ic)[2][6];   /* n_public + 1 points */
    uint64_t alphabeta[2][3][2][6]; /* e(alpha1, beta2) in Fp12, [w][v][u] */
};

#endif
