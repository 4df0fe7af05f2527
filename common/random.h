/*
 * random.h — uniform scalars for the proof's blinding factors r and s.
 */
#ifndef SLOTPROVE_RANDOM_H
#define SLOTPROVE_RANDOM_H

#include <stdint.h>

/* Sets out (4 LE limbs, standard form) to a uniform value in [0, modulus)
 * by rejection sampling getrandom(2) bytes masked to modulus's bit length
 * (expected < 2 draws). Returns 0 or -errno from getrandom. */
int random_below(uint64_t out[4], const uint64_t modulus[4]);

#endif
