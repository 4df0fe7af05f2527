/*
 * test_random.c — the blinding factors r, s: always below the modulus, and
 * uniform (a chi-square test on a small modulus, where bias would show).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "bls12381.h"
#include "bn254.h"
#include "random.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(random_fr, .timeout = 120);

static int below(const uint64_t v[4], const uint64_t m[4])
{
    for (int i = 3; i >= 0; i--)
        if (v[i] != m[i])
            return v[i] < m[i];
    return 0;
}

Test(random_fr, below_r_and_full_width)
{
    const uint64_t *mods[2] = { bn254_fr_modulus.l, bls12381_fr_modulus.l };
    for (int c = 0; c < 2; c++) {
        int top_bit_seen = 0;
        for (int i = 0; i < 2000; i++) {
            uint64_t v[4];
            cr_assert_eq(random_below(v, mods[c]), 0);
            cr_assert(below(v, mods[c]), "value not below the modulus");
            /* r's top limb has its top set bit at 2^61/2^62: values reach it */
            if (v[3] >> (63 - __builtin_clzll(mods[c][3])))
                top_bit_seen = 1;
        }
        cr_assert(top_bit_seen, "2000 draws never reached the top bit: not uniform in [0, r)");
    }
}

/* m = 5·2^192: masking to its bit length gives values below 8·2^192, so
 * without rejection the buckets 0..2 of the top limb would get 3/8 extra
 * mass each — a chi-square test over the top limb sees that at once. */
Test(random_fr, uniform_chi_square)
{
    uint64_t m[4] = { 0, 0, 0, 5 }; /* values in [0, 5·2^192): bucket by top limb */
    unsigned count[5] = { 0 };
    const unsigned n = 20000;
    for (unsigned i = 0; i < n; i++) {
        uint64_t v[4];
        cr_assert_eq(random_below(v, m), 0);
        cr_assert(below(v, m));
        count[v[3]]++;
    }
    double chi = 0, e = n / 5.0;
    for (int k = 0; k < 5; k++)
        chi += (count[k] - e) * (count[k] - e) / e;
    /* 4 degrees of freedom: P(chi² > 18.5) < 0.001 */
    cr_assert(chi < 18.5, "chi-square %.2f: counts %u %u %u %u %u", chi, count[0], count[1],
              count[2], count[3], count[4]);
}
