/*
 * keygen_bn254.h — `slotprove keygen --curve bn128` (keygen_bn254.c).
 */
#ifndef SLOTPROVE_KEYGEN_BN254_H
#define SLOTPROVE_KEYGEN_BN254_H

#include "err.h"
#include "keygen_types.h"

/* The whole generation for one curve: circuit, witness file, key file,
 * vk.json and public.json texts. 0, -ENOMEM, -errno of a write, with the
 * reason in e. */
int keygen_bn254(struct keygen_job *j, struct sp_err *e);

#endif
