/*
 * gpus.h — which GPUs `serve` runs a gpud on: one gpud per GPU, each told
 * its device with --gpu (gpud sets CUDA_VISIBLE_DEVICES to it before CUDA
 * starts, so each process sees exactly one GPU as device 0).
 */
#ifndef SLOTPROVE_GPUS_H
#define SLOTPROVE_GPUS_H

#include "err.h"

#define GPUS_MAX 16
#define GPUS_ID_MAX 64

struct gpu_list {
    unsigned n;
    char id[GPUS_MAX][GPUS_ID_MAX]; /* CUDA device index or UUID ("GPU-…") */
    const char *ptr[GPUS_MAX];      /* id[i], for core_opts.gpus */
};

/* Parses "0,1" (indices or UUIDs, comma-separated, no duplicates, at most
 * GPUS_MAX). -EINVAL with a message naming the bad item; g then holds the
 * items before it. */
int gpus_parse(struct gpu_list *g, const char *list, struct sp_err *e);

/* The GPUs this process may use: $CUDA_VISIBLE_DEVICES's items when it is
 * set, up to the first invalid or repeated one as CUDA reads it (an empty
 * value: none), else one per NVIDIA device the driver lists
 * in /proc/driver/nvidia/gpus (0 when there is no driver). */
void gpus_visible(struct gpu_list *g);

#endif
