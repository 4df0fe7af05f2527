/*
 * synth_tmpl.h — Groth16 synthesis for one curve's Fr: a = A·w, b = B·w.
 * c = a∘b is not synthd's: gpud forms it from the slot's a and b (the C
 * matrix is not needed for a satisfied circuit; snarkjs buildABC1,
 * rapidsnark groth16.cpp form c the same way). A "C template": define SC
 * (curve prefix) and include; it defines SC##_synth_ab (synth.h). The
 * coefficient classes are synth_class_tmpl.h's.
 *
 * Output form (shm/payload.h): a = A·w and b = B·w in standard form, each
 * fully reduced (< r). Per row and matrix, no Montgomery product:
 *   - terms with v = ±1 or a small ±s (synth_index.h) go, in standard form,
 *     into a 5-limb sum V that is never reduced on the way: +w, r − w, s·w
 *     or s·(r − w), each below 2^24·r, at most 2^32 of them: below 2^311;
 *   - general terms (the index holds v·R, Montgomery form) add the plain
 *     256 × 256-bit product v·R·w into an 8-limb sum W, also unreduced;
 *     when W has terms, its low half is Montgomery-reduced alone
 *     (u = (W_lo + m·r)/2^256 ≡ W_lo·R^-1, u ≤ r) and u and W's high half
 *     (W_hi·2^256·R^-1 = W_hi) join V: W·R^-1 = Σ v·w;
 *   - V, below 2^312, is reduced mod r with one quotient estimate (a
 *     64 × 64-bit product) and at most two subtractions (S_(reduce5)).
 * A row whose terms are all ±1 or small (most rows of circom circuits)
 * costs no Montgomery reduction at all.
 * The old path (37c1b06) did a full product per term and wrote Montgomery
 * form; tests/test_synth.c checks both curves against a naive loop in the
 * documented form, with the ADX and the portable code.
 *
 * The witness values of row k + SYNTH_BATCH_ROWS are prefetched as row k is
 * summed, so the random loads of the witness (512 MiB at 2^24) overlap the
 * arithmetic. Threads take the index's
 * chunks (equal numbers of stream words) one at a time.
 */
#include <gmp.h>
#include <string.h>

#include "parallel.h"

#define SC_CAT2(a, b) a##_##b
#define SC_CAT(a, b) SC_CAT2(a, b)
#define S_(name) SC_CAT(SC, name)

#ifndef SYNTH_BATCH_ROWS
#define SYNTH_BATCH_ROWS 16 /* prefetch distance in rows; 0: no prefetch */
#endif
#ifndef SYNTH_PREFETCH_LOCALITY
#define SYNTH_PREFETCH_LOCALITY 0
#endif
/* Non-temporal stores of a and b (synth.h, synth_nt_min_rows): 1 always,
 * 0 never, -1 (default) from synth_nt_min_rows rows. */
#ifndef SYNTH_NT_STORES
#define SYNTH_NT_STORES (-1)
#endif
/* non-temporal stores for the zero rows (SSE2's movnti: every x86-64) */
#if defined(__x86_64__) && defined(__GNUC__)
#define SYNTH_X86_NT 1
#else
#define SYNTH_X86_NT 0
#endif
#if SYNTH_X86_NT
#include <immintrin.h>
#endif

struct S_(synth_ctx) {
    const struct synth_index *ix;
    const S_(fr_t) *w;
    S_(fr_t) *a, *b;
    int nt;        /* a and b stored non-temporally (SYNTH_NT_STORES) */
};

/* V += x (x < 2^256, as 4 limbs). */
static inline void S_(wide_add)(uint64_t V[5], const uint64_t x[4])
{
    uint64_t c = 0;
    V[0] = limb_adc(V[0], x[0], &c);
    V[1] = limb_adc(V[1], x[1], &c);
    V[2] = limb_adc(V[2], x[2], &c);
    V[3] = limb_adc(V[3], x[3], &c);
    V[4] += c;
}

/* V += s·x (s < 2^32). */
static inline void S_(wide_add_small)(uint64_t V[5], const uint64_t x[4], uint64_t s)
{
    uint64_t hi0, hi1, hi2, hi3, c = 0;
    uint64_t l0 = limb_mul(x[0], s, &hi0), l1 = limb_mul(x[1], s, &hi1);
    uint64_t l2 = limb_mul(x[2], s, &hi2), l3 = limb_mul(x[3], s, &hi3);
    l1 = limb_adc(l1, hi0, &c);
    l2 = limb_adc(l2, hi1, &c);
    l3 = limb_adc(l3, hi2, &c);
    hi3 += c;
    c = 0;
    V[0] = limb_adc(V[0], l0, &c);
    V[1] = limb_adc(V[1], l1, &c);
    V[2] = limb_adc(V[2], l2, &c);
    V[3] = limb_adc(V[3], l3, &c);
    V[4] += hi3 + c;
}

/* ret = p − x (x ≤ p; x = 0 gives p, which sums like 0). */
static inline void S_(p_minus)(uint64_t ret[4], const uint64_t x[4])
{
    uint64_t bw = 0;
    ret[0] = limb_sbb(S_(fr_modulus).l[0], x[0], &bw);
    ret[1] = limb_sbb(S_(fr_modulus).l[1], x[1], &bw);
    ret[2] = limb_sbb(S_(fr_modulus).l[2], x[2], &bw);
    ret[3] = limb_sbb(S_(fr_modulus).l[3], x[3], &bw);
}

/* W += a·b (a, b < 2^256 as 4 limbs; W 8 limbs, no overflow by the
 * caller's bound): mont_adx.h's mulx product where fr_mul takes that path,
 * else a schoolbook one. */
static inline __attribute__((always_inline)) void S_(wide_mac)(uint64_t W[8], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t s[8], c = 0;
#if LIMB_ADX
    if (S_(fr_uses_adx)()) {
        limb_mul_wide_adx4(s, a, b);
    } else
#endif
    {
        for (int j = 0; j < 8; j++)
            s[j] = 0;
        TMPL_UNROLL
        for (int i = 0; i < 4; i++) {
            uint64_t C = 0;
            TMPL_UNROLL
            for (int j = 0; j < 4; j++)
                s[i + j] = limb_mac(s[i + j], a[j], b[i], &C);
            s[i + 4] = C;
        }
    }
    TMPL_UNROLL
    for (int j = 0; j < 8; j++)
        W[j] = limb_adc(W[j], s[j], &c);
}

/* V += u + H with u = W_lo·2^-256 mod r, u ≤ r (Montgomery reduction of
 * W's low half alone: (W_lo + m·r)/2^256) and H = W_hi (W's high half):
 * u + H ≡ W·R^-1 (mod r). V stays below 2^312 (S_(synth_ab)'s bound). */
static inline __attribute__((always_inline)) void S_(fold)(uint64_t V[5], const uint64_t W[8])
{
    uint64_t u[4], c = 0;
#if LIMB_ADX
    if (S_(fr_uses_adx)()) {
        const uint64_t T[8] = { W[0], W[1], W[2], W[3], 0, 0, 0, 0 };
        limb_mont_redc_adx4(u, T, S_(fr_modulus).l, &S_(fr_n0));
    } else
#endif
    {
        for (int j = 0; j < 4; j++)
            u[j] = W[j];
        TMPL_UNROLL
        for (int i = 0; i < 4; i++) {
            uint64_t m = u[0] * S_(fr_n0), C = 0;
            (void)limb_mac(u[0], m, S_(fr_modulus).l[0], &C);
            TMPL_UNROLL
            for (int j = 1; j < 4; j++)
                u[j - 1] = limb_mac(u[j], m, S_(fr_modulus).l[j], &C);
            u[3] = C;
        }
    }
    V[0] = limb_adc(V[0], u[0], &c);
    V[1] = limb_adc(V[1], u[1], &c);
    V[2] = limb_adc(V[2], u[2], &c);
    V[3] = limb_adc(V[3], u[3], &c);
    V[4] += c;
    S_(wide_add)(V, W + 4);
}

/* The curve's constants for the row sums, set once when the program starts
 * (S_(synth_init), with GMP) so that S_(reduce5)'s assembly reads them
 * RIP-relative: floor(2^312 / r) (< 2^59 on both curves), 2r over 5
 * limbs, and kmax, the general products W holds before a fold: k products
 * v·R·w, each below r² (v·R, w < r), need k·r² < 2^512; with t the top limb
 * of r (r < (t + 1)·2^192) k·(t + 1)² ≤ 2^128 − 1 is enough: BN254 27,
 * BLS12-381 4 (before 2026-12-03, when a and b left synthd as a·R^-1 and W
 * was reduced whole, its bound was r·2^256: 5 and 2). V's bound: a
 * ±1/small term adds below 2^24·r < 2^279, a fold of W below r + 2^256 <
 * 2^279, at most 2^32 of either: V < 2^311, so adding the last fold leaves
 * it below 2^312 (S_(reduce5)). */
static uint64_t S_(mu_312);
static uint64_t S_(two_r)[5];
static unsigned S_(kmax);

__attribute__((constructor)) static void S_(synth_init)(void)
{
    mpz_t r, t;
    mpz_inits(r, t, NULL);
    mpz_import(r, 4, -1, 8, 0, 0, S_(fr_modulus).l);
    mpz_ui_pow_ui(t, 2, 312);
    mpz_fdiv_q(t, t, r);
    S_(mu_312) = mpz_get_ui(t);
    mpz_mul_2exp(t, r, 1);
    mpz_export(S_(two_r), NULL, -1, 8, 0, 0, t);
    mpz_clears(r, t, NULL);
    unsigned __int128 t1 = (unsigned __int128)(S_(fr_modulus).l[3] + 1);
    S_(kmax) = (unsigned)(~(unsigned __int128)0 / (t1 * t1));
}

/* ret = V mod r, fully reduced, for a 5-limb V < 2^312: q̂ =
 * floor((V >> 248)·mu / 2^64) with mu = floor(2^312 / r) is at most
 * floor(V / r) and at most 2 below it (the two floors and V's dropped low
 * bits lose less than 1 each, mu·2^-64 < 2^-5 more), so y = V − q̂·r < 3r
 * (5 limbs: 3r > 2^256 on BLS12-381), and the result is the one of y − 2r,
 * y − r, y that does not borrow, all three formed side by side (a Barrett
 * reduction with a one-word quotient; HAC 14.42). With BMI2 and ADX (as
 * fr_mul's fast path) in assembly: gcc's own code chained the two
 * subtractions' carries through setb and branched on them. */
static inline __attribute__((always_inline)) void S_(reduce5)(S_(fr_t) *ret, const uint64_t V[5])
{
    const uint64_t *r = S_(fr_modulus).l, *r2 = S_(two_r);
    uint64_t y0 = V[0], y1 = V[1], y2 = V[2], y3 = V[3], y4 = V[4];
    uint64_t q = (uint64_t)(((unsigned __int128)(y4 << 8 | y3 >> 56) * S_(mu_312)) >> 64);
#if LIMB_ADX
    if (S_(fr_uses_adx)()) {
        uint64_t z0, z1, z2, z3, d0, d1, d2, d3;
        __asm__("mulxq %[r0], %[z0], %[d0]\n\t" /* q·r: lows in z, highs in d */
                "mulxq %[r1], %[z1], %[d1]\n\t"
                "mulxq %[r2], %[z2], %[d2]\n\t"
                "mulxq %[r3], %[z3], %[d3]\n\t"
                "addq %[d0], %[z1]\n\t"
                "adcq %[d1], %[z2]\n\t"
                "adcq %[d2], %[z3]\n\t"
                "adcq $0, %[d3]\n\t"
                "subq %[z0], %[y0]\n\t" /* y = V − q·r */
                "sbbq %[z1], %[y1]\n\t"
                "sbbq %[z2], %[y2]\n\t"
                "sbbq %[z3], %[y3]\n\t"
                "sbbq %[d3], %[y4]\n\t"
                "movq %[y0], %[d0]\n\t" /* d = y − 2r; rdx = −borrow */
                "subq %[s0], %[d0]\n\t"
                "movq %[y1], %[d1]\n\t"
                "sbbq %[s1], %[d1]\n\t"
                "movq %[y2], %[d2]\n\t"
                "sbbq %[s2], %[d2]\n\t"
                "movq %[y3], %[d3]\n\t"
                "sbbq %[s3], %[d3]\n\t"
                "movq %[y4], %%rdx\n\t"
                "sbbq %[s4], %%rdx\n\t"
                "sbbq %%rdx, %%rdx\n\t"
                "movq %[y0], %[z0]\n\t" /* z = y − r */
                "subq %[r0], %[z0]\n\t"
                "movq %[y1], %[z1]\n\t"
                "sbbq %[r1], %[z1]\n\t"
                "movq %[y2], %[z2]\n\t"
                "sbbq %[r2], %[z2]\n\t"
                "movq %[y3], %[z3]\n\t"
                "sbbq %[r3], %[z3]\n\t"
                "sbbq $0, %[y4]\n\t"
                "cmovncq %[z0], %[y0]\n\t" /* y ≥ r: y − r */
                "cmovncq %[z1], %[y1]\n\t"
                "cmovncq %[z2], %[y2]\n\t"
                "cmovncq %[z3], %[y3]\n\t"
                "testq %%rdx, %%rdx\n\t" /* y ≥ 2r: y − 2r */
                "cmovzq %[d0], %[y0]\n\t"
                "cmovzq %[d1], %[y1]\n\t"
                "cmovzq %[d2], %[y2]\n\t"
                "cmovzq %[d3], %[y3]\n\t"
                : [y0] "+r"(y0), [y1] "+r"(y1), [y2] "+r"(y2), [y3] "+r"(y3), [y4] "+r"(y4),
                  [z0] "=&r"(z0), [z1] "=&r"(z1), [z2] "=&r"(z2), [z3] "=&r"(z3),
                  [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3), "+d"(q)
                : [r0] "m"(r[0]), [r1] "m"(r[1]), [r2] "m"(r[2]), [r3] "m"(r[3]),
                  [s0] "m"(r2[0]), [s1] "m"(r2[1]), [s2] "m"(r2[2]), [s3] "m"(r2[3]), [s4] "m"(r2[4])
                : "cc");
        ret->l[0] = y0;
        ret->l[1] = y1;
        ret->l[2] = y2;
        ret->l[3] = y3;
        return;
    }
#endif
    uint64_t h0, h1, h2, h3, c = 0, bw = 0;
    uint64_t p0 = limb_mul(q, r[0], &h0), p1 = limb_mul(q, r[1], &h1);
    uint64_t p2 = limb_mul(q, r[2], &h2), p3 = limb_mul(q, r[3], &h3);
    p1 = limb_adc(p1, h0, &c);
    p2 = limb_adc(p2, h1, &c);
    p3 = limb_adc(p3, h2, &c);
    uint64_t p4 = h3 + c;
    y0 = limb_sbb(y0, p0, &bw);
    y1 = limb_sbb(y1, p1, &bw);
    y2 = limb_sbb(y2, p2, &bw);
    y3 = limb_sbb(y3, p3, &bw);
    y4 = y4 - p4 - bw;
    for (int i = 0; i < 2; i++) { /* y −= r while y ≥ r */
        uint64_t z0, z1, z2, z3;
        bw = 0;
        z0 = limb_sbb(y0, r[0], &bw);
        z1 = limb_sbb(y1, r[1], &bw);
        z2 = limb_sbb(y2, r[2], &bw);
        z3 = limb_sbb(y3, r[3], &bw);
        uint64_t z4 = limb_sbb(y4, 0, &bw);
        if (!bw)
            y0 = z0, y1 = z1, y2 = z2, y3 = z3, y4 = z4;
    }
    ret->l[0] = y0;
    ret->l[1] = y1;
    ret->l[2] = y2;
    ret->l[3] = y3;
}

/* *dst = *v: a and b are written once and read by gpud, not here: with
 * nt, non-temporal stores that skip the read-for-ownership. */
static inline void S_(store)(S_(fr_t) *dst, const S_(fr_t) *v, int nt)
{
#if SYNTH_X86_NT
    if (nt) {
        for (int i = 0; i < 4; i++)
            _mm_stream_si64((long long *)&dst->l[i], (long long)v->l[i]);
        return;
    }
#endif
    (void)nt;
    *dst = *v;
}

/* The sum of one row's terms of one matrix, stream words [p, end), stored
 * at *out as Σ v·w mod r (standard form, < r) with S_(store), straight
 * from registers (a copy through the stack cost a failed store forward
 * per row: 16-byte loads of two 8-byte stores). */
static inline void S_(row_sum)(const struct S_(synth_ctx) *x, const uint32_t *p,
                               const uint32_t *end, S_(fr_t) *out)
{
    uint64_t V[5] = { 0, 0, 0, 0, 0 }, W[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, y[4];
    unsigned k = 0;
    if (end - p == 1 && *p >> SYNTH_SIGNAL_BITS == SYNTH_ONE) {
        /* one term, +1·w (a row's lone signal, common in circom's A and B):
         * w itself, already below r (checked when read) */
        S_(store)(out, &x->w[*p & SYNTH_SIGNAL_MASK], x->nt);
        return;
    }
    while (p < end) {
        uint32_t tag = *p++;
        const uint64_t *wv = x->w[tag & SYNTH_SIGNAL_MASK].l;
        switch (tag >> SYNTH_SIGNAL_BITS) {
        case SYNTH_ONE:
            S_(wide_add)(V, wv);
            break;
        case SYNTH_NEG_ONE:
            S_(p_minus)(y, wv);
            S_(wide_add)(V, y);
            break;
        case SYNTH_SMALL: {
            uint32_t s = *p++;
            if (s >> 31) {
                S_(p_minus)(y, wv);
                S_(wide_add_small)(V, y, s & 0x7fffffffu);
            } else {
                S_(wide_add_small)(V, wv, s);
            }
            break;
        }
        default: {
            uint64_t cf[4];
            memcpy(cf, p, 32);
            p += 8;
            if (k == S_(kmax)) { /* W would pass 2^512: fold it into V now */
                S_(fold)(V, W);
                memset(W, 0, sizeof(W));
                k = 0;
            }
            S_(wide_mac)(W, cf, wv);
            k++;
            break;
        }
        }
    }
    if (k)
        S_(fold)(V, W);
    S_(fr_t) t;
    S_(reduce5)(&t, V);
    S_(store)(out, &t, x->nt);
}

/* Splits a row header at p into the A and B word counts; returns the first
 * term word. */
static inline const uint32_t *S_(row_header)(const uint32_t *p, uint32_t *wa, uint32_t *wb)
{
    uint32_t h = *p++;
    if (h == SYNTH_ROW_ESCAPE) {
        *wa = p[0];
        *wb = p[1];
        return p + 2;
    }
    *wa = h & 0xffff;
    *wb = h >> 16;
    return p;
}

/* Prefetches the witness values of rows [r, r_end) starting at stream word
 * p; returns the stream position after them. */
static inline const uint32_t *S_(prefetch_rows)(const struct S_(synth_ctx) *x, const uint32_t *p,
                                                uint32_t r, uint32_t r_end)
{
    static const uint8_t words[4] = { 1, 1, 2, 9 };
    for (; r < r_end; r++) {
        uint32_t wa, wb;
        p = S_(row_header)(p, &wa, &wb);
        const uint32_t *q = p + wa + wb;
        while (p < q) {
            uint32_t tag = *p;
            __builtin_prefetch(&x->w[tag & SYNTH_SIGNAL_MASK], 0, SYNTH_PREFETCH_LOCALITY);
            p += words[tag >> SYNTH_SIGNAL_BITS];
        }
    }
    return p;
}

/* One row: its A and B sums at stream word *p (moved past them). */
static inline void S_(synth_row)(const struct S_(synth_ctx) *x, const uint32_t **pp, uint32_t r)
{
    uint32_t wa, wb;
    const uint32_t *p = S_(row_header)(*pp, &wa, &wb);
    S_(row_sum)(x, p, p + wa, &x->a[r]);
    S_(row_sum)(x, p + wa, p + wa + wb, &x->b[r]);
    *pp = p + wa + wb;
}

/* Rows [r0, r1) have no terms (a domain's padding past the last
 * constraint): a and b are zero there. Runs of SYNTH_ZERO_RUN rows or more
 * are written with non-temporal stores, which skip the read-for-ownership
 * of lines nothing will read back here (at a 2^27 domain with 2^26 + 1
 * constraints that is 4 GiB of a and b a partition); returns 1 if it used
 * them (the caller fences before it reports done). */
#define SYNTH_ZERO_RUN 64
static inline int S_(zero_rows)(const struct S_(synth_ctx) *x, uint32_t r0, uint32_t r1)
{
#if SYNTH_X86_NT
    if (r1 - r0 >= SYNTH_ZERO_RUN) {
        long long *da = (long long *)&x->a[r0], *db = (long long *)&x->b[r0];
        size_t nw = (size_t)(r1 - r0) * (sizeof(S_(fr_t)) / 8);
        for (size_t i = 0; i < nw; i++) {
            _mm_stream_si64(da + i, 0);
            _mm_stream_si64(db + i, 0);
        }
        return 1;
    }
#endif
    memset(&x->a[r0], 0, (size_t)(r1 - r0) * sizeof(S_(fr_t)));
    memset(&x->b[r0], 0, (size_t)(r1 - r0) * sizeof(S_(fr_t)));
    return 0;
}

static void S_(synth_chunks)(void *arg, size_t kb, size_t ke)
{
    const struct S_(synth_ctx) *x = arg;
    int streamed = 0;
    for (size_t k = kb; k < ke; k++) {
        uint32_t r = x->ix->chunks[k].row, r_end = x->ix->chunks[k + 1].row;
        const uint32_t *p = x->ix->stream + x->ix->chunks[k].word;
#if SYNTH_BATCH_ROWS > 0
        /* the rows' first SYNTH_BATCH_ROWS prefetched, then one more row's
         * witness values with each row summed: a steady few loads in flight
         * (a burst of a whole batch's prefetches stalled on the full miss
         * buffers, about 5% slower on the 2-core box at 2^18 and 2^20) */
        uint32_t rp = r + SYNTH_BATCH_ROWS < r_end ? r + SYNTH_BATCH_ROWS : r_end;
        const uint32_t *pf = S_(prefetch_rows)(x, p, r, rp);
#endif
        while (r < r_end) {
            if (*p == 0) { /* a run of rows without terms (header word 0) */
                uint32_t r0 = r;
                while (r < r_end && *p == 0)
                    p++, r++;
                streamed |= S_(zero_rows)(x, r0, r);
#if SYNTH_BATCH_ROWS > 0
                if (rp < r) /* the prefetch cursor caught up */
                    pf = p, rp = r;
#endif
                continue;
            }
#if SYNTH_BATCH_ROWS > 0
            if (rp < r_end) {
                pf = S_(prefetch_rows)(x, pf, rp, rp + 1);
                rp++;
            }
#endif
            S_(synth_row)(x, &p, r);
            r++;
        }
    }
#if SYNTH_X86_NT
    if (x->nt || streamed)
        _mm_sfence(); /* the streamed stores visible before this thread reports done */
#endif
    (void)streamed;
}

void S_(synth_reduce_wide)(uint64_t out[4], const uint64_t v[5])
{
    S_(fr_t) t;
    S_(reduce5)(&t, v);
    memcpy(out, t.l, 32);
}

void S_(synth_ab)(const struct synth_index *ix, const struct zkey *zk,
                  const void *witness, void *a, void *b, unsigned nthreads)
{
    (void)zk;
    struct S_(synth_ctx) x = { .ix = ix, .w = witness, .a = a, .b = b };
    x.nt = SYNTH_NT_STORES < 0 ? ix->domain_size >= synth_nt_min_rows : SYNTH_NT_STORES;
    parallel_for(ix->n_chunks, 1, nthreads, S_(synth_chunks), &x);
}

#undef S_
#undef SC_CAT
#undef SC_CAT2
#undef SC
