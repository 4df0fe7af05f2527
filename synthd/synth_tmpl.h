/*
 * synth_tmpl.h — Groth16 synthesis for one curve's Fr: a = A·w, b = B·w,
 * c = a∘b (the C matrix is not needed for a satisfied circuit; snarkjs
 * buildABC1, rapidsnark groth16.cpp do the same). A "C template": define SC
 * (curve prefix) and include; it defines SC##_synth_abc (synth.h). The
 * coefficient classes are synth_class_tmpl.h's.
 *
 * Coefficients are stored as v·R² (snarkjs writeFr2) and witness values in
 * standard form, so one Montgomery product of the two gives Montgomery(v·w)
 * — the old path's one product per term. Here a row of one matrix is
 * summed in two accumulators:
 *   - terms with v = ±1 or a small ±s (synth_index.h) go, in standard form,
 *     into a 5-limb sum that is never reduced on the way: +w, p − w, s·w or
 *     s·(p − w), each below 2^24·p, at most 2^32 of them: below 2^311;
 *   - general terms take the Montgomery product and a modular addition.
 * At the row's end the 5-limb sum V becomes Montgomery(V mod r) with one
 * Montgomery product (two when V ≥ 64·2^256, see wide_to_mont), and the two
 * parts are added: one product per row instead of one per term. The result is the
 * same field element as the old path's, fully reduced, so the bytes are the
 * same (tests/test_synth.c checks both against a naive loop).
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
#ifndef SYNTH_HIGH_TABLE
#define SYNTH_HIGH_TABLE 64 /* sums of ±1 terms pass 2^256 by a few: h < this */
#endif
#ifndef SYNTH_NT_STORES
#define SYNTH_NT_STORES 0
#endif
#if SYNTH_NT_STORES
#include <immintrin.h>
#endif

struct S_(synth_ctx) {
    const struct synth_index *ix;
    const S_(fr_t) *w;
    S_(fr_t) *a, *b, *c;
    S_(fr_t) r3; /* R³ mod r = 2^768 mod r, standard form */
    S_(fr_t) high[SYNTH_HIGH_TABLE]; /* h·R² mod r */
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

/* ret = V·2^256 mod r (Montgomery form of V mod r), V < 2^320 as lo + h·2^256:
 * the Montgomery product R²·lo (= lo·R), plus h·2^256·R = h·R² mod r: from
 * the table high[h] = h·R² mod r when h is small (sums of ±1 terms: a few
 * words past 2^256 at most), else one more product R³·h. lo may be any
 * 256-bit value: it is the second operand, which fr_mul (both its
 * mulx/adcx/adox and its portable C path) reads one word at a time against
 * the whole first one, so with the first below r the no-carry CIOS sum stays
 * below 2r at every step (t < (2r + r·2^64 + 2^64·r)/2^64) and the result is
 * reduced once; tests/test_synth.c runs both paths on sums near 2^256 and
 * far above. */
static inline void S_(wide_to_mont)(S_(fr_t) *ret, const uint64_t V[5], const S_(fr_t) *r3,
                                    const S_(fr_t) *high)
{
    S_(fr_t) lo = { { V[0], V[1], V[2], V[3] } };
    S_(fr_mul)(ret, &S_(fr_r2), &lo);
    if (V[4] == 0)
        return;
    if (V[4] < SYNTH_HIGH_TABLE) {
        S_(fr_add)(ret, ret, &high[V[4]]);
    } else {
        S_(fr_t) h = { { V[4], 0, 0, 0 } }, t;
        S_(fr_mul)(&t, r3, &h);
        S_(fr_add)(ret, ret, &t);
    }
}

/* The sum of one row's terms of one matrix, stream words [p, end), into
 * *out (Montgomery form). */
static inline void S_(row_sum)(const struct S_(synth_ctx) *x, const uint32_t *p,
                               const uint32_t *end, S_(fr_t) *out)
{
    uint64_t V[5] = { 0, 0, 0, 0, 0 }, y[4];
    S_(fr_t) M, t;
    int has_v = 0, has_m = 0;
    S_(fr_set_zero)(&M);
    while (p < end) {
        uint32_t tag = *p++;
        const uint64_t *wv = x->w[tag & SYNTH_SIGNAL_MASK].l;
        switch (tag >> SYNTH_SIGNAL_BITS) {
        case SYNTH_ONE:
            S_(wide_add)(V, wv);
            has_v = 1;
            break;
        case SYNTH_NEG_ONE:
            S_(p_minus)(y, wv);
            S_(wide_add)(V, y);
            has_v = 1;
            break;
        case SYNTH_SMALL: {
            uint32_t s = *p++;
            if (s >> 31) {
                S_(p_minus)(y, wv);
                S_(wide_add_small)(V, y, s & 0x7fffffffu);
            } else {
                S_(wide_add_small)(V, wv, s);
            }
            has_v = 1;
            break;
        }
        default: {
            S_(fr_t) cf;
            memcpy(cf.l, p, 32);
            p += 8;
            S_(fr_mul)(&t, &cf, &x->w[tag & SYNTH_SIGNAL_MASK]);
            S_(fr_add)(&M, &M, &t);
            has_m = 1;
            break;
        }
        }
    }
    if (has_v) {
        S_(wide_to_mont)(&t, V, &x->r3, x->high);
        if (has_m)
            S_(fr_add)(&M, &M, &t);
        else
            M = t;
    }
    *out = M;
}

/* *dst = *v: a, b and c are written once and read by gpud, not here: with
 * SYNTH_NT_STORES, non-temporal stores that skip the read-for-ownership. */
static inline void S_(store)(S_(fr_t) *dst, const S_(fr_t) *v)
{
#if SYNTH_NT_STORES
    for (int i = 0; i < 4; i++)
        _mm_stream_si64((long long *)&dst->l[i], (long long)v->l[i]);
#else
    *dst = *v;
#endif
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

/* One row: its A and B sums at stream word *p (moved past them), c. */
static inline void S_(synth_row)(const struct S_(synth_ctx) *x, const uint32_t **pp, uint32_t r)
{
    uint32_t wa, wb;
    const uint32_t *p = S_(row_header)(*pp, &wa, &wb);
    S_(fr_t) av, bv, cv;
    S_(row_sum)(x, p, p + wa, &av);
    S_(row_sum)(x, p + wa, p + wa + wb, &bv);
    *pp = p + wa + wb;
    if (wa && wb) /* an empty A or B (circom's linear rows): a or b is 0, so is c */
        S_(fr_mul)(&cv, &av, &bv);
    else
        S_(fr_set_zero)(&cv);
    S_(store)(&x->a[r], &av);
    S_(store)(&x->b[r], &bv);
    S_(store)(&x->c[r], &cv);
}

static void S_(synth_chunks)(void *arg, size_t kb, size_t ke)
{
    const struct S_(synth_ctx) *x = arg;
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
        for (; r < r_end; r++) {
            if (rp < r_end) {
                pf = S_(prefetch_rows)(x, pf, rp, rp + 1);
                rp++;
            }
            S_(synth_row)(x, &p, r);
        }
#else
        for (; r < r_end; r++)
            S_(synth_row)(x, &p, r);
#endif
    }
#if SYNTH_NT_STORES
    _mm_sfence(); /* the streamed a, b, c visible before this thread reports done */
#endif
}

void S_(synth_abc)(const struct synth_index *ix, const struct zkey *zk,
                   const void *witness, void *a, void *b, void *c, unsigned nthreads)
{
    (void)zk;
    struct S_(synth_ctx) x = { .ix = ix, .w = witness, .a = a, .b = b, .c = c };
    S_(fr_mul)(&x.r3, &S_(fr_r2), &S_(fr_r2)); /* R²·R²·R^-1 */
    S_(fr_set_zero)(&x.high[0]);
    for (int h = 1; h < SYNTH_HIGH_TABLE; h++)
        S_(fr_add)(&x.high[h], &x.high[h - 1], &S_(fr_r2));
    parallel_for(ix->n_chunks, 1, nthreads, S_(synth_chunks), &x);
}

#undef S_
#undef SC_CAT
#undef SC_CAT2
#undef SC
