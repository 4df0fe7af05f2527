/*
 * wtns.h — circom witness file (.wtns), read with pread only.
 *
 * Format (snarkjs src/wtns_utils.js, circom witness_calculator.js): magic
 * "wtns", version 2, section 1 {u32 n8, prime (n8 bytes LE), u32 nWitness},
 * section 2 nWitness × n8 bytes, standard form LE. The prime is the scalar
 * field r of the circuit's curve. Wire 0 is 1; wires 1..nPublic are the
 * public signals.
 */
#ifndef SLOTPROVE_WTNS_H
#define SLOTPROVE_WTNS_H

#include <stdint.h>

#include "curve.h"
#include "err.h"
#include "key_shape.h"

struct wtns {
    const char *path;
    enum curve_id curve;
    uint32_t n8;           /* bytes per value (32) */
    uint32_t n_witness;
    uint64_t values_offset; /* file offset of value 0 */
};

/* Reads and validates the headers: magic, version ≤ 2, n8 = 32, a known r,
 * section 2 size = nWitness·n8. -SP_EFORMAT / -SP_EUNSUPPORTED / -errno. */
int wtns_open(struct wtns *w, int fd, const char *path, struct sp_err *e);

/* preads values [first, first+count) into dst (count·32 bytes, standard form)
 * and checks each is < r: -SP_ERANGE names the first bad index. */
int wtns_read(const struct wtns *w, int fd, void *dst, uint64_t first,
              uint64_t count, struct sp_err *e);

/* Checks that the witness fits the key's shape (key_shape.h): same curve, nWitness = nVars.
 * -SP_EMISMATCH naming both files ("w.wtns: witness is for bls12381 but
 * k.zkey is a bn128 key", "w.wtns: nWitness 310 != the key's nVars 2981 (k.zkey)"). */
int wtns_check_shape(const struct wtns *w, const struct key_shape *zk, struct sp_err *e);
/* The same against a zkey's header. */
int wtns_check_key(const struct wtns *w, const struct zkey *zk, struct sp_err *e);

#endif
