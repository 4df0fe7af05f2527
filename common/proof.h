/*
 * proof.h — a Groth16 proof and its snarkjs JSON form.
 *
 * proof.json (snarkjs groth16_prove.js + cli.js, written with indent 1):
 *   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]],
 *    "pi_c": [x, y, "1"], "protocol": "groth16", "curve": "bn128"|"bls12381"}
 * decimal strings of affine coordinates in standard form; a point at infinity
 * is ["0", "1", "0"] (G2: [["0","0"],["1","0"],["0","0"]]).
 * public.json: array of decimal strings of witness[1..nPublic].
 */
#ifndef SLOTPROVE_PROOF_H
#define SLOTPROVE_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"

/* Coordinates are standard-form LE limbs; a curve with 4-limb Fq leaves the
 * top two limbs zero. */
struct groth16_proof {
    enum curve_id curve;
    uint64_t a[2][6];     /* pi_a x, y */
    uint64_t b[2][2][6];  /* pi_b x (c0, c1), y (c0, c1) */
    uint64_t c[2][6];     /* pi_c x, y */
    int a_inf, b_inf, c_inf;
};

/* Newly allocated proof.json text (caller frees), or NULL on ENOMEM. */
char *proof_to_json(const struct groth16_proof *p);

/* The same as a jansson object (a new reference; NULL on ENOMEM): for a
 * document that holds the proof (the daemon's answers, run/sup/jobs.h). */
struct json_t *proof_to_json_object(const struct groth16_proof *p);

/* Newly allocated public.json text for n values of 32 bytes (standard form
 * LE), or NULL on ENOMEM. */
char *public_to_json(const uint8_t *values, uint32_t n);

/* Decimal string of an n-limb LE integer into buf; returns buf. */
char *limbs_to_dec(char *buf, size_t len, const uint64_t *l, size_t n);

#endif
