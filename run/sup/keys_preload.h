/* keys_preload.h — serve --key NAME=PATH into the key cache (keys.h). */
#ifndef SLOTPROVE_KEYS_PRELOAD_H
#define SLOTPROVE_KEYS_PRELOAD_H

#include "err.h"
#include "keys.h"

/* --key NAME=PATH: opens, validates and hashes PATH; NAME=P.params:C.pce
 * (when PATH itself is no file and has a colon: split at the last one) a
 * bellperson key (keys_add_bellperson). 0, or a negative code
 * (common/err.h) with the reason, naming the file, in e. */
int keys_preload(struct key_cache *kc, const char *name_eq_path, struct sp_err *e);

#endif
