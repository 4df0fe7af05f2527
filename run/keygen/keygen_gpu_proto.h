/*
 * keygen_gpu_proto.h — between keygen (keygen_gpu.c) and its GPU helper
 * process build/slotprove-keygen-gpu (keygen_gpu_main.c), which alone links
 * the CUDA runtime. Header only.
 *
 * The helper is started with a SOCK_SEQPACKET socket at descriptor 3 and,
 * except for --probe, a memfd at descriptor 4:
 *
 *   slotprove-keygen-gpu --probe [--gpu-mem BYTES]
 *       one reply: rc 0 and the description of device 0 in msg ("NVIDIA
 *       H200, 139.8 GiB, sm_90, 132 SMs"), or rc < 0 and the reason (also
 *       -ENOMEM when the budget below leaves nothing); exits.
 *   slotprove-keygen-gpu --curve bn128|bls12381 --w1 W1 --w2 W2 --max-batch N
 *                        [--gpu-mem BYTES]
 *       sets the device memory budget (gpud/cuda/kernels/gpu_mem.h; BYTES
 *       decimal, 0 or absent: free memory less gpu_mem_margin), maps the
 *       memfd (keygen_gpu_layout below), uploads the G1 and G2
 *       window tables found there, replies (rc 0, or rc < 0 and the
 *       reason), then answers one request after another until the socket
 *       closes, and exits 0.
 *
 * Request (struct kg_req): op KGH_MUL, g2 (0: G1, 1: G2), n ≤ max batch:
 * n scalars (32 B each, standard form) at k_off → n affine points at
 * out_off (2·n8q bytes in G1, 4·n8q in G2; infinity as zeros). Reply
 * (struct kg_rep): rc 0, or a negative errno and the reason in msg.
 */
#ifndef SLOTPROVE_KEYGEN_GPU_PROTO_H
#define SLOTPROVE_KEYGEN_GPU_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "curve.h"
#include "err.h"

#define KEYGEN_GPU_HELPER "slotprove-keygen-gpu"
#define KG_FD_SOCK 3
#define KG_FD_MEM 4

enum { KGH_MUL = 1 };

struct kg_req {
    uint32_t op, g2;
    uint64_t n;
};

struct kg_rep {
    int32_t rc;
    char msg[SP_ERR_MSG];
};

struct kg_layout {
    size_t g1_bytes, g2_bytes;  /* one affine point */
    size_t t1_off, t1_bytes;    /* G1 window table (common/fixed_base.h layout) */
    size_t t2_off, t2_bytes;    /* G2 window table */
    size_t k_off, out_off;      /* max_batch scalars; max_batch G2-sized points */
    size_t total;
};

/* Bytes of a window table: ⌈256/w⌉ rows of 2^w − 1 affine points. */
static inline size_t kg_table_bytes(unsigned w, size_t point_bytes)
{
    return (size_t)((256 + w - 1) / w) * (((size_t)1 << w) - 1) * point_bytes;
}

/* The memfd's layout for a curve (n8q bytes of Fq), window bits w1, w2
 * (1..16) and max_batch scalars; every part 64-byte aligned. */
static inline struct kg_layout kg_layout_of(uint32_t n8q, unsigned w1, unsigned w2,
                                            size_t max_batch)
{
    struct kg_layout l;
    l.g1_bytes = 2 * (size_t)n8q;
    l.g2_bytes = 4 * (size_t)n8q;
    l.t1_off = 0;
    l.t1_bytes = kg_table_bytes(w1, l.g1_bytes);
    l.t2_off = (l.t1_off + l.t1_bytes + 63) & ~(size_t)63;
    l.t2_bytes = kg_table_bytes(w2, l.g2_bytes);
    l.k_off = (l.t2_off + l.t2_bytes + 63) & ~(size_t)63;
    l.out_off = (l.k_off + max_batch * 32 + 63) & ~(size_t)63;
    l.total = l.out_off + max_batch * l.g2_bytes;
    return l;
}

#endif
