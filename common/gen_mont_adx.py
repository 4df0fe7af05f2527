#!/usr/bin/env python3
"""Generate common/mont_adx.h: x86-64 Montgomery multiplication with
mulx/adcx/adox (BMI2 + ADX) as gcc inline assembly, for 4 and 6 limbs.

Usage:
  python3 common/gen_mont_adx.py            print the header
  python3 common/gen_mont_adx.py --update   rewrite common/mont_adx.h
  python3 common/gen_mont_adx.py --check    exit 1 if the header is stale

Algorithm: CIOS ("coarsely integrated operand scanning", Koc, Acar and
Kaliski, "Analyzing and comparing Montgomery multiplication algorithms",
IEEE Micro 1996) in its no-carry form, valid when the top bit of p's top
limb is clear (p < R/2; true for BN254 Fr/Fq and BLS12-381 Fr/Fq): every
round keeps t < 2p in N words plus one carry word A.
Per round i (N rounds):
  product:   (A, t) += a * b[i]     mulx gives lo/hi of a[j]*b[i]; the lo
                                    words ride the OF chain (adox), the hi
                                    words the CF chain (adcx), so the two
                                    carry chains run interleaved.
  reduction: m = t[0] * n0; (A, t) = ((A, t) + m * p) / 2^64
                                    the same two-chain pattern; the division
                                    by 2^64 is a renaming of the registers
                                    (the register that held t[0] becomes the
                                    next A), so nothing moves.
The result t < 2p is left for the caller's conditional subtraction.

Squaring (4 limbs; 6 limbs would need 12 words of registers, so 6-limb
fields square with the product): s = a^2 in 8 words from the 6 cross
products a_i*a_j (i < j, doubled by an add-to-itself chain) and the 4
squares; then the low half alone is Montgomery-reduced, u = (lo + m*p)/R
<= p (the same reduction rounds as above, with a zero carry word), and
u + hi < 2p (hi < p^2/R < p/2) is left for the conditional subtraction:
10 + 16 word products against the product's 32.

Wide products and lone reductions (4 and 6 limbs): for Fp2 products with lazy
reduction (field_tmpl.h's F_mul2_karatsuba), which reduce two 8-word
sums instead of three products.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mont_adx.h")


def gen(n):
    regs = ["r%d" % i for i in range(n + 1)]  # t[0..n-1], A
    t = regs[:n]
    A = regs[n]
    L = []

    def e(s):
        L.append(s)

    for i in range(n):
        e("movq %d(%%[b]), %%%%rdx" % (8 * i))
        if i == 0:
            e("xorl %k[lo], %k[lo]")
            e("mulxq 0(%%[a]), %%[%s], %%[%s]" % (t[0], t[1]))
            for j in range(1, n):
                hi = t[j + 1] if j + 1 < n else A
                e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, hi))
                e("adcxq %%[lo], %%[%s]" % t[j])
            e("movl $0, %k[lo]")
            e("adcxq %%[lo], %%[%s]" % A)
        else:
            e("xorl %k[lo], %k[lo]")
            for j in range(n):
                if j < n - 1:
                    e("mulxq %d(%%[a]), %%[lo], %%[hi]" % (8 * j))
                    e("adoxq %%[lo], %%[%s]" % t[j])
                    e("adcxq %%[hi], %%[%s]" % t[j + 1])
                else:
                    e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, A))
                    e("adoxq %%[lo], %%[%s]" % t[j])
            e("movl $0, %k[lo]")
            e("adcxq %%[lo], %%[%s]" % A)
            e("adoxq %%[lo], %%[%s]" % A)
        # reduction
        e("movq %%[%s], %%%%rdx" % t[0])
        e("imulq %[n0], %%rdx")
        e("xorl %k[lo], %k[lo]")
        e("mulxq %[p0], %[lo], %[hi]")
        e("adcxq %%[lo], %%[%s]" % t[0])
        for j in range(1, n):
            e("adoxq %%[hi], %%[%s]" % t[j])
            e("mulxq %%[p%d], %%[lo], %%[hi]" % j)
            e("adcxq %%[lo], %%[%s]" % t[j])
        e("adcxq %%[hi], %%[%s]" % A)
        e("movl $0, %k[lo]")
        e("adoxq %%[lo], %%[%s]" % A)
        # divide by 2^64: rename
        t = t[1:] + [A]
        # the register that held the old t[0] is the new A
        A = [r for r in regs if r not in t][0]

    body = "\n".join('        "%s\\n\\t"' % s for s in L)
    outs = ", ".join('[%s] "=&r"(%s)' % (r, r) for r in regs)
    ins = ", ".join(['[a] "r"(a)', '[b] "r"(b)',
                     '"m"(*(const uint64_t(*)[%d])a)' % n,
                     '"m"(*(const uint64_t(*)[%d])b)' % n,
                     '[n0] "m"(*n0)'] +
                    ['[p%d] "m"(p[%d])' % (j, j) for j in range(n)])
    res = "\n".join("    t[%d] = %s;" % (j, t[j]) for j in range(n))
    return """
/* t = a*b*2^(-%(bits)d) mod p, t < 2p (not fully reduced): %(n)d-limb no-carry
 * CIOS with mulx/adcx/adox. Needs BMI2 + ADX and p < 2^%(top)d. p and n0
 * should be objects with static storage (addressed RIP-relative). */
static inline __attribute__((always_inline)) void
limb_mont_mul_adx%(n)d(uint64_t t[%(n)d], const uint64_t *a, const uint64_t *b,
                  const uint64_t *p, const uint64_t *n0)
{
    uint64_t %(decl)s, lo, hi;
    __asm__(
%(body)s
        : %(outs)s,
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : %(ins)s
        : "rdx", "cc");
%(res)s
}
""" % dict(n=n, bits=64 * n, top=64 * n - 1, decl=", ".join(regs), body=body,
           outs=outs, ins=ins, res=res)


def gen_sqr4():
    L = []

    def e(x):
        L.append(x)

    # cross products a0*(a1,a2,a3) on the CF chain, a1*(a2,a3) on OF
    e("xorl %k[z], %k[z]")
    e("movq 0(%[a]), %%rdx")
    e("mulxq 8(%[a]), %[s1], %[s2]")
    e("mulxq 16(%[a]), %[lo], %[s3]")
    e("adcxq %[lo], %[s2]")
    e("mulxq 24(%[a]), %[lo], %[s4]")
    e("adcxq %[lo], %[s3]")
    e("movq 8(%[a]), %%rdx")
    e("mulxq 16(%[a]), %[lo], %[hi]")
    e("adoxq %[lo], %[s3]")
    e("adcxq %[hi], %[s4]")
    e("mulxq 24(%[a]), %[lo], %[s5]")
    e("adoxq %[lo], %[s4]")
    e("adcxq %[z], %[s5]")
    e("adoxq %[z], %[s5]")
    # a2*a3 (both chains are clear again)
    e("movq 16(%[a]), %%rdx")
    e("mulxq 24(%[a]), %[lo], %[s6]")
    e("adcxq %[lo], %[s5]")
    e("adcxq %[z], %[s6]")
    # double s1..s6 into s1..s7 (CF chain, clear)
    for r in ("s1", "s2", "s3", "s4", "s5", "s6"):
        e("adcxq %%[%s], %%[%s]" % (r, r))
    e("movl $0, %k[s7]")
    e("adcxq %[z], %[s7]")
    # plus the squares a_i^2 at word 2i (OF chain, clear)
    e("movq 0(%[a]), %%rdx")
    e("mulxq %%rdx, %[s0], %[hi]")
    e("adoxq %[hi], %[s1]")
    for i in (1, 2, 3):
        e("movq %d(%%[a]), %%%%rdx" % (8 * i))
        e("mulxq %%rdx, %[lo], %[hi]")
        e("adoxq %%[lo], %%[s%d]" % (2 * i))
        e("adoxq %%[hi], %%[s%d]" % (2 * i + 1))
    # Montgomery reduction of s0..s3, carry word z (zero)
    t = ["s0", "s1", "s2", "s3"]
    A = "z"
    for i in range(4):
        e("movq %%[%s], %%%%rdx" % t[0])
        e("imulq %[n0], %%rdx")
        e("xorl %k[lo], %k[lo]")
        e("mulxq %[p0], %[lo], %[hi]")
        e("adcxq %%[lo], %%[%s]" % t[0])
        for j in range(1, 4):
            e("adoxq %%[hi], %%[%s]" % t[j])
            e("mulxq %%[p%d], %%[lo], %%[hi]" % j)
            e("adcxq %%[lo], %%[%s]" % t[j])
        e("adcxq %%[hi], %%[%s]" % A)
        e("movl $0, %k[lo]")
        e("adoxq %%[lo], %%[%s]" % A)
        # old t[0] is now 0: the next round's carry word
        t, A = t[1:] + [A], t[0]
    # u + high half
    e("xorl %k[lo], %k[lo]")
    for j in range(4):
        e("adcxq %%[s%d], %%[%s]" % (4 + j, t[j]))
    body = "\n".join('        "%s\\n\\t"' % x for x in L)
    regs = ["s%d" % i for i in range(8)] + ["z"]
    outs = ", ".join('[%s] "=&r"(%s)' % (r, r) for r in regs)
    ins = ", ".join(['[a] "r"(a)', '"m"(*(const uint64_t(*)[4])a)', '[n0] "m"(*n0)'] +
                    ['[p%d] "m"(p[%d])' % (j, j) for j in range(4)])
    res = "\n".join("    t[%d] = %s;" % (j, t[j]) for j in range(4))
    return """
/* t = a^2*2^(-256) mod p, t < 2p (not fully reduced): 4-limb squaring with
 * mulx/adcx/adox (see the generator). Needs BMI2 + ADX and p < 2^255. */
static inline __attribute__((always_inline)) void
limb_mont_sqr_adx4(uint64_t t[4], const uint64_t *a, const uint64_t *p,
                   const uint64_t *n0)
{
    uint64_t %(decl)s, lo, hi;
    __asm__(
%(body)s
        : %(outs)s,
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : %(ins)s
        : "rdx", "cc");
%(res)s
}
""" % dict(decl=", ".join(regs), body=body, outs=outs, ins=ins, res=res)


def gen_wide4():
    """s = a*b, 8 words, no reduction (operand scanning, two carry chains)."""
    L = []

    def e(x):
        L.append(x)

    S = ["s%d" % i for i in range(8)]
    e("movq 0(%[b]), %%rdx")
    e("xorl %k[lo], %k[lo]")
    e("mulxq 0(%[a]), %[s0], %[s1]")
    for j in range(1, 4):
        e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, S[j + 1]))
        e("adcxq %%[lo], %%[%s]" % S[j])
    e("movl $0, %k[lo]")
    e("adcxq %[lo], %[s4]")
    for i in range(1, 4):
        e("movq %d(%%[b]), %%%%rdx" % (8 * i))
        e("xorl %k[lo], %k[lo]")
        for j in range(4):
            if j < 3:
                e("mulxq %d(%%[a]), %%[lo], %%[hi]" % (8 * j))
                e("adoxq %%[lo], %%[%s]" % S[i + j])
                e("adcxq %%[hi], %%[%s]" % S[i + j + 1])
            else:
                e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, S[i + 4]))
                e("adoxq %%[lo], %%[%s]" % S[i + 3])
        e("movl $0, %k[lo]")
        e("adcxq %%[lo], %%[%s]" % S[i + 4])
        e("adoxq %%[lo], %%[%s]" % S[i + 4])
    body = "\n".join('        "%s\\n\\t"' % x for x in L)
    outs = ", ".join('[%s] "=&r"(%s)' % (r, r) for r in S)
    res = "\n".join("    s[%d] = s%d;" % (j, j) for j in range(8))
    return """
/* s = a*b as 8 words (no reduction), 4-limb operands. Needs BMI2 + ADX. */
static inline __attribute__((always_inline)) void
limb_mul_wide_adx4(uint64_t s[8], const uint64_t *a, const uint64_t *b)
{
    uint64_t %(decl)s, lo, hi;
    __asm__(
%(body)s
        : %(outs)s,
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a),
          "m"(*(const uint64_t(*)[4])b)
        : "rdx", "cc");
%(res)s
}
""" % dict(decl=", ".join(S), body=body, outs=outs, res=res)


def gen_redc(n):
    """t = s*2^-(64n) mod p for a 2n-word s < p*2^(64n): the low half reduced
    alone (u <= p), plus the high half (< p): t < 2p."""
    L = []

    def e(x):
        L.append(x)

    t = ["t%d" % j for j in range(n)]
    for j in range(n):
        e("movq %d(%%[s]), %%[%s]" % (8 * j, t[j]))
    e("xorl %k[z], %k[z]")
    A = "z"
    for i in range(n):
        e("movq %%[%s], %%%%rdx" % t[0])
        e("imulq %[n0], %%rdx")
        e("xorl %k[lo], %k[lo]")
        e("mulxq %[p0], %[lo], %[hi]")
        e("adcxq %%[lo], %%[%s]" % t[0])
        for j in range(1, n):
            e("adoxq %%[hi], %%[%s]" % t[j])
            e("mulxq %%[p%d], %%[lo], %%[hi]" % j)
            e("adcxq %%[lo], %%[%s]" % t[j])
        e("adcxq %%[hi], %%[%s]" % A)
        e("movl $0, %k[lo]")
        e("adoxq %%[lo], %%[%s]" % A)
        t, A = t[1:] + [A], t[0]
    e("xorl %k[lo], %k[lo]")
    for j in range(n):
        e("adcxq %d(%%[s]), %%[%s]" % (8 * n + 8 * j, t[j]))
    body = "\n".join('        "%s\\n\\t"' % x for x in L)
    regs = ["t%d" % j for j in range(n)] + ["z"]
    outs = ", ".join('[%s] "=&r"(%s)' % (r, r) for r in regs)
    ins = ", ".join(['[s] "r"(s)', '"m"(*(const uint64_t(*)[%d])s)' % (2 * n),
                     '[n0] "m"(*n0)'] +
                    ['[p%d] "m"(p[%d])' % (j, j) for j in range(n)])
    res = "\n".join("    t[%d] = %s;" % (j, t[j]) for j in range(n))
    return """
/* t = s*2^(-%(bits)d) mod p, t < 2p, for a %(w)d-word s < p*2^%(bits)d
 * (Montgomery reduction of a product; the low half is reduced alone and the
 * high half added). Needs BMI2 + ADX. */
static inline __attribute__((always_inline)) void
limb_mont_redc_adx%(n)d(uint64_t t[%(n)d], const uint64_t *s, const uint64_t *p,
                    const uint64_t *n0)
{
    uint64_t %(decl)s, lo, hi;
    __asm__(
%(body)s
        : %(outs)s,
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : %(ins)s
        : "rdx", "cc");
%(res)s
}
""" % dict(n=n, w=2 * n, bits=64 * n, decl=", ".join(regs), body=body, outs=outs,
           ins=ins, res=res)


def gen_wide6():
    """s = a*b, 12 words, no reduction: row by row, the finished low word of
    each row stored, so 7 accumulator registers suffice."""
    n = 6
    L = []

    def e(x):
        L.append(x)

    regs = ["r%d" % i for i in range(n + 1)]
    e("movq 0(%[b]), %%rdx")
    e("xorl %k[lo], %k[lo]")
    e("mulxq 0(%[a]), %[r0], %[r1]")
    for j in range(1, n):
        e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, regs[j + 1]))
        e("adcxq %%[lo], %%[%s]" % regs[j])
    e("movl $0, %k[lo]")
    e("adcxq %%[lo], %%[%s]" % regs[n])
    e("movq %[r0], 0(%[s])")
    acc = regs[1:]          # words i .. i+5
    free = regs[0]
    for i in range(1, n):
        e("movq %d(%%[b]), %%%%rdx" % (8 * i))
        e("xorl %k[lo], %k[lo]")
        for j in range(n):
            if j < n - 1:
                e("mulxq %d(%%[a]), %%[lo], %%[hi]" % (8 * j))
                e("adoxq %%[lo], %%[%s]" % acc[j])
                e("adcxq %%[hi], %%[%s]" % acc[j + 1])
            else:
                e("mulxq %d(%%[a]), %%[lo], %%[%s]" % (8 * j, free))
                e("adoxq %%[lo], %%[%s]" % acc[j])
        e("movl $0, %k[lo]")
        e("adcxq %%[lo], %%[%s]" % free)
        e("adoxq %%[lo], %%[%s]" % free)
        e("movq %%[%s], %d(%%[s])" % (acc[0], 8 * i))
        acc, free = acc[1:] + [free], acc[0]
    for j in range(n):
        e("movq %%[%s], %d(%%[s])" % (acc[j], 8 * (n + j)))
    body = "\n".join('        "%s\\n\\t"' % x for x in L)
    outs = ", ".join('[%s] "=&r"(%s)' % (r, r) for r in regs)
    return """
/* s = a*b as 12 words (no reduction), 6-limb operands, written to s. Needs
 * BMI2 + ADX. */
static inline __attribute__((always_inline)) void
limb_mul_wide_adx6(uint64_t s[12], const uint64_t *a, const uint64_t *b)
{
    uint64_t %(decl)s, lo, hi;
    __asm__(
%(body)s
        : %(outs)s,
          [lo] "=&r"(lo), [hi] "=&r"(hi), "=m"(*(uint64_t(*)[12])s)
        : [a] "r"(a), [b] "r"(b), [s] "r"(s), "m"(*(const uint64_t(*)[6])a),
          "m"(*(const uint64_t(*)[6])b)
        : "rdx", "cc");
}
""" % dict(decl=", ".join(regs), body=body, outs=outs)


def header():
    return ("/* mont_adx.h - GENERATED by common/gen_mont_adx.py (do not edit;\n"
            " * run python3 common/gen_mont_adx.py --update). x86-64 Montgomery\n"
            " * multiplication with mulx/adcx/adox; the algorithm is described in\n"
            " * the generator. Included by limb.h on x86-64 gcc/clang only; callers\n"
            " * must check limb_have_adx() first. */\n"
            "#ifndef SLOTPROVE_MONT_ADX_H\n#define SLOTPROVE_MONT_ADX_H\n\n"
            "#include <stdint.h>\n" + gen(4) + gen(6) + gen_sqr4() + gen_wide4() +
            gen_redc(4) + gen_wide6() + gen_redc(6) +
            "\n#endif /* SLOTPROVE_MONT_ADX_H */\n")


def main():
    h = header()
    if "--update" in sys.argv:
        with open(OUT, "w") as f:
            f.write(h)
    elif "--check" in sys.argv:
        with open(OUT) as f:
            if f.read() != h:
                print("common/mont_adx.h is stale", file=sys.stderr)
                sys.exit(1)
    else:
        sys.stdout.write(h)


if __name__ == "__main__":
    main()
