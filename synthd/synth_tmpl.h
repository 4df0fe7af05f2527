/*
 * synth_tmpl.h — Groth16 synthesis for one curve's Fr: a = A·w, b = B·w.
 * c = a∘b is not synthd's: gpud forms it from the slot's a and b (the C
 * matrix is not needed for a satisfied circuit; snarkjs buildABC1,
 * rapidsnark groth16.cpp form c the same way). A "C template": define SC
 * (curve prefix) and include; it defines SC##_synth_ab (synth.h). The
 * coefficient classes are synth_class_tmpl.h's.
 *
 * Output form (shm/payload.h): a and b are written as A·w·R^-1 mod r and
 * B·w·R^-1 mod r (R = 2^256); gpud's Montgomery product of the two is
 * (A·w)(B·w)·R^-3, and its H pass multiplies by R^4 where it used to leave
 * Montgomery form (the same one product), so the proof is unchanged. That
 * form costs a row one Montgomery reduction per matrix and no conversion
 * product:
 *   - terms with v = ±1 or a small ±s (synth_index.h) go, in standard form,
 *     into a 5-limb sum that is never reduced on the way: +w, p − w, s·w or
 *     s·(p − w), each below 2^24·p, at most 2^32 of them: below 2^311;
 *   - general terms (the index holds v in standard form) add the plain
 *     256 × 256-bit product v·w into an 8-limb sum, also unreduced;
 *   - at the row's end the two sums are added and Montgomery-reduced once
 *     (T·R^-1 mod r, needs T < r·2^256; a row with more than `kmax` general
 *     terms reduces every kmax of them on the way, see S_(synth_ab)).
 * The old path (37c1b06) did a full product per term and wrote Montgomery
 * form; tests/test_synth.c checks both curves against a naive loop in the
 * documented form, with the ADX and the portable code.
 *
 * The witness values of row k + SYNTH_BATCH_ROWS are prefetched as row k is
 * summed, so the random loads of the witness (512 MiB at 2^24) overlap the
 * arithmetic. Threads take the index's
 * chunks (equal numbers of stream words) one at a time.
 */
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
    unsigned kmax; /* general terms summed unreduced before a reduction */
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

/* ret = T·2^-256 mod r, fully reduced, for an 8-limb T < r·2^256
 * (Montgomery reduction: the low half reduced alone, u = (lo + m·r)/2^256
 * ≤ r, plus the high half (< r), below 2r, reduced once). */
static inline __attribute__((always_inline)) void S_(redc)(S_(fr_t) *ret, const uint64_t T[8])
{
    uint64_t t[4];
#if LIMB_ADX
    if (S_(fr_uses_adx)()) {
        limb_mont_redc_adx4(t, T, S_(fr_modulus).l, &S_(fr_n0));
        S_(fr_reduce_once_)(ret, t, 0);
        return;
    }
#endif
    uint64_t c = 0;
    for (int j = 0; j < 4; j++)
        t[j] = T[j];
    TMPL_UNROLL
    for (int i = 0; i < 4; i++) {
        uint64_t m = t[0] * S_(fr_n0), C = 0;
        (void)limb_mac(t[0], m, S_(fr_modulus).l[0], &C);
        TMPL_UNROLL
        for (int j = 1; j < 4; j++)
            t[j - 1] = limb_mac(t[j], m, S_(fr_modulus).l[j], &C);
        t[3] = C;
    }
    TMPL_UNROLL
    for (int j = 0; j < 4; j++)
        t[j] = limb_adc(t[j], T[4 + j], &c);
    S_(fr_reduce_once_)(ret, t, 0);
}

/* The sum of one row's terms of one matrix, stream words [p, end), into
 * *out as (Σ v·w)·R^-1 mod r. */
static inline void S_(row_sum)(const struct S_(synth_ctx) *x, const uint32_t *p,
                               const uint32_t *end, S_(fr_t) *out)
{
    uint64_t V[5] = { 0, 0, 0, 0, 0 }, W[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, y[4];
    S_(fr_t) M = { { 0 } }, t; /* M: set before use (has_m); initialized for gcc 13's -Wmaybe-uninitialized */
    unsigned k = 0;
    int has_m = 0;
    if (p == end) {
        S_(fr_set_zero)(out);
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
            if (k == x->kmax) { /* W would pass r·2^256: reduce it now */
                S_(redc)(&t, W);
                if (has_m)
                    S_(fr_add)(&M, &M, &t);
                else
                    M = t;
                has_m = 1;
                memset(W, 0, sizeof(W));
                k = 0;
            }
            S_(wide_mac)(W, cf, wv);
            k++;
            break;
        }
        }
    }
    uint64_t c = 0; /* W += V: k·r² + V < r·2^256 (S_(synth_ab)) */
    TMPL_UNROLL
    for (int j = 0; j < 5; j++)
        W[j] = limb_adc(W[j], V[j], &c);
    TMPL_UNROLL
    for (int j = 5; j < 8; j++)
        W[j] = limb_adc(W[j], 0, &c);
    S_(redc)(&t, W);
    if (has_m)
        S_(fr_add)(&t, &t, &M);
    *out = t;
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
    S_(fr_t) av, bv;
    S_(row_sum)(x, p, p + wa, &av);
    S_(row_sum)(x, p + wa, p + wa + wb, &bv);
    *pp = p + wa + wb;
    S_(store)(&x->a[r], &av, x->nt);
    S_(store)(&x->b[r], &bv, x->nt);
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

void S_(synth_ab)(const struct synth_index *ix, const struct zkey *zk,
                  const void *witness, void *a, void *b, unsigned nthreads)
{
    (void)zk;
    struct S_(synth_ctx) x = { .ix = ix, .w = witness, .a = a, .b = b };
    /* k general products (each < r²) plus the ±1/small sum V (< 2^311)
     * must stay below r·2^256 (redc's bound), i.e. k·r + V/r < 2^256. With
     * t the top limb of r, r < (t + 1)·2^192; where t ≥ 2^61 (r > 2^253,
     * so V/r < 2^58 < 2^192) k·(t + 1) ≤ 2^64 − 1 is enough: k =
     * floor((2^64 − 1) / (t + 1)), BN254 5, BLS12-381 2 (before 2026-12-03
     * V was bounded by r², one product's worth: 4 and 1, so BLS12-381
     * reduced after every general term). Otherwise V counts as one more
     * product. Both r < 2^255, so k ≥ 1. */
    uint64_t top = S_(fr_modulus).l[3];
    x.kmax = (unsigned)(UINT64_MAX / (top + 1) - (top >> 61 ? 0 : 1));
    x.nt = SYNTH_NT_STORES < 0 ? ix->domain_size >= synth_nt_min_rows : SYNTH_NT_STORES;
    parallel_for(ix->n_chunks, 1, nthreads, S_(synth_chunks), &x);
}

#undef S_
#undef SC_CAT
#undef SC_CAT2
#undef SC
