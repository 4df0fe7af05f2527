/*
 * select.h — which backend gpud proves on (above every backend: the only
 * file that names them).
 *
 *   backend_open(be, name, nthreads, e)
 * name: "cpu"; "cuda" (-ENODEV naming the reason when this gpud has no CUDA
 * backend or no device is visible); or "auto" (CUDA when built in and a
 * device is present, with partitions the GPU cannot take proved on the CPU;
 * else CPU). The CUDA backend gets an open CPU backend as be->fallback in
 * both cases (its re-proves), and under "auto" also fallback_on_fault.
 * nthreads: the CPU backend's threads. -ENOENT for an unknown name,
 * -ENOMEM, or the backend's own open error.
 *
 *   backend_set_device_mem(bytes, share)
 * Before backend_open: the device memory budget (--gpu-mem) in bytes that
 * a device backend opened next may use (0: its default), and how many
 * gpuds share the device (--gpu-share; 0 or 1: alone); see backend.h's
 * device_mem and device_share.
 *
 *   backend_close(be)
 * Closes be, then its fallback (if any) and frees it.
 */
#ifndef SLOTPROVE_SELECT_H
#define SLOTPROVE_SELECT_H

#include <stddef.h>

#include "backend.h"
#include "err.h"

int backend_open(struct backend *be, const char *name, unsigned nthreads, struct sp_err *e);
void backend_close(struct backend *be);
void backend_set_device_mem(size_t bytes, unsigned share);

#endif
