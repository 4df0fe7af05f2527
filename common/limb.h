/*
 * limb.h - 64-bit limb helpers shared by the arithmetic templates.
 *
 * All helpers are branch-free static inline functions on uint64_t limbs;
 * double-width products go through unsigned __int128, which gcc turns into
 * mul/adc/sbb sequences on x86-64.
 */
#ifndef SLOTPROVE_LIMB_H
#define SLOTPROVE_LIMB_H

#include <stddef.h>
#include <stdint.h>

/* Token pasting with macro expansion of both arguments (used by the
 * *_tmpl.h headers to build names such as bn254_fr_mul). */
#define TMPL_CAT_(a, b) a##b
#define TMPL_CAT(a, b) TMPL_CAT_(a, b)

/* Ask gcc to fully unroll the following fixed-trip-count loop. */
#define TMPL_UNROLL _Pragma("GCC unroll 16")

/* Keeps a large template function out of line (one copy per translation
 * unit and field): measured as fast as inlining for the Montgomery product,
 * with far less code and compile time. */
#define TMPL_NOINLINE __attribute__((noinline, unused))

typedef unsigned __int128 limb_u128;

/* gcc on x86-64: the carry builtins compile to clean adc/sbb chains (the
 * __int128 formulation does not, with gcc 12). Elsewhere (clang handles
 * __int128 carries well) use __int128. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LIMB_X86_BUILTINS 1
#else
#define LIMB_X86_BUILTINS 0
#endif

/* x86-64 with gcc or clang (host code): the mulx/adcx/adox Montgomery
 * multiplication of mont_adx.h is compiled in and used when the CPU has
 * BMI2 and ADX (decided once at start-up, see limb_x86.c); elsewhere only
 * the portable C path exists. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define LIMB_ADX 1
#include "mont_adx.h"
/* 1 when the mulx/adcx/adox path is in use: the CPU reports BMI2 and ADX
 * (cpuid leaf 7) and $SLOTPROVE_NO_ADX is unset or empty. Set before main()
 * by a constructor in limb_x86.c; 0 (portable path) until then. */
extern int limb_adx_enabled;
#else
#define LIMB_ADX 0
#endif

/* 1 if field multiplications take the mulx/adcx/adox path, else 0. */
static inline int limb_have_adx(void)
{
#if LIMB_ADX
    return limb_adx_enabled;
#else
    return 0;
#endif
}

/* Returns the low 64 bits of a + b + *carry; *carry (0 or 1 on input)
 * receives the carry out (0 or 1). */
static inline uint64_t limb_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
#if LIMB_X86_BUILTINS
    unsigned long long r;
    *carry = __builtin_ia32_addcarryx_u64((unsigned char)*carry, a, b, &r);
    return r;
#else
    limb_u128 t = (limb_u128)a + b + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
#endif
}

/* Returns the low 64 bits of a - b - *borrow; *borrow (0 or 1 on input)
 * receives the borrow out (0 or 1). */
static inline uint64_t limb_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
#if LIMB_X86_BUILTINS
    unsigned long long r;
    *borrow = __builtin_ia32_sbb_u64((unsigned char)*borrow, a, b, &r);
    return r;
#else
    limb_u128 t = (limb_u128)a - b - *borrow;
    *borrow = (uint64_t)(t >> 64) & 1;
    return (uint64_t)t;
#endif
}

/* Multiply-accumulate: returns the low 64 bits of acc + a*b + *carry and
 * stores the high 64 bits in *carry (the sum always fits in 128 bits). */
static inline uint64_t limb_mac(uint64_t acc, uint64_t a, uint64_t b,
                                uint64_t *carry)
{
    limb_u128 t = (limb_u128)a * b + acc + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

/* Full product: returns the low 64 bits of a*b, *hi receives the high bits. */
static inline uint64_t limb_mul(uint64_t a, uint64_t b, uint64_t *hi)
{
    limb_u128 t = (limb_u128)a * b;
    *hi = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

/* All-ones mask if bit (0 or 1) is 1, zero mask otherwise. */
static inline uint64_t limb_mask(uint64_t bit)
{
    return (uint64_t)0 - bit;
}

/* Branch-free select: returns a if mask is all ones, b if mask is zero. */
static inline uint64_t limb_select(uint64_t mask, uint64_t a, uint64_t b)
{
    return (a & mask) | (b & ~mask);
}

/* 1 if x != 0, else 0 (branch-free). */
static inline uint64_t limb_nonzero(uint64_t x)
{
    return (x | ((uint64_t)0 - x)) >> 63;
}

#endif /* SLOTPROVE_LIMB_H */
