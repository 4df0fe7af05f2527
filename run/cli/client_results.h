/* client_results.h — a job's results from the daemon (client_results.c). */
#ifndef SLOTPROVE_CLIENT_RESULTS_H
#define SLOTPROVE_CLIENT_RESULTS_H

#include <stddef.h>

#include "client_conn.h"
#include "err.h"

/*
 * Sends wait for job on c and handles the answer: writes the outputs when
 * both paths are given (want: the partitions expected, 0 when unknown),
 * or bp_path (bellperson's 192-byte proofs, concatenated in partition
 * order: a BLS12-381 job's), else prints "done". 0, or a negative errno with the reason in e
 * (-EPROTO: the job ended failed or cancelled, or a malformed answer).
 */
int client_wait_job(struct client_conn *c, const char *job, size_t want,
                    const char *proof_path, const char *public_path, const char *bp_path,
                    struct sp_err *e);

/* Writes a done job's results ("proofs" and "public" arrays in resp, one
 * entry per partition, in order) as `submit --wait` does: one partition as
 * snarkjs's proof.json and public.json, several as arrays. want: the
 * expected count, or 0. Atomic (output.h). 0, or a negative code with e. */
int write_results(json_t *resp, size_t want, const char *proof_path, const char *public_path,
                  struct sp_err *e);

/* The same, proof_path and public_path optional (both or neither), and
 * with bp_path (optional) the proofs as bellperson's 192 bytes each,
 * concatenated in partition order; all written together. */
int write_results_bp(json_t *resp, size_t want, const char *proof_path, const char *public_path,
                     const char *bp_path, struct sp_err *e);

#endif
