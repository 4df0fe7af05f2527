/*
 * synth_share.h — the supervisor's part in sharing one synthesis index per
 * key among the synthds (synthd/synth_index_share.h): keys_adopt_synth_index
 * (keys.h) keeps the memfd; synth_share_wait keeps a second synthd from
 * building its own copy while the first is still building.
 */
#ifndef SLOTPROVE_RUN_SYNTH_SHARE_H
#define SLOTPROVE_RUN_SYNTH_SHARE_H

#include <stdint.h>

#include "keys.h"
#include "kids.h"

/* 1 if synthd k should not be sent key key_id yet: the key has no shared
 * index, k has not been sent it, and another live synthd has been sent it
 * and not yet answered (it is building the index that k will then map). */
int synth_share_wait(const struct kid_table *t, const struct key_entry *ke, uint32_t key_id,
                     const struct kid *k);

#endif
