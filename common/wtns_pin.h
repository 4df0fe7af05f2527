/*
 * wtns_pin.h — a witness pinned at submit: the proof and public.json must
 * come from the same witness bytes.
 *
 * The daemon takes each witness as a descriptor at submit and reads its
 * public signals then (for public.json); synthd reads the whole witness
 * later, when a slot is free. A client that rewrites the file in place in
 * between (same inode) would get a proof of the new witness beside the old
 * public signals: "Invalid proof". Copying every witness into sealed memory
 * at submit would put queued partitions' witnesses (4 GiB each at Filecoin
 * scale) outside the slot pool's bound, so instead the pin is a content
 * check, made by synthd right after it has read the witness into its slot:
 *   - the SHA-256 of the public-signal bytes (values 1..nPublic) read at
 *     submit must equal that of the same bytes in the slot, so public.json
 *     and the proof's public inputs are always the same bytes; and
 *   - the file's size, mtime and ctime (ns) must be what fstat said at
 *     submit, so a change to any other value fails the job as well — up to
 *     the file system's timestamp granularity: a change within the same
 *     clock tick as the submit and to private values only yields a proof of
 *     the new witness, which still verifies against public.json.
 * Either mismatch fails the job: "W: the witness changed after submit (…)".
 */
#ifndef SLOTPROVE_WTNS_PIN_H
#define SLOTPROVE_WTNS_PIN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct wtns_pin {
    uint64_t size;              /* bytes, from fstat */
    int64_t mtime_ns, ctime_ns; /* since the epoch */
    uint8_t public_sha256[32];  /* of the nPublic × 32 bytes of values 1..nPublic */
};

/* Pins the witness open as fd, whose public-signal bytes (pub, pub_bytes)
 * were just read from it. 0 or -errno (fstat) with "name: reason" in e. */
int wtns_pin_take(struct wtns_pin *p, int fd, const uint8_t *pub, size_t pub_bytes,
                  const char *name, struct sp_err *e);

/* Checks fd, and the public-signal bytes read from it later, against p.
 * 0, or -SP_EMISMATCH with "name: the witness changed after submit (what)". */
int wtns_pin_check(const struct wtns_pin *p, int fd, const uint8_t *pub, size_t pub_bytes,
                   const char *name, struct sp_err *e);

#endif
