/*
 * key_synth.h — synthd's row per key format (by enum ctl_key_kind; the one
 * place synthd tells formats apart, gpud/README.md "Adding a key format"):
 * how a KEY_LOAD is finished and how a partition's a, b are computed.
 *   zkey        an index of the key's coefficients (synth_index.h), built
 *               at KEY_LOAD on a thread of its own (or mapped from another
 *               synthd's), KEY_OK once it is; the witness also read into
 *               the private huge-page copy the sums gather from
 *               (witness_read.h); a, b by the sums of synth.h, per curve;
 *   bellperson  nothing beyond child_key_load (KEY_OK at once); a, b from
 *               the PCE (bellperson_synth.h).
 *
 *   key_synth(k)   k's row (k loaded: child_key_load accepted its kind).
 *   ->index        1: the key has a synthesis index (above).
 *   ->wcopy        1: the witness is read into the huge-page copy too.
 *   ->fill(k, ix, gw, wit, a, b, wname, nthreads, e)
 *                  a, b (the slot's domain_size × 32 bytes each, the
 *                  slot's form, shm/payload.h) from the witness: wit the
 *                  slot's n_vars × 32 bytes (standard form, range-checked
 *                  when read), gw the same values where the sums gather
 *                  from (the copy, or wit), ix the key's index (index = 1).
 *                  0, or the reason (bellperson: -SP_ERANGE, wire 0 is not 1).
 */
#ifndef SLOTPROVE_SYNTHD_KEY_SYNTH_H
#define SLOTPROVE_SYNTHD_KEY_SYNTH_H

#include <stdint.h>

#include "child_keys.h"
#include "err.h"
#include "synth_index.h"

struct key_synth {
    int index;
    int wcopy;
    int (*fill)(const struct child_key *k, const struct synth_index *ix, const void *gw,
                const uint8_t *wit, uint8_t *a, uint8_t *b, const char *wname,
                unsigned nthreads, struct sp_err *e);
};

const struct key_synth *key_synth(const struct child_key *k);

#endif
