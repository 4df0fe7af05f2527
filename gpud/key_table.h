/*
 * key_table.h — gpud's loaded keys (child_keys.h), shared by the main
 * thread (which loads and drops them) and the workers (which prove with
 * them): a worker holds the read side for a whole proof, a KEY_LOAD or
 * KEY_DROP the write side (writers first, so a stream of proofs cannot
 * starve a key load).
 *
 *   key_table_init()        the lock; once, before the workers start.
 *   key_table_get(id)       the key loaded as id (any id), or NULL.
 *   key_table_rdlock/unlock a worker's side, around one proof.
 *   key_table_load(req, fds, nfds)
 *                           KEY_LOAD: takes the write side, replaces key
 *                           req->key_id (the backend forgets the old one),
 *                           decodes what its format needs (key_format.h),
 *                           asks the backend's row whether it fits
 *                           (key_check) and answers KEY_OK or KEY_ERR with
 *                           the reason.
 *   key_table_drop(id)      KEY_DROP: takes the write side; the backend
 *                           forgets the key, then it is unmapped.
 */
#ifndef SLOTPROVE_GPUD_KEY_TABLE_H
#define SLOTPROVE_GPUD_KEY_TABLE_H

#include <stdint.h>

#include "child_keys.h"
#include "ctl.h"

void key_table_init(void);
const struct child_key *key_table_get(uint32_t id);
void key_table_rdlock(void);
void key_table_unlock(void);
void key_table_load(const struct ctl_msg *req, const int *fds, int nfds);
void key_table_drop(uint32_t id);

#endif
