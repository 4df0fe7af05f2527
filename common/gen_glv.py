#!/usr/bin/env python3
"""Generate common/glv_constants.h: the GLV endomorphism constants of G1 for
BN254 and BLS12-381.

Usage:
  python3 common/gen_glv.py            print the header
  python3 common/gen_glv.py --update   rewrite common/glv_constants.h
  python3 common/gen_glv.py --check    exit 1 if the header is stale

Math (Gallant-Lambert-Vanstone 2001; Hankerson-Menezes-Vanstone, "Guide to
Elliptic Curve Cryptography", algorithms 3.74 and 3.75):
- On y^2 = x^3 + b over Fq with q = 1 mod 3, phi(x, y) = (beta*x, y), beta a
  primitive cube root of unity in Fq, is an endomorphism; on the order-r
  subgroup it acts as multiplication by lambda, a primitive cube root of
  unity mod r (lambda^2 + lambda + 1 = 0 mod r). Of the two choices of beta,
  the script keeps the one with phi(G) = lambda*G for the chosen lambda.
- The lattice L = {(a, b) : a + b*lambda = 0 mod r} has a basis of two
  vectors v1 = (a1, b1), v2 = (a2, b2) of length about sqrt(r), found with
  the extended Euclidean algorithm on (r, lambda) (algorithm 3.74).
- A scalar k is split (Babai rounding, algorithm 3.74's second half) as
  c1 = round(k*b2/det), c2 = round(-k*b1/det), det = a1*b2 - a2*b1 = +-r,
  k1 = k - c1*a1 - c2*a2, k2 = -c1*b1 - c2*b2; then k1 + k2*lambda = k mod r
  and |k1| <= (|a1|+|a2|)/2, |k2| <= (|b1|+|b2|)/2 (up to the rounding
  slack below). The rounding is done as c = (k*g + 2^(M-1)) >> M with
  g = round(2^M * b2/det) (resp. -b1/det) and M = 384: for k < 2^256 the
  error of k*g/2^M against k*b2/det is below 2^-129, so |ki| stays within
  (1/2 + 2^-128) of the sums above; the script asserts that bound fits in
  GLV_BITS bits and runs the split on edge scalars.
Everything is derived here from the curve data of gen_constants.py with
Python big integers. Limbs are little-endian u64; beta is emitted in
Montgomery form.
"""
import math
import os
import sys

import gen_constants as gc

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = "glv_constants.h"
M = 384
MASK256 = (1 << 256) - 1


def cube_roots_of_unity(p):
    """The two primitive cube roots of unity mod prime p (p = 1 mod 3)."""
    assert p % 3 == 1
    for g in range(2, 1000):
        w = pow(g, (p - 1) // 3, p)
        if w != 1:
            w2 = w * w % p
            assert (w * w2) % p == 1 and (1 + w + w2) % p == 0
            return sorted((w, w2))
    raise SystemExit("gen_glv.py: no cube root of unity found")


def lattice_basis(r, lam):
    """Short basis of {(a, b) : a + b*lam = 0 mod r} (HMV algorithm 3.74)."""
    # r_i = s_i*r + t_i*lam; (r_i, -t_i) lies in the lattice.
    rs, ts = [r, lam], [0, 1]
    while rs[-1] != 0:
        q = rs[-2] // rs[-1]
        rs.append(rs[-2] - q * rs[-1])
        ts.append(ts[-2] - q * ts[-1])
    root = math.isqrt(r)
    l = max(i for i in range(len(rs)) if rs[i] >= root)
    v1 = (rs[l + 1], -ts[l + 1])
    cand = [(rs[l], -ts[l]), (rs[l + 2], -ts[l + 2])]
    v2 = min(cand, key=lambda v: v[0] * v[0] + v[1] * v[1])
    for a, b in (v1, v2):
        assert (a + b * lam) % r == 0
    return v1, v2


def split(k, r, lam, v1, v2, g1, g2):
    """The C algorithm (common/glv.c), in Python: returns (k1, k2)."""
    (a1, b1), (a2, b2) = v1, v2
    while k >= r:
        k -= r
    c1 = (k * abs(g1) + (1 << (M - 1))) >> M
    c2 = (k * abs(g2) + (1 << (M - 1))) >> M
    c1 = -c1 if g1 < 0 else c1
    c2 = -c2 if g2 < 0 else c2
    k1 = k - c1 * a1 - c2 * a2
    k2 = -c1 * b1 - c2 * b2
    assert (k1 + k2 * lam - k) % r == 0
    return k1, k2


def rdiv(a, b):
    """round(a / b) for integers, b > 0, halves away from zero."""
    s = -1 if a < 0 else 1
    return s * ((2 * abs(a) + b) // (2 * b))


def two_comp(x):
    return x & MASK256


def curve_glv(name, r, q, fp_limbs, G, b, pick_small_lambda):
    lams = cube_roots_of_unity(r)
    lam = lams[0] if pick_small_lambda else lams[1]
    betas = cube_roots_of_unity(q)
    F = gc.Fp(q)
    assert gc.on_curve(F, b, G)
    lg = gc.ec_mul(F, lam, G)
    beta = None
    for bt in betas:
        if (bt * G[0] % q, G[1]) == lg:
            beta = bt
    assert beta is not None, name + ": no beta with phi(G) = lambda*G"
    v1, v2 = lattice_basis(r, lam)
    (a1, b1), (a2, b2) = v1, v2
    det = a1 * b2 - a2 * b1
    assert abs(det) == r
    if det < 0:                        # make det = +r
        v1, v2 = v2, v1
        (a1, b1), (a2, b2) = v1, v2
        det = -det
    g1 = rdiv((1 << M) * b2, r)
    g2 = rdiv(-(1 << M) * b1, r)
    assert abs(g1) < 1 << 320 and abs(g2) < 1 << 320
    bound1 = (abs(a1) + abs(a2) + 1) // 2 + 1
    bound2 = (abs(b1) + abs(b2) + 1) // 2 + 1
    bits = max(bound1.bit_length(), bound2.bit_length())
    assert bits <= 128, name + ": split halves exceed 128 bits"
    # the split on edge and sample scalars (the C test repeats this on
    # random scalars against GMP)
    samples = [0, 1, 2, r - 1, r - 2, lam, lam + 1, lam - 1, r - lam,
               (r - 1) // 2, (r + 1) // 2, 1 << 128, (1 << 128) - 1,
               (1 << 255) % r, MASK256, r, r + 1, 2 * r - 1]
    x = 0x9e3779b97f4a7c15
    for _ in range(2000):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 256)
        samples.append(x % r)
        samples.append(x)
    for k in samples:
        k1, k2 = split(k, r, lam, v1, v2, g1, g2)
        assert abs(k1) < bound1 and abs(k2) < bound2, (name, k)
        assert abs(k1) < 1 << bits and abs(k2) < 1 << bits
    return {
        "lam": lam, "beta": beta, "v1": v1, "v2": v2, "g1": g1, "g2": g2,
        "bits": bits, "fp_limbs": fp_limbs, "q": q, "r": r,
    }


def block(prefix, name, d):
    P = prefix.upper()
    (a1, b1), (a2, b2) = d["v1"], d["v2"]
    out = []
    out.append("/* %s: lambda = %#x\n *   (phi(P) = (beta*x, y) = lambda*P on G1)" % (name, d["lam"]))
    out.append(" * lattice basis v1 = (a1, b1), v2 = (a2, b2), a + b*lambda = 0 mod r:")
    out.append(" *   a1 = %d\n *   b1 = %d" % (a1, b1))
    out.append(" *   a2 = %d\n *   b2 = %d" % (a2, b2))
    out.append(" * |k1|, |k2| < 2^%d */" % d["bits"])
    out.append("#define %s_GLV_BITS %d" % (P, d["bits"]))
    out.append(gc.define("%s_GLV_BETA" % P, gc.fp_init(d["beta"], d["q"], d["fp_limbs"])))
    out.append(gc.define("%s_GLV_LAMBDA" % P, gc.limb_init(d["lam"], 4)))
    out.append("/* -a1, -a2, -b1, -b2 mod 2^256 (two's complement) */")
    out.append(gc.define("%s_GLV_NA1" % P, gc.limb_init(two_comp(-a1), 4)))
    out.append(gc.define("%s_GLV_NA2" % P, gc.limb_init(two_comp(-a2), 4)))
    out.append(gc.define("%s_GLV_NB1" % P, gc.limb_init(two_comp(-b1), 4)))
    out.append(gc.define("%s_GLV_NB2" % P, gc.limb_init(two_comp(-b2), 4)))
    out.append("/* |g1| = |round(2^384*b2/r)|, |g2| = |round(-2^384*b1/r)|, and their signs */")
    out.append(gc.define("%s_GLV_G1" % P, gc.limb_init(abs(d["g1"]), 5)))
    out.append(gc.define("%s_GLV_G2" % P, gc.limb_init(abs(d["g2"]), 5)))
    out.append("#define %s_GLV_G1_NEG %d" % (P, 1 if d["g1"] < 0 else 0))
    out.append("#define %s_GLV_G2_NEG %d" % (P, 1 if d["g2"] < 0 else 0))
    return out


def header():
    bn = curve_glv("bn254", gc.BN254_R, gc.BN254_Q, 4, gc.BN254_G1, 3, False)
    bls = curve_glv("bls12381", gc.BLS_R, gc.BLS_Q, 6, gc.BLS_G1, 4, True)
    lines = [
        "/*",
        " * glv_constants.h - GLV endomorphism constants of G1, generated by",
        " * python3 common/gen_glv.py --update (do not edit; the derivation is in",
        " * that script). Used by common/glv.c and the G1 MSMs; checked by",
        " * tests/test_glv.c (phi(P) = lambda*P, splits against GMP).",
        " */",
        "#ifndef SLOTPROVE_GLV_CONSTANTS_H",
        "#define SLOTPROVE_GLV_CONSTANTS_H",
        "",
    ]
    lines += block("bn254", "BN254", bn)
    lines.append("")
    lines += block("bls12381", "BLS12-381", bls)
    lines += ["", "#endif", ""]
    return "\n".join(lines)


def main(argv):
    text = header()
    path = os.path.join(HERE, OUT)
    if len(argv) > 1 and argv[1] in ("--update", "--check"):
        old = open(path).read() if os.path.exists(path) else ""
        if old == text:
            return 0
        if argv[1] == "--check":
            print("stale:", path)
            return 1
        with open(path, "w") as f:
            f.write(text)
        print("updated", path)
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
