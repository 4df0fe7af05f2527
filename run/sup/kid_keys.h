/* kid_keys.h — the keys the children hold (kid_keys.c). */
#ifndef SLOTPROVE_KID_KEYS_H
#define SLOTPROVE_KID_KEYS_H

#include <stdint.h>

#include "core_state.h"

/* KEY_LOAD of key_id (the cache's file descriptor, keys.h) to child k
 * unless sent already; 0 or -errno of the send. */
int core_send_key(struct core *c, struct kid *k, uint32_t key_id);
/* Every child forgets key_id (evicted from the cache), and the dispatcher
 * no longer counts it as loaded in any gpud. */
void core_drop_key(struct core *c, uint32_t key_id);
/* Bit per key id used by a running job whose files have been read. */
uint64_t core_busy_keys(const struct core *c);

#endif
