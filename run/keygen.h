/*
 * keygen.h — `slotprove keygen`: a synthetic circuit, a satisfying witness
 * and an INSECURE single-party Groth16 setup, for testing and benchmarks.
 *
 * Pieces (one idea per file):
 *   keygen.c               the command: arguments, size and disk checks,
 *                          temporary files renamed at the end, progress
 *   keygen_circuit.c       the circuit's shape (kinds of constraint, counts)
 *   keygen_circuit_tmpl.h  the circuit and its witness over one curve's Fr
 *   keygen_qap_tmpl.h      the QAP at τ: Lagrange bases, H bases
 *   keygen_setup_tmpl.h    the setup: secrets, sections of points, vk.json
 *   keygen_vk.c            vk.json text
 *   keygen_curve.h         the per-curve functions, for keygen and the tests
 *   keygen_bn254.c, keygen_bls12381.c  one instance of the templates per curve
 * The points are computed with common/fixed_base.h, the file layout with
 * common/zkey_write.h, vk_alphabeta_12 = e(alpha1, beta2) with the pairing
 * (common/<curve>_pairing.h).
 */
#ifndef SLOTPROVE_KEYGEN_H
#define SLOTPROVE_KEYGEN_H

#include <stdint.h>
#include <stdio.h>

#include "curve.h"
#include "err.h"
#include "zkey.h"

/* Largest domain: 2^28 (BN254's 2-adicity, and the zkey reader's cap for
 * both curves, ZKEY_MAX_LOG_DOMAIN). */
#define KEYGEN_MAX_LOG_DOMAIN ZKEY_MAX_LOG_DOMAIN

/* ---------------------------------------------------------------- shape */

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

/* Kind of constraint i. */
enum keygen_kind keygen_kind(uint64_t i);

/* Terms in the A, B and C rows of a constraint of kind k. */
unsigned keygen_terms(enum keygen_kind k, unsigned matrix /* 0 A, 1 B, 2 C */);

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

/* Fills s for N constraints and K public inputs. 0, or -SP_ERANGE with the
 * reason in e (N = 0, domain above 2^KEYGEN_MAX_LOG_DOMAIN). */
int keygen_shape(struct keygen_shape *s, uint64_t n_constraints, uint64_t n_public,
                 struct sp_err *e);

/* Narrows s (from keygen_shape) to n_vars wires in all: the first
 * n_vars − 1 − K constraints make a wire each, the rest check earlier wires
 * (same kinds and term counts, the would-be wire's value a constant in C),
 * so a large domain can come with a smaller key. n_vars from
 * min(1 + K + 16, 1 + K + N) to 1 + K + N. 0, or -SP_ERANGE with the reason
 * in e. */
int keygen_shape_vars(struct keygen_shape *s, uint64_t n_vars, struct sp_err *e);

/* ---------------------------------------------------------------- PRNG */

/* xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64: the
 * circuit, and the setup's secrets when --seed is given. Not a CSPRNG. */
struct keygen_rng {
    uint64_t s[4];
};

void keygen_rng_seed(struct keygen_rng *g, uint64_t seed);
uint64_t keygen_rng_next(struct keygen_rng *g);
/* Uniform in [0, m) by rejection (4 LE limbs, standard form). */
void keygen_rng_below(struct keygen_rng *g, uint64_t out[4], const uint64_t m[4]);

/* ---------------------------------------------------------------- run */

/* Progress of the long phases: a bar on stderr when it is a terminal,
 * otherwise one line per finished phase. */
struct keygen_progress {
    int quiet, tty;
    uint64_t total, done;  /* the phase's work units (points: a G2 point counts 3) */
    int last_pct;
    double t_phase;        /* start of the current phase, seconds */
    const char *phase;
};

/* keygen_phase starts a phase (its name, its clock; no bar yet);
 * keygen_phase_units gives it a bar of `total` units, which keygen_advance
 * fills (the circuit: one unit a constraint; the points: keygen_work's). */
void keygen_phase(struct keygen_progress *p, const char *phase);
void keygen_phase_units(struct keygen_progress *p, uint64_t total);
void keygen_advance(struct keygen_progress *p, uint64_t units);
void keygen_phase_end(struct keygen_progress *p);

/* The point sections on the GPU (keygen_gpu.c), when slotprove was built
 * with CUDA: the CPU's window tables (common/fixed_base.h) are uploaded
 * and each batch of scalars comes back as the affine points the CPU would
 * write, byte for byte.
 *   keygen_gpu_probe  describes device 0 into desc ("NVIDIA H200, 139.8 GiB,
 *                     sm_90, 132 SMs"); -ENODEV without a GPU or without CUDA
 *   keygen_gpu_open   uploads the G1 and G2 tables (window bits w1, w2) and
 *                     sizes batches of up to max_batch scalars; -ENOMEM, -EIO
 *   keygen_gpu_mul    out[i] = k[i]·generator of G1 (g2 = 0) or G2 (g2 = 1),
 *                     affine, the zkey layout, n ≤ max_batch */
struct keygen_gpu;
int keygen_gpu_probe(char *desc, size_t len, struct sp_err *e);
/* The device memory budget (--gpu-mem) in bytes, 0: the default (free
 * memory less gpud/cuda/kernels/gpu_mem.h's margin); -ENOMEM when none is
 * left, -ENODEV without CUDA. */
int keygen_gpu_budget(uint64_t bytes, struct sp_err *e);
int keygen_gpu_open(struct keygen_gpu **ret, enum curve_id curve, const void *t1, unsigned w1,
                    const void *t2, unsigned w2, size_t max_batch, struct sp_err *e);
int keygen_gpu_mul(struct keygen_gpu *g, int g2, void *out, const uint64_t (*k)[4], size_t n,
                   struct sp_err *e);
void keygen_gpu_close(struct keygen_gpu *g);

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

/* vk.json text as `snarkjs zkey export verificationkey` writes it (keys in
 * its order, indent 1). vk_alphabeta_12 = e(α1, β2) comes
 * from the pairing (common/<curve>_pairing.h). A point
 * at infinity is ["0", "1", "0"]. malloc'd, NULL on ENOMEM. */
char *keygen_vk_json(const struct keygen_vk *vk);

/* Work units keygen_advance will see in total for this shape and curve. */
uint64_t keygen_work(const struct keygen_shape *s);

/* The whole generation for one curve: circuit, witness file, key file,
 * vk.json and public.json texts. 0, -ENOMEM, -errno of a write, with the
 * reason in e. */
int keygen_bn254(struct keygen_job *j, struct sp_err *e);
int keygen_bls12381(struct keygen_job *j, struct sp_err *e);

#endif
