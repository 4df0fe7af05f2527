/*
 * witness_mismatch.h — a witness program made for another circuit than its
 * key's, told as one message that names the program, the key and both wire
 * counts, whichever way the mismatch shows: a program of a smaller circuit
 * writes a whole .wtns of too few wires; one of a larger circuit is stopped
 * at the output limit (RLIMIT_FSIZE, witness_program.h: SIGXFSZ for a native
 * program, node's "EFBIG" for a .wasm), and the header it wrote before,
 * its nWitness, still tells its circuit's size.
 */
#ifndef SLOTPROVE_WITNESS_MISMATCH_H
#define SLOTPROVE_WITNESS_MISMATCH_H

#include <stdint.h>

#include "err.h"

/* wtns_fd holds what the program at prog_path wrote for input_name: its
 * whole .wtns, or when stopped != 0 (at the output limit, limit_bytes) the
 * bytes it wrote first. The .wtns header (iden3's format: "wtns", version,
 * sections; section 1 holds n8, the prime, nWitness: common/wtns.h) is read
 * from offset 0. Returns 0 when its nWitness is key_wires or no header is
 * there and the program was not stopped (the usual .wtns checks then name
 * the fault); else -SP_EMISMATCH with "INPUT: the witness program PROG
 * writes a witness of N wires, the key KEY has M: made for another
 * circuit?", or, stopped before a header was written, the bytes written and
 * the limit in place of N. */
int witness_mismatch_check(int wtns_fd, int stopped, uint64_t limit_bytes, const char *input_name,
                           const char *prog_path, const char *key_name, uint32_t key_wires,
                           struct sp_err *e);

#endif
