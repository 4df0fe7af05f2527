/*
 * zkey_write.h — writing snarkjs Groth16 proving keys (.zkey), the
 * counterpart of zkey.h (wtns_write.h writes witnesses).
 *
 * The writer plans the file first (zkey_layout: every section's offset and
 * size from the header counts), writes the container header, the section
 * table and the small sections (zkey_write_headers), and the caller then
 * pwrites each section body at layout.off[id] — in any order and from any
 * thread. Sections are laid out in id order 1..9 (readers index by id;
 * snarkjs's `zkey new` writes 1,2,4,3,9,8,5,6,7,10). No section 10
 * (contributions): it is optional, and a key from a single-party setup has
 * none to record.
 */
#ifndef SLOTPROVE_ZKEY_WRITE_H
#define SLOTPROVE_ZKEY_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "err.h"

struct zkey_layout {
    enum curve_id curve;
    uint32_t n_vars, n_public, domain_size;
    uint64_t n_coefs;
    uint64_t off[10];  /* body offset of section id (1..9) */
    uint64_t size[10]; /* body bytes of section id */
    uint64_t file_size;
};

/* Plans a key: section sizes as in zkey.h (IC (nPublic+1)·G1, coefficients
 * 4 + nCoefs·(12 + n8r), A/B1 nVars·G1, B2 nVars·G2, C (nVars−nPublic−1)·G1,
 * H domainSize·G1). Requires nPublic < nVars. */
void zkey_layout(struct zkey_layout *l, enum curve_id curve, uint32_t n_vars,
                 uint32_t n_public, uint32_t domain_size, uint64_t n_coefs);

/* Writes the container header and section table, section 1 (protocol 1,
 * Groth16), section 2 (primes, counts and the six points: alpha1, beta1,
 * beta2, gamma2, delta1, delta2, given serialised in that order in
 * `points`: 3 G1 + 3 G2 in the zkey encoding, alpha1‖beta1‖beta2‖gamma2‖
 * delta1‖delta2) and the nCoefs word of section 4. -errno with "path:
 * reason" in e. */
int zkey_write_headers(int fd, const char *path, const struct zkey_layout *l,
                       const uint8_t *points, struct sp_err *e);

#endif
