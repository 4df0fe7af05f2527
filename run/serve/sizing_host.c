/* sizing_host.c — see sizing_host.h. */
#include "sizing_host.h"

static uint64_t total(const struct sizing_host_in *in, uint64_t fixed, unsigned slots,
                      unsigned synthds)
{
    return fixed + (uint64_t)slots * in->slot_bytes + (uint64_t)synthds * SIZING_HOST_SYNTHD_BYTES;
}

static void plan(const struct sizing_host_in *in, struct sizing_host *out)
{
    unsigned g = in->gpuds ? in->gpuds : 1;
    out->workers = in->workers;
    out->fixed_bytes = (uint64_t)g * (in->srs_bytes + (uint64_t)in->workers * in->worker_bytes) +
                       in->pce_bytes + SIZING_HOST_MARGIN;
    unsigned lo = g + 1, hi = in->slots > lo ? in->slots : lo;
    if (in->slots_given)
        lo = hi = in->slots;
    unsigned slots = hi;
    for (;;) {
        unsigned room = slots > g ? slots - g : 1;
        unsigned synthds = in->synthds_given ? in->synthds
                           : in->synthds && in->synthds < room ? in->synthds : room;
        uint64_t need = total(in, out->fixed_bytes, slots, synthds);
        if (need <= in->usable || slots <= lo) {
            out->fits = need <= in->usable;
            out->slots = slots;
            out->synthds = synthds;
            out->need_bytes = need;
            return;
        }
        slots--;
    }
}

void sizing_host_plan(const struct sizing_host_in *in, struct sizing_host *out)
{
    plan(in, out);
    if (out->fits || in->workers <= 1 || in->workers_given)
        return;
    struct sizing_host_in one = *in;
    struct sizing_host h1;
    one.workers = 1;
    plan(&one, &h1);
    if (h1.fits)
        *out = h1;
}
