/*
 * groth16_json.h — reading snarkjs's Groth16 JSON files for verification:
 * verification_key.json, proof.json and public.json (formats of snarkjs
 * src/zkey_export_verificationkey.js and src/groth16_prove.js; see proof.h).
 *
 * Numbers are decimal strings; points are [x, y, z] with z "1" (affine) or
 * the point at infinity (z "0"); G2 coordinates are [c0, c1] pairs.
 * Every function returns 0 or a negative code with a message naming the
 * file (the `path` argument) and the reason: -SP_EFORMAT for malformed JSON
 * or a missing/ill-typed field, -SP_ERANGE for a number out of its field or
 * a point off its curve, -SP_EUNSUPPORTED for another protocol or curve,
 * -SP_EMISMATCH for sizes that disagree.
 */
#ifndef SLOTPROVE_GROTH16_JSON_H
#define SLOTPROVE_GROTH16_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "err.h"
#include "groth16.h"
#include "proof.h"

/* Reads a verification key (protocol "groth16", curve "bn128" or
 * "bls12381", nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC
 * with nPublic + 1 points; vk_alphabeta_12 is ignored). Points are checked
 * to be on their curves and in their prime-order subgroups, alpha, beta,
 * gamma and delta not at infinity (groth16_vk_check_subgroups; -SP_ERANGE,
 * the message names path and the point). vk->ic is allocated: free with
 * groth16_vk_free. */
int groth16_vk_read_json(struct groth16_vk *vk, const char *path, struct sp_err *e);

/* Reads a proof (pi_a, pi_b, pi_c; "protocol" must be "groth16" when
 * present; "curve", when present, must name a known curve and is stored
 * in p->curve, else p->curve = default_curve). Coordinates must be below q
 * (checked here); curve membership is groth16_verify's check. A file that
 * holds an array (a multi-partition job's proofs, as `submit` writes them)
 * is -SP_EFORMAT with a message saying so. */
int groth16_proof_read_json(struct groth16_proof *p, enum curve_id default_curve,
                            const char *path, struct sp_err *e);

/* The same from a parsed proof object (doc); path names it in messages. */
int groth16_proof_from_json(struct groth16_proof *p, json_t *doc, enum curve_id default_curve,
                            const char *path, struct sp_err *e);

/* Reads public.json: an array of decimal strings, each below 2^256 (the
 * check against r is groth16_verify's; an array of arrays, a multi-
 * partition job's file, is -SP_EFORMAT saying so). *values is allocated (32 bytes LE
 * per signal, at least 32 bytes even for none; caller frees), *n set. */
int groth16_public_read_json(uint8_t **values, uint32_t *n, const char *path,
                             struct sp_err *e);

/* The same from a parsed document (doc, not consumed); path names it in
 * messages. A proof or verification key object is -SP_EFORMAT saying the
 * files look swapped. */
int groth16_public_from_json(uint8_t **values, uint32_t *n, json_t *doc, const char *path,
                             struct sp_err *e);

#endif
