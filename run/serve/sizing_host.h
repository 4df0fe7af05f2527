/*
 * sizing_host.h — serve's host-memory plan for bellperson keys (issue 38):
 * the slots and synthds chosen so that everything a process group holds
 * for its largest jobs stays inside the memory it may use, or a refusal
 * with the bytes it would need.
 *
 * What the group holds (bytes):
 *   SRS      every gpud decodes the .params' points into its own memory
 *            (gpud/bellperson_key.h: Montgomery affine, 96 bytes a G1
 *            point and 192 a G2 point, as in the file): gpuds × the
 *            .params' size
 *   PCE      mapped read-only by the supervisor and every synthd: one
 *            copy in the page cache, the file's size
 *   slots    slots × slot bytes (shm/payload.h: a and b, domain × 32
 *            bytes each, and the witness, wires × 32)
 *   scratch  each partition a gpud worker holds off its slot
 *            (the bellperson rows of gpud's backends: a, b, c and the witness: 3 × domain
 *            × 32 + wires × 32), gpuds × workers of them; each synthd
 *            SIZING_HOST_SYNTHD_BYTES; SIZING_HOST_MARGIN for the
 *            supervisor and everything else
 *
 * Rules: slots between gpuds + 1 (one filling while each gpud has one)
 * and the wanted count (serve's default synthds + 2 × gpuds, or --slots),
 * as many as fit; synthds min(wanted, slots − gpuds), at least 1. Given
 * --slots or --synthds are kept and only checked. When even the least plan
 * does not fit with the backend's workers (two on a GPU) and the operator
 * did not set them, one worker a gpud is planned instead (a PoRep key at
 * S = 1 on a 128 GiB host).
 */
#ifndef SLOTPROVE_SIZING_HOST_H
#define SLOTPROVE_SIZING_HOST_H

#include <stdint.h>

#define SIZING_HOST_MARGIN (4ull << 30)
#define SIZING_HOST_SYNTHD_BYTES (256ull << 20)

struct sizing_host_in {
    uint64_t usable;        /* bytes the group may use (sizing.h) */
    uint64_t srs_bytes;     /* the .params' size */
    uint64_t pce_bytes;     /* the PCE's size */
    uint64_t slot_bytes;    /* one slot */
    uint64_t worker_bytes;  /* one partition off its slot in a gpud worker */
    unsigned gpuds, workers;/* gpud processes; partitions each holds at once */
    unsigned slots, synthds;/* wanted (or given) */
    int slots_given, synthds_given;
    int workers_given;      /* workers set by the operator (SLOTPROVE_GPUD_WORKERS): kept */
};

struct sizing_host {
    int fits;
    unsigned slots, synthds;
    unsigned workers;       /* partitions each gpud holds at once in this plan */
    uint64_t fixed_bytes;   /* SRS + PCE + gpud scratch + margin */
    uint64_t need_bytes;    /* fixed + the chosen slots and synthds; when it
                             * does not fit, the least the group needs */
};

/* The plan for in (rules above). Pure: no I/O. */
void sizing_host_plan(const struct sizing_host_in *in, struct sizing_host *out);

#endif
