/*
 * keygen_bls12381.h — `slotprove keygen --curve bls12381` (keygen_bls12381.c).
 */
#ifndef SLOTPROVE_KEYGEN_BLS12381_H
#define SLOTPROVE_KEYGEN_BLS12381_H

#include "err.h"
#include "keygen_types.h"

/* The whole generation for one curve: circuit, witness file, key file,
 * vk.json and public.json texts. 0, -ENOMEM, -errno of a write, with the
 * reason in e. */
int keygen_bls12381(struct keygen_job *j, struct sp_err *e);

#endif
