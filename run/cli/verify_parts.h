/*
 * verify_parts.h — `slotprove verify` of a multi-partition job's files: the
 * proof file a JSON array of k proofs and the public file an array of k
 * public-signal arrays, both in partition order (as `submit` and `wait`
 * write them). Each partition is checked as a lone proof is, and the first
 * that fails is named with its index and the count.
 */
#ifndef SLOTPROVE_VERIFY_PARTS_H
#define SLOTPROVE_VERIFY_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "groth16.h"

/* Verifies every partition of pub_path and proof_path against vk (prepared:
 * groth16_vk_prepare). Returns 1 when neither file is a multi-partition
 * file (the caller checks one proof), 0 when all *parts partitions verify,
 * or -SP_EFORMAT / -SP_EMISMATCH / -SP_ERANGE / -SP_EVERIFY with the reason
 * in why (why_len bytes): a file unreadable or not JSON, one file of a job
 * and the other of one proof, differing counts, or "PROOF: partition i of
 * k: reason". */
int verify_partitions(const struct groth16_vk *vk, const char *vk_path, const char *pub_path,
                      const char *proof_path, uint32_t *parts, char *why, size_t why_len);

#endif
