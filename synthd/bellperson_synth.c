/* bellperson_synth.c — see bellperson_synth.h. */
#include "bellperson_synth.h"

#include <string.h>

#include "bellperson_pce.h"
#include "bls12381.h"
#include "pce_synth.h"

int bellperson_synth_slot(const struct child_key *k, const uint8_t *witness, uint8_t *a,
                          uint8_t *b, const char *wname, unsigned nthreads,
                          struct sp_err *e)
{
    static const uint8_t one[32] = { 1 };
    if (memcmp(witness, one, 32) != 0)
        return sp_fail(e, SP_ERANGE, "%s: wire 0 is not 1 (bellperson's \"one\" input)", wname);
    /* the slot's witness is read in place (standard form; pce_synth.h) */
    bp_pce_synth_ab(&k->pce, (const bls12381_fr_t *)witness, (bls12381_fr_t *)a,
                    (bls12381_fr_t *)b, k->shape.domain_size, nthreads);
    return 0;
}
