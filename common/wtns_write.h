/*
 * wtns_write.h — writing circom witness files (.wtns), the counterpart of
 * wtns.h (same format: snarkjs src/wtns_utils.js).
 */
#ifndef SLOTPROVE_WTNS_WRITE_H
#define SLOTPROVE_WTNS_WRITE_H

#include <stdint.h>

#include "curve.h"
#include "err.h"

/* Bytes of a .wtns file of n_witness values. */
uint64_t wtns_file_bytes(uint32_t n_witness);

/* Writes a complete .wtns (version 2; section 1 {n8 = 32, r, nWitness},
 * section 2 values) for the curve's r; values: n_witness × 32 bytes, standard
 * form LE. -errno with "path: reason" in e. */
int wtns_write(int fd, const char *path, enum curve_id curve,
               const uint8_t *values, uint32_t n_witness, struct sp_err *e);

/* Writes only the header of such a file (the first wtns_file_bytes(n) −
 * 32·n bytes), for a writer that streams the values after it. */
int wtns_write_header(int fd, const char *path, enum curve_id curve, uint32_t n_witness,
                      struct sp_err *e);

#endif
