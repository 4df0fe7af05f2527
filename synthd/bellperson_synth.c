/* bellperson_synth.c — see bellperson_synth.h. */
#include "bellperson_synth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson_pce.h"
#include "bls12381.h"
#include "payload.h"
#include "pce_synth.h"

int bellperson_synth_slot(const struct child_key *k, const uint8_t *witness, uint8_t *a,
                          uint8_t *b, uint8_t *c, const char *wname, unsigned nthreads,
                          struct sp_err *e)
{
    static const uint8_t one[32] = { 1 };
    if (memcmp(witness, one, 32) != 0)
        return sp_fail(e, SP_ERANGE, "%s: wire 0 is not 1 (bellperson's \"one\" input)", wname);
    size_t nw = (size_t)k->pce.num_inputs + k->pce.num_aux;
    bls12381_fr_t *wm = malloc(nw * sizeof *wm);
    if (!wm)
        return sp_fail(e, -ENOMEM, "%s: out of memory for %zu witness values", wname, nw);
    for (size_t i = 0; i < nw; i++) {
        memcpy(wm[i].l, witness + PAYLOAD_FR_BYTES * i, 32);
        bls12381_fr_to_mont(&wm[i], &wm[i]);
    }
    bp_pce_synth_abc(&k->pce, wm, (bls12381_fr_t *)a, (bls12381_fr_t *)b, (bls12381_fr_t *)c,
                     k->zk.domain_size, nthreads);
    free(wm);
    return 0;
}
