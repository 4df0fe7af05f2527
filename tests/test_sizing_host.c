/*
 * test_sizing_host.c — serve's host-memory plan (run/serve/sizing_host.h)
 * at PoRep's real shape (issue 38.5): a 128 GiB host, one GPU, 16 cores.
 * The bytes are added up here from PoRep's published per-partition figures
 * (issue 38; curio extern/cuzk/cuzk-project.md §14) and the file layouts
 * (common/README-bellperson.md), and cross-checked against cuzk's own
 * figures (SRS 44 GiB, PCE 26 GiB); the expected slots and synthds were
 * worked out by hand from these sums.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "sizing_host.h"

TestSuite(sizing_host, .timeout = 30);

#define GIB (1ull << 30)

/* PoRep's partition, published */
static const uint64_t constraints = 130278869, inputs = 328, aux = 130169893;
static const uint64_t nnz_a = 309400000, nnz_b = 130300000, nnz_c = 282700000;
static const uint64_t b_aux = 33112281, domain = 1ull << 27;

static uint64_t a_aux(void) /* 99.7 % of aux */
{
    return (aux * 997 + 500) / 1000;
}

/* bellperson's .params: vk (3 G1, 3 G2, IC), then h, l, a, b_g1, b_g2 with
 * u32 counts; uncompressed G1 96 bytes, G2 192; b: wire 0 and the B aux */
static uint64_t srs_bytes(void)
{
    uint64_t g1 = 96, g2 = 192;
    return 3 * g1 + 3 * g2 + 4 + inputs * g1 + 4 + (domain - 1) * g1 + 4 + aux * g1 + 4 +
           (inputs + a_aux()) * g1 + 4 + (1 + b_aux) * g1 + 4 + (1 + b_aux) * g2;
}

/* cuzk's PCE: header, per matrix (count, row pointers, nnz cols, nnz
 * 32-byte values), three bitmaps */
static uint64_t pce_bytes(void)
{
    uint64_t nnz = nnz_a + nnz_b + nnz_c, words = (aux + 63) / 64;
    return 32 + 3 * (8 + 4 * (constraints + 1) + 8 + 8) + nnz * (4 + 32) + 2 * (24 + 8 * words) +
           (24 + 8 * ((inputs + 63) / 64));
}

static struct sizing_host_in porep_in(uint64_t usable, unsigned workers)
{
    uint64_t wires = inputs + aux, vec = domain * 32;
    struct sizing_host_in in = {
        .usable = usable,
        .srs_bytes = srs_bytes(),
        .pce_bytes = pce_bytes(),
        .slot_bytes = 2 * vec + wires * 32,   /* a, b, witness */
        .worker_bytes = 3 * vec + wires * 32, /* a, b, c, witness */
        .gpuds = 1,
        .workers = workers,
        .slots = 14 + 2, /* serve's default on 16 cores: 14 synthds + 2 per gpud */
        .synthds = 14,
    };
    return in;
}

Test(sizing_host, porep_sizes_match_cuzks)
{
    double srs = (double)srs_bytes() / GIB, pce = (double)pce_bytes() / GIB;
    cr_assert(srs > 43.5 && srs < 45, "SRS %.2f GiB, cuzk: 44", srs);
    cr_assert(pce > 25 && pce < 27, "PCE %.2f GiB, cuzk: 26", pce);
}

/* one partition off the slots at a time (the CPU backend, or
 * SLOTPROVE_GPUD_WORKERS=1): 3 slots and 2 synthds fit 128 GiB */
Test(sizing_host, porep_on_128_gib_one_worker_fits)
{
    struct sizing_host_in in = porep_in(128 * GIB, 1);
    struct sizing_host h;
    sizing_host_plan(&in, &h);
    uint64_t slot = in.slot_bytes, worker = in.worker_bytes;
    uint64_t want = (4ull << 30) + srs_bytes() + pce_bytes() + worker + 3 * slot +
                    2 * (256ull << 20);
    cr_assert(h.fits);
    cr_assert_eq(h.slots, 3);
    cr_assert_eq(h.synthds, 2);
    cr_assert_eq(h.need_bytes, want, "need %lu, summed here %lu", h.need_bytes, want);
    cr_assert_leq(h.need_bytes, 128 * GIB);
    /* at the limit: the same plan; one byte under it: one slot and one
     * synthd fewer */
    in.usable = want;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.slots == 3 && h.synthds == 2);
    in.usable = want - 1;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.slots == 2 && h.synthds == 1, "slots %u synthds %u", h.slots, h.synthds);
    cr_assert_eq(h.need_bytes, want - slot - (256ull << 20));
}

/* two workers set by the operator (SLOTPROVE_GPUD_WORKERS=2): 2 × 15.9
 * GiB off the slots, so even the least plan (2 slots, 1 synthd) needs
 * about 129.6 GiB: refused, with the figure */
Test(sizing_host, porep_on_128_gib_two_workers_refused_with_figure)
{
    struct sizing_host_in in = porep_in(128 * GIB, 2);
    in.workers_given = 1;
    struct sizing_host h;
    sizing_host_plan(&in, &h);
    uint64_t least = (4ull << 30) + srs_bytes() + pce_bytes() + 2 * in.worker_bytes +
                     2 * in.slot_bytes + (256ull << 20);
    cr_assert_not(h.fits);
    cr_assert_eq(h.slots, 2);
    cr_assert_eq(h.synthds, 1);
    cr_assert_eq(h.need_bytes, least);
    double gib = (double)least / GIB;
    cr_assert(gib > 129.5 && gib < 129.7, "%.3f GiB", gib);
    /* a host with exactly that much fits it; one byte less does not */
    in.usable = least;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.slots == 2);
    in.usable = least - 1;
    sizing_host_plan(&in, &h);
    cr_assert_not(h.fits);
}

/* the GPU backend's default of two workers, not set by the operator: the
 * least two-worker plan does not fit 128 GiB, so one worker a gpud is
 * planned, with the one-worker plan's slots and synthds (3 and 2) */
Test(sizing_host, porep_on_128_gib_default_workers_fall_back_to_one)
{
    struct sizing_host_in in = porep_in(128 * GIB, 2);
    struct sizing_host h;
    sizing_host_plan(&in, &h);
    uint64_t one = (4ull << 30) + srs_bytes() + pce_bytes() + in.worker_bytes + 3 * in.slot_bytes +
                   2 * (256ull << 20);
    cr_assert(h.fits);
    cr_assert_eq(h.workers, 1);
    cr_assert_eq(h.slots, 3);
    cr_assert_eq(h.synthds, 2);
    cr_assert_eq(h.need_bytes, one);
    /* where two fit (the least two-worker plan, summed here), two are kept */
    uint64_t two = (4ull << 30) + srs_bytes() + pce_bytes() + 2 * in.worker_bytes +
                   2 * in.slot_bytes + (256ull << 20);
    in.usable = two;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.workers == 2 && h.slots == 2, "workers %u slots %u", h.workers, h.slots);
    /* one byte less: the one-worker plan, which fits there */
    in.usable = two - 1;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.workers == 1, "workers %u", h.workers);
    /* neither fits: refused with the two-worker plan's figure */
    in.usable = 64 * GIB;
    sizing_host_plan(&in, &h);
    cr_assert_not(h.fits);
    cr_assert_eq(h.workers, 2);
}

/* --slots and --synthds are kept and only checked */
Test(sizing_host, given_counts_are_kept)
{
    struct sizing_host_in in = porep_in(128 * GIB, 1);
    in.slots = 5, in.slots_given = 1, in.synthds = 4, in.synthds_given = 1;
    struct sizing_host h;
    sizing_host_plan(&in, &h);
    cr_assert_eq(h.slots, 5);
    cr_assert_eq(h.synthds, 4);
    cr_assert_not(h.fits); /* 5 × 11.9 GiB of slots do not fit beside the rest */
    in.slots = 3, in.synthds = 2;
    sizing_host_plan(&in, &h);
    cr_assert(h.fits && h.slots == 3 && h.synthds == 2);
}
