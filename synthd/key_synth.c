/* key_synth.c — synthd's row per key format (see key_synth.h). */
#include "key_synth.h"

#include "bellperson_synth.h"
#include "synth.h"

static int zkey_fill(const struct child_key *k, const struct synth_index *ix, const void *gw,
                     const uint8_t *wit, uint8_t *a, uint8_t *b, const char *wname,
                     unsigned nthreads, struct sp_err *e)
{
    (void)wit, (void)wname, (void)e;
    if (k->zk.curve == CURVE_BN254)
        bn254_synth_ab(ix, &k->zk, gw, a, b, nthreads);
    else
        bls12381_synth_ab(ix, &k->zk, gw, a, b, nthreads);
    return 0;
}

static int bellperson_fill(const struct child_key *k, const struct synth_index *ix,
                           const void *gw, const uint8_t *wit, uint8_t *a, uint8_t *b,
                           const char *wname, unsigned nthreads, struct sp_err *e)
{
    (void)ix, (void)gw;
    return bellperson_synth_slot(k, wit, a, b, wname, nthreads, e);
}

static const struct key_synth rows[CTL_KEY_KINDS] = {
    [CTL_KEY_ZKEY] = { .index = 1, .wcopy = 1, .fill = zkey_fill },
    [CTL_KEY_BELLPERSON] = { .index = 0, .wcopy = 0, .fill = bellperson_fill },
};

const struct key_synth *key_synth(const struct child_key *k)
{
    return &rows[k->kind];
}
