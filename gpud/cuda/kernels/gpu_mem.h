/*
 * gpu_mem.h — the device memory ledger: every device allocation of the
 * kernels (resident key points, streamed-point staging, worker vectors, NTT
 * tables, MSM buckets/sort buffers, keygen tables) goes through
 * gpu_mem_alloc, which charges it to one part and refuses what would pass
 * the budget, so a process never asks the device for more than its budget
 * (--gpu-mem); and every page-locking of host memory goes through
 * gpu_mem_register, which charges what the lock costs the device (the
 * "pinned" part). One ledger per process (the device is the process's one
 * CUDA device). Thread-safe.
 *
 * Errors: -ENOMEM when the budget or the device cannot give the bytes (the
 * message names what was being allocated, the MiB, and the CUDA error or
 * the budget), -EIO for another CUDA error. Fault tests: the fault point
 * "gpu-alloc" (common/fault_point.h), its subject the allocation's name
 * (e.g. "msm stage", "sort keys", "ntt twiddles", "vectors"), makes that
 * allocation fail as cudaErrorMemoryAllocation would.
 */
#ifndef SLOTPROVE_CUDA_GPU_MEM_H
#define SLOTPROVE_CUDA_GPU_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

enum gpu_mem_part {
    GPU_MEM_POINTS,  /* resident key points */
    GPU_MEM_STREAM,  /* staging buffers of streamed points */
    GPU_MEM_VECTORS, /* the workers' a, b, c (lean), scratch, LDE outputs, witness */
    GPU_MEM_NTT,     /* NTT twiddle and coset tables */
    GPU_MEM_MSM,     /* MSM buckets, sort buffers, scalars, CUB scratch */
    GPU_MEM_PINNED,  /* what page-locked host memory costs the device (gpu_mem_register) */
    GPU_MEM_OTHER,   /* keygen tables, test buffers */
    GPU_MEM_NPARTS
};

/* Device bytes kept back from the default budget: the CUDA context, CUB's
 * and the driver's own allocations, other processes' growth. 1 GiB plus
 * 1/32 of the device (5.4 GiB on a 139.8 GiB H200). */
size_t gpu_mem_margin(size_t total_bytes);

/* What an explicit budget (--gpu-mem, the whole of what this process may
 * hold on the device) must leave outside the ledger, the device memory the
 * driver takes for this process beside cudaMalloc:
 *   the memory in use when called (this process's CUDA context and, loaded
 *     eagerly with it, the kernels' modules: gpud sets
 *     CUDA_MODULE_LOADING=EAGER), at most 1 GiB;
 *   local memory: what local_per_thread bytes (the most any kernel takes;
 *     BLS12-381 G2's window-sum kernels: about 3.1 KB) add to the stack
 *     reserved with the context (cudaLimitStackSize, 1 KiB), × the device's
 *     resident threads (SMs × threads per SM): the driver grows local
 *     memory so at the first launch of the kernel that needs it and keeps
 *     it (264 MiB a KiB on an H200: 132 SMs × 2048 threads);
 *   GPU_MEM_DRIVER_SLACK for the driver's own allocations later (streams'
 *     and events' resources, CUB's launch state).
 * 0 when the device cannot be asked. */
#define GPU_MEM_DRIVER_SLACK ((size_t)64 << 20)
size_t gpu_mem_context_reserve(size_t local_per_thread);

/* What the ledger charges for an allocation of bytes: rounded up to the
 * driver's 2 MiB page (cudaMalloc maps device memory in 2 MiB pages on
 * sm_70 and later, so N small buffers hold up to N pages, which the device's
 * own count shows); 0 for 0. Every plan of device bytes (gpu_msm_plan,
 * gpu_ntt_plan, cuda_budget.c) sums these, buffer by buffer. */
#define GPU_MEM_GRANULE ((size_t)2 << 20)
size_t gpu_mem_charge(size_t bytes);

/* Sets the budget in bytes; 0: the device's free memory now less
 * gpu_mem_margin (the default). Returns the budget set, or 0 with e set when
 * the device cannot be asked. */
size_t gpu_mem_set_budget(size_t bytes, struct sp_err *e);
/* The budget (0 before gpu_mem_set_budget: unbounded). */
size_t gpu_mem_budget(void);
/* Bytes held now: in total, in part (GPU_MEM_NPARTS: the total), and the
 * highest total since start. */
size_t gpu_mem_used(enum gpu_mem_part part);
size_t gpu_mem_peak(void);
/* What is left of the budget ((size_t)-1 when unbounded). */
size_t gpu_mem_left(void);
const char *gpu_mem_part_name(enum gpu_mem_part part);
/* One line: "budget 16.00 GiB, 11.20 used (points 0.00, stream 1.00, …), peak 12.00". */
void gpu_mem_describe(char *buf, size_t len);

/* *ret ← bytes of device memory (gpu_mem_charge(bytes) charged) to part; what names it in errors
 * and for the fault point. 0 bytes: *ret = NULL, 0. */
int gpu_mem_alloc(void **ret, size_t bytes, enum gpu_mem_part part, const char *what,
                  struct sp_err *e);
/* Frees what gpu_mem_alloc gave (NULL: nothing). */
void gpu_mem_free(void *p);

/* Page-locked host memory. Locking host memory (cudaHostRegister) costs
 * device memory that no cudaMalloc shows: the driver's mapping of the
 * locked pages for the device (page tables and their bookkeeping, about
 * proportional to the bytes locked). Measured on the H200 on 2026-12-02: a
 * 2^27 BLS12-381 proof under --gpu-mem 16G with its 51.45 GiB key file
 * and its 14 GiB slot pool page-locked held 16,391 MiB of device memory
 * (nvidia-smi), 7 MiB over the budget: the ledger held 14.85 GiB of its
 * 14.89 and the reserve (gpu_mem_context_reserve) was 1137 MiB, so about
 * 48 MiB beyond both, up to 112 MiB if none of the reserve's 64 MiB of
 * driver slack went to the driver's own allocations: 48–112 MiB for 65.45
 * GiB locked (0.7–1.7 MiB per GiB). The charge of one lock of `bytes`:
 *   floor    2 MiB per GiB locked, rounded up (⌈bytes / GiB⌉ × 2 MiB): one
 *            8-byte page-table entry per 4 KiB host page (4 KiB / 8 B =
 *            512, GiB / 512 = 2 MiB), at or above what the H200 run shows,
 *            and charged when the measurement reads less (cudaMemGetInfo
 *            counts in 2 MiB pages, so a small lock reads 0);
 *   ceiling  2 × floor + 2 MiB: a measurement above it is another
 *            thread's or process's allocation between the two readings,
 *            not this lock's;
 *   charged  the measured growth of the device's use (cudaMemGetInfo before
 *            and after the lock) rounded up to 2 MiB, within [floor,
 *            ceiling]. gpu_test's pinned_check prints the measurement of an
 *            8 GiB lock. 0 bytes: 0. */
#define GPU_MEM_PIN_PER_GIB ((size_t)2 << 20)
size_t gpu_mem_pin_floor(size_t bytes);
size_t gpu_mem_pin_ceiling(size_t bytes);
size_t gpu_mem_pin_charge(size_t bytes, size_t measured);

struct gpu_mem_pin {
    size_t measured; /* the device's use grew by this (bytes; 0 when it shrank) */
    size_t charged;  /* charged to GPU_MEM_PINNED: gpu_mem_pin_charge(bytes, measured) */
};
/* Page-locks bytes of host memory at p (cudaHostRegister, portable,
 * read-only: gpud maps the slot pool and keys PROT_READ) and charges its
 * device cost to GPU_MEM_PINNED (above); *pin (may be NULL) ← what was
 * measured and charged. The ceiling is charged first, so a lock never
 * passes the budget: -ENOMEM naming what (e.g. "slot pool", "key file")
 * and the budget when the ceiling does not fit (nothing locked); -EIO (or
 * -ENOMEM) with CUDA's error when the driver refuses. Locks are serialized
 * with each other, not with allocations: those clamp into the bounds. */
int gpu_mem_register(void *p, size_t bytes, const char *what, struct gpu_mem_pin *pin,
                     struct sp_err *e);
/* Unlocks what gpu_mem_register locked at p and releases its charge (p not
 * locked by it: nothing). */
void gpu_mem_unregister(void *p);

#ifdef __cplusplus
}
#endif

#endif
