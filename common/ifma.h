/*
 * ifma.h - whether the AVX-512 IFMA kernels run, for both curves'
 * vector lanes (fp381_ifma.h: BLS12-381, fp254_ifma.h: BN254), and the
 * target attribute and digit mask their kernel headers share.
 *
 * Decided once, before main(): ifma_supported() is 1 where cpuid (and the
 * OS's saved vector state) reports AVX-512F and IFMA; ifma_enabled() is
 * that and $SLOTPROVE_NO_IFMA unset or empty. Callers keep their scalar
 * path for the other case.
 */
#ifndef SLOTPROVE_IFMA_H
#define SLOTPROVE_IFMA_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define IFMA_X86 1
#include <immintrin.h>
/* kernels are compiled for AVX-512F + IFMA by attribute, run only where
 * ifma_supported() is 1 */
#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#else
#define IFMA_X86 0
#endif

/* the low 52 bits: one radix-2^52 digit, what vpmadd52luq/huq multiply */
#define M52 ((1ULL << 52) - 1)

/* 1 when the IFMA kernels are in use, else 0. */
int ifma_enabled(void);

/* 1 when the CPU and OS can run the IFMA kernels at all (whatever
 * $SLOTPROVE_NO_IFMA says), else 0. */
int ifma_supported(void);

#endif
