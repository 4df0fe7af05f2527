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

/* The generation into DIR (temporaries renamed at the end; nothing left on
 * failure). j: shape, seed, threads, progress as for keygen_bls12381; its
 * fds and paths are not used. 0, -ENOMEM, -errno, with the reason in e. */
int keygen_bellperson(struct keygen_job *j, const char *dir, struct sp_err *e);

/* The command's tail after the arguments (keygen.c): checks DIR, prints
 * the INSECURE notice, runs keygen_bellperson. Exit status 0 / 1 / 2. */
int keygen_bellperson_cmd(struct keygen_job *j, const char *dir, enum curve_id curve);

#endif
