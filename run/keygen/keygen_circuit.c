/* keygen_circuit.c — the synthetic circuit's shape and the PRNG
 * (keygen_circuit.h); the values live in keygen_circuit_tmpl.h. */
#include "keygen_circuit.h"

#include <string.h>

/* Eleven of sixteen new wires are bits, as in hash and range-check heavy
 * circuits; four are full-size field elements, one a packed byte. The first
 * six are bits so that AND, XOR and PACK always find operands. */
static const enum keygen_kind pattern[KEYGEN_PATTERN_LEN] = {
    KG_BIT, KG_BIT, KG_BIT, KG_BIT, KG_BIT, KG_BIT, KG_MUL, KG_BIT,
    KG_AND, KG_XOR, KG_MUL, KG_PACK, KG_BIT, KG_LIN, KG_MUL, KG_XOR,
};

static const unsigned terms[6][3] = {
    [KG_BIT] = { 1, 2, 0 }, [KG_AND] = { 1, 1, 1 }, [KG_XOR] = { 1, 1, 3 },
    [KG_PACK] = { 8, 1, 1 }, [KG_MUL] = { 2, 2, 1 }, [KG_LIN] = { 3, 1, 1 },
};

enum keygen_kind keygen_kind(uint64_t i)
{
    return pattern[i % KEYGEN_PATTERN_LEN];
}

unsigned keygen_terms(enum keygen_kind k, unsigned matrix)
{
    return terms[k][matrix];
}

int keygen_shape(struct keygen_shape *s, uint64_t n, uint64_t k, struct sp_err *e)
{
    memset(s, 0, sizeof(*s));
    if (n == 0)
        return sp_fail(e, SP_ERANGE, "--constraints must be at least 1");
    uint64_t rows = n + k + 1, max = (uint64_t)1 << KEYGEN_MAX_LOG_DOMAIN;
    if (rows > max)
        return sp_fail(e, SP_ERANGE,
                       "--constraints %llu with --public %llu needs %llu rows (N + K + 1), "
                       "more than the largest domain 2^%d = %llu (at most %llu constraints)",
                       (unsigned long long)n, (unsigned long long)k, (unsigned long long)rows,
                       KEYGEN_MAX_LOG_DOMAIN, (unsigned long long)max,
                       (unsigned long long)(max - k - 1));
    unsigned log = 1;
    while (((uint64_t)1 << log) < rows)
        log++;
    s->n_constraints = (uint32_t)n;
    s->n_public = (uint32_t)k;
    s->n_vars = (uint32_t)(1 + k + n);
    s->log_domain = log;
    s->domain_size = (uint32_t)1 << log;
    uint64_t full = n / KEYGEN_PATTERN_LEN, part = n % KEYGEN_PATTERN_LEN;
    for (unsigned i = 0; i < KEYGEN_PATTERN_LEN; i++) {
        uint64_t times = full + (i < part);
        s->n_a += times * terms[pattern[i]][0];
        s->n_b += times * terms[pattern[i]][1];
        s->n_c += times * terms[pattern[i]][2];
    }
    s->n_coefs = s->n_a + s->n_b + k + 1;
    return 0;
}

int keygen_shape_vars(struct keygen_shape *s, uint64_t n_vars, struct sp_err *e)
{
    uint64_t lo = 1 + (uint64_t)s->n_public + KEYGEN_PATTERN_LEN, hi = s->n_vars;
    if (lo > hi)
        lo = hi;
    if (n_vars < lo || n_vars > hi)
        return sp_fail(e, SP_ERANGE,
                       "--vars %llu: want %llu..%llu (at least 1 + K + %d, at most 1 + K + N)",
                       (unsigned long long)n_vars, (unsigned long long)lo,
                       (unsigned long long)hi, KEYGEN_PATTERN_LEN);
    s->n_vars = (uint32_t)n_vars;
    return 0;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void keygen_rng_seed(struct keygen_rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t keygen_rng_next(struct keygen_rng *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void keygen_rng_below(struct keygen_rng *g, uint64_t out[4], const uint64_t m[4])
{
    int top = 3;
    while (top > 0 && m[top] == 0)
        top--;
    uint64_t mask = ~0ull >> __builtin_clzll(m[top]);
    for (;;) {
        for (int i = 0; i < 4; i++)
            out[i] = i <= top ? keygen_rng_next(g) : 0;
        out[top] &= mask;
        for (int i = 3; i >= 0; i--)
            if (out[i] != m[i]) {
                if (out[i] < m[i])
                    return;
                break;
            }
    }
}
