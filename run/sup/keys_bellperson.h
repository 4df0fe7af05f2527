/* keys_bellperson.h — a bellperson key into the key cache (keys.h). */
#ifndef SLOTPROVE_KEYS_BELLPERSON_H
#define SLOTPROVE_KEYS_BELLPERSON_H

#include <stdint.h>

#include "err.h"
#include "keys.h"

/* A preloaded bellperson key: the .params on params_fd and the PCE on
 * pce_fd (both consumed, also on failure), found by alias. Opened and
 * checked (keys_bellperson.c): the PCE whole, the two against each other,
 * and, unless the cache already holds a key of the same SHA-256 (its points
 * were checked then), every point of the .params on its curve and in its
 * subgroup; the children then decode without the subgroup tests. nthreads
 * for the checks (0 = all); subgroup 0 leaves the subgroup tests out (prove
 * --no-subgroup-check, for a file checked before). 0 with *key_id, or a negative code with e
 * naming the file, section and index. */
int keys_add_bellperson(struct key_cache *kc, int params_fd, int pce_fd, const char *params_path,
                        const char *pce_path, const char *alias, unsigned nthreads,
                        int subgroup, uint32_t *key_id, struct sp_err *e);

#endif
