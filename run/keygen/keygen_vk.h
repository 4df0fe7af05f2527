/*
 * keygen_vk.h — vk.json text for `slotprove keygen` (keygen_vk.c).
 */
#ifndef SLOTPROVE_KEYGEN_VK_H
#define SLOTPROVE_KEYGEN_VK_H

#include "keygen_types.h"

/* vk.json text as `snarkjs zkey export verificationkey` writes it (keys in
 * its order, indent 1). vk_alphabeta_12 = e(α1, β2) comes
 * from the pairing (common/<curve>_pairing.h). A point
 * at infinity is ["0", "1", "0"]. malloc'd, NULL on ENOMEM. */
char *keygen_vk_json(const struct keygen_vk *vk);

#endif
