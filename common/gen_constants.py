#!/usr/bin/env python3
"""Generate the constant blocks of common/bn254.h and common/bls12381.h.

Usage:
  python3 common/gen_constants.py            print both blocks
  python3 common/gen_constants.py --update   rewrite the blocks in the headers
                                             (between the marker comments)
  python3 common/gen_constants.py --check    exit 1 if a header is stale

Everything is derived from the primes, the curve coefficients and the
standard generators below with Python big integers; the script asserts the
basic facts (n0 * p == -1 mod 2^64, generators on the curve and of order r,
two-adicity) before printing anything. Limbs are little-endian u64; field
elements are emitted in Montgomery form (x * 2^(64*limbs) mod p).
"""
import os
import sys

BEGIN = "/* BEGIN GENERATED CONSTANTS (python3 common/gen_constants.py --update) */"
END = "/* END GENERATED CONSTANTS */"

HERE = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------------
# Curve data
# --------------------------------------------------------------------------

BN254_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
BN254_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
BN254_G1 = (1, 2)
# EIP-197 / ffjavascript bn128 G2 generator, coordinates c0 + c1*u.
BN254_G2 = (
    (10857046999023057135944570762232829481370756359578518086990519993285655852781,
     11559732032986387107991004021392285783925812861821192530917403151452391805634),
    (8495653923123431417604973247489272438418190587263600148770280649306958101930,
     4082367875863433681332203403145435568316851327593401208105741076214120093531),
)

BLS_R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
BLS_Q = int("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
            "1eabfffeb153ffffb9feffffffffaaab", 16)
BLS_G1 = (
    int("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
        "6c55e83ff97a1aeffb3af00adb22c6bb", 16),
    int("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
        "d03cc744a2888ae40caa232946c5e7e1", 16),
)
BLS_G2 = (
    (int("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
         "0bac0326a805bbefd48056c8c121bdb8", 16),
     int("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
         "334cf11213945d57e5ac7d055d042b7e", 16)),
    (int("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c"
         "923ac9cc3baca289e193548608b82801", 16),
     int("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab"
         "3f370d275cec1da1aaa9075ff05f79be", 16)),
)


# --------------------------------------------------------------------------
# Arithmetic helpers (Fp2 = Fp[u]/(u^2+1), elements as tuples (c0, c1))
# --------------------------------------------------------------------------

def f2_add(p, a, b):
    return ((a[0] + b[0]) % p, (a[1] + b[1]) % p)


def f2_sub(p, a, b):
    return ((a[0] - b[0]) % p, (a[1] - b[1]) % p)


def f2_mul(p, a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def f2_inv(p, a):
    n = pow((a[0] * a[0] + a[1] * a[1]) % p, -1, p)
    return (a[0] * n % p, -a[1] * n % p)


class Fp:
    def __init__(self, p):
        self.p = p
        self.zero = 0
        self.one = 1

    def add(self, a, b):
        return (a + b) % self.p

    def sub(self, a, b):
        return (a - b) % self.p

    def mul(self, a, b):
        return a * b % self.p

    def inv(self, a):
        return pow(a, -1, self.p)


class Fp2:
    def __init__(self, p):
        self.p = p
        self.zero = (0, 0)
        self.one = (1, 0)

    def add(self, a, b):
        return f2_add(self.p, a, b)

    def sub(self, a, b):
        return f2_sub(self.p, a, b)

    def mul(self, a, b):
        return f2_mul(self.p, a, b)

    def inv(self, a):
        return f2_inv(self.p, a)


def on_curve(F, b, P):
    x, y = P
    return F.mul(y, y) == F.add(F.mul(F.mul(x, x), x), b)


def ec_add(F, P, Q):
    """Affine addition on y^2 = x^3 + b; None is infinity."""
    if P is None:
        return Q
    if Q is None:
        return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2:
        if F.add(y1, y2) == F.zero:
            return None
        three_x2 = F.mul(F.add(F.add(x1, x1), x1), x1)
        lam = F.mul(three_x2, F.inv(F.add(y1, y1)))
    else:
        lam = F.mul(F.sub(y2, y1), F.inv(F.sub(x2, x1)))
    x3 = F.sub(F.sub(F.mul(lam, lam), x1), x2)
    y3 = F.sub(F.mul(lam, F.sub(x1, x3)), y1)
    return (x3, y3)


def ec_mul(F, k, P):
    R = None
    for bit in bin(k)[2:]:
        R = ec_add(F, R, R)
        if bit == "1":
            R = ec_add(F, R, P)
    return R


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------

def limbs(x, n):
    assert 0 <= x < 1 << (64 * n)
    return [(x >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(n)]


# Initializers are built as trees (a list is a brace pair, a str a leaf) and
# rendered by render(): a node goes on one line if that fits in WIDTH
# columns, otherwise each child goes on its own line.
WIDTH = 80


def limb_init(x, n):
    """Brace initializer of n little-endian u64 limbs."""
    return ["0x%016xULL" % v for v in limbs(x, n)]


def mont(x, p, n):
    return x * (1 << (64 * n)) % p


def fp_init(x, p, n):
    """Initializer of a field struct holding Montgomery(x)."""
    return [limb_init(mont(x, p, n), n)]


def fp2_init(a, p, n):
    return [fp_init(a[0], p, n), fp_init(a[1], p, n)]


def flat(node):
    if isinstance(node, str):
        return node
    return "{ " + ", ".join(flat(c) for c in node) + " }"


def render(node, indent):
    """Lines (without continuation backslashes) for node at indent."""
    pad = " " * indent
    one = flat(node)
    if isinstance(node, str) or indent + len(one) + 2 <= WIDTH:
        return [pad + one]
    if len(node) == 1 and not isinstance(node[0], str):
        # struct wrapper around one array: "{ {" ... "} }"
        sub = render(node[0], indent + 2)
        sub[0] = pad + "{ " + sub[0].lstrip()
        sub[-1] += " }"
        return sub
    if all(isinstance(c, str) for c in node):
        # limb array: pack limbs greedily
        lines, cur = [], pad + "{"
        for i, c in enumerate(node):
            item = " " + c + ("," if i + 1 < len(node) else " }")
            if len(cur) + len(item) + 2 > WIDTH:  # room for " \\"
                lines.append(cur)
                cur = pad + " "
            cur += item
        lines.append(cur)
        return lines
    lines = [pad + "{"]
    for i, c in enumerate(node):
        sub = render(c, indent + 4)
        if i + 1 < len(node):
            sub[-1] += ","
        lines += sub
    lines.append(pad + "}")
    return lines


def define(name, node):
    one = "#define %s %s" % (name, flat(node))
    if len(one) <= WIDTH:
        return one
    lines = ["#define " + name] + render(node, 4)
    w = max(len(l) for l in lines[:-1])
    return "\n".join(l.ljust(w) + " \\" for l in lines[:-1]) + "\n" + lines[-1]


def field_block(prefix, p, n):
    R = 1 << (64 * n)
    n0 = (-pow(p, -1, 1 << 64)) % (1 << 64)
    assert (n0 * p) % (1 << 64) == (1 << 64) - 1
    assert p < R
    out = [
        "/* %s: %d limbs */" % (prefix.lower(), n),
        define(prefix + "_P", limb_init(p, n)),
        define(prefix + "_ONE", limb_init(R % p, n)),
        define(prefix + "_R2", limb_init(R * R % p, n)),
        "#define %s_N0 0x%016xULL" % (prefix, n0),
    ]
    return out


def two_adicity(r):
    s, t = 0, r - 1
    while t % 2 == 0:
        s, t = s + 1, t // 2
    return s, t


def root_of_unity(r):
    """ffjavascript's choice: the smallest quadratic non-residue nqr >= 2,
    raised to t where r - 1 = 2^s * t (a primitive 2^s-th root of unity,
    ffjavascript F1Field.w[s])."""
    s, t = two_adicity(r)
    nqr = 2
    while pow(nqr, (r - 1) // 2, r) != r - 1:
        nqr += 1
    w = pow(nqr, t, r)
    assert pow(w, 1 << s, r) == 1 and pow(w, 1 << (s - 1), r) != 1
    return nqr, s, w


def curve_block(name, r, q, fr_limbs, fp_limbs, b1, b2, b2_text, g1, g2,
                adicity):
    P = name.upper()
    Fq, Fq2 = Fp(q), Fp2(q)
    # checks
    assert on_curve(Fq, b1, g1), name + " G1 generator not on curve"
    assert on_curve(Fq2, b2, g2), name + " G2 generator not on curve"
    assert ec_mul(Fq, r, g1) is None, name + " G1 generator order"
    assert ec_mul(Fq2, r, g2) is None, name + " G2 generator order"
    nqr, s, w = root_of_unity(r)
    assert s == adicity, (name, s)

    out = [BEGIN]
    out += field_block(P + "_FR", r, fr_limbs)
    out += field_block(P + "_FP", q, fp_limbs)
    out.append("/* curve coefficients b (Montgomery form): G1 b = %d, G2 b = %s */"
               % (b1, b2_text))
    out.append(define(P + "_G1_B", fp_init(b1, q, fp_limbs)))
    out.append(define(P + "_G2_B", fp2_init(b2, q, fp_limbs)))
    out.append("/* generators (affine, Montgomery form) */")
    out.append(define(P + "_G1_GEN", [fp_init(g1[0], q, fp_limbs),
                                      fp_init(g1[1], q, fp_limbs)]))
    out.append(define(P + "_G2_GEN", [fp2_init(g2[0], q, fp_limbs),
                                      fp2_init(g2[1], q, fp_limbs)]))
    out.append("/* primitive 2^%d-th root of unity in Fr (Montgomery form):\n"
               " * %d^((r-1)/2^%d), %d = smallest quadratic non-residue\n"
               " * (ffjavascript's F1Field.w[%d]) */" % (s, nqr, s, nqr, s))
    out.append(define(P + "_FR_ROOT_OF_UNITY", fp_init(w, r, fr_limbs)))
    out.append(END)
    return "\n".join(out) + "\n"


def blocks():
    # BN254 G2 twist: b' = 3 / (9 + u)
    bn_b2 = f2_mul(BN254_Q, (3, 0), f2_inv(BN254_Q, (9, 1)))
    assert f2_mul(BN254_Q, bn_b2, (9, 1)) == (3, 0)
    bn = curve_block("bn254", BN254_R, BN254_Q, 4, 4, 3, bn_b2, "3/(9+u)",
                     BN254_G1, BN254_G2, 28)
    bls = curve_block("bls12381", BLS_R, BLS_Q, 4, 6, 4, (4, 4), "4(1+u)",
                      BLS_G1, BLS_G2, 32)
    out = {"bn254.h": bn, "bls12381.h": bls}
    out.update(pairing_blocks())
    return out


# --------------------------------------------------------------------------
# Pairing constants (common/bn254_pairing.h, common/bls12381_pairing.h)
# --------------------------------------------------------------------------

BN254_U = 4965661367192848881          # BN parameter u (positive)
BLS_X = -0xd201000000010000            # BLS parameter x (negative)


def f2_pow(p, a, e):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2_mul(p, r, a)
        a = f2_mul(p, a, a)
        e >>= 1
    return r


def hard_part_coefs(p, r, z, lam, mult):
    """Checks sum_i lam_i(z) p^i == mult * (p^4 - p^2 + 1)/r exactly, where
    lam_i(z) = sum_j lam[i][j] z^j; returns lam."""
    s = sum(sum(c * z ** j for j, c in enumerate(row)) * p ** i
            for i, row in enumerate(lam))
    assert s == mult * ((p ** 4 - p ** 2 + 1) // r), "hard part decomposition"
    return lam


def pairing_block(name, p, r, fp_limbs, xi, loop, loop_text, z, z_text, lam,
                  mult_text):
    """Frobenius coefficients gamma_k = xi^(k(p-1)/6) (k = 1..5, Fp2,
    Montgomery form), the Miller loop count, the curve parameter z and the
    hard part of the final exponentiation as lambda_i(z) coefficients."""
    P = name.upper()
    assert (p - 1) % 6 == 0
    assert (p ** 4 - p ** 2 + 1) % r == 0
    out = [BEGIN]
    out.append("/* Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v), xi = %d + u */"
               % xi[0])
    out.append("#define %s_XI_C0 %d" % (P, xi[0]))
    out.append("/* Frobenius: gamma_k = xi^(k(p-1)/6), k = 1..5 (Montgomery form) */")
    out.append(define(P + "_FROB_GAMMA",
                      [fp2_init(f2_pow(p, xi, k * (p - 1) // 6), p, fp_limbs)
                       for k in range(1, 6)]))
    out.append("/* Miller loop count %s = %d (%d bits) */"
               % (loop_text, loop, loop.bit_length()))
    out.append("#define %s_ATE_LOOP_LO 0x%016xULL" % (P, loop & (2 ** 64 - 1)))
    out.append("#define %s_ATE_LOOP_HI 0x%016xULL" % (P, loop >> 64))
    out.append("/* curve parameter %s = %s%d */" % (z_text, "-" if z < 0 else "", abs(z)))
    out.append("#define %s_PARAM_ABS 0x%016xULL" % (P, abs(z)))
    out.append("#define %s_PARAM_NEG %d" % (P, 1 if z < 0 else 0))
    out.append("/* hard part of the final exponentiation: %s (p^4 - p^2 + 1)/r =\n"
               " * sum_i lambda_i p^i, lambda_i = sum_j HARD[i][j] %s^j */"
               % (mult_text, z_text))
    out.append("#define %s_HARD_DEG %d" % (P, len(lam[0]) - 1))
    out.append(define(P + "_HARD_COEF", [["%d" % c for c in row] for row in lam]))
    out.append(END)
    return "\n".join(out) + "\n"


def bls_subgroup_block():
    """BLS12-381 endomorphisms for the subgroup tests (Scott, "A note on
    group membership tests for G1, G2 and GT on BLS pairing-friendly
    curves", ePrint 2021/1130): phi(x, y) = (beta x, y) with the cube root of
    unity beta for which phi(P) = -x^2 P on G1, and psi(x, y) =
    (conj(x) cx, conj(y) cy), cx = xi^-((p-1)/3), cy = xi^-((p-1)/2) (the
    untwist-Frobenius-twist map of the M-type twist), psi(Q) = x Q on G2."""
    p, x = BLS_Q, BLS_X
    F, F2 = Fp(p), Fp2(p)
    g = 2
    while pow(g, (p - 1) // 3, p) == 1:
        g += 1
    b = pow(g, (p - 1) // 3, p)
    m = ec_mul(F, x * x, BLS_G1)
    neg = (m[0], (-m[1]) % p)
    beta = [bb for bb in (b, b * b % p) if (bb * BLS_G1[0] % p, BLS_G1[1]) == neg]
    assert len(beta) == 1
    xi = (1, 1)
    cx = f2_inv(p, f2_pow(p, xi, (p - 1) // 3))
    cy = f2_inv(p, f2_pow(p, xi, (p - 1) // 2))
    conj = lambda a: (a[0], (-a[1]) % p)
    psi = (F2.mul(conj(BLS_G2[0]), cx), F2.mul(conj(BLS_G2[1]), cy))
    xq = ec_mul(F2, -x, BLS_G2)
    assert psi == (xq[0], F2.sub(F2.zero, xq[1])), "psi(G2) != x G2"
    return [
        "/* subgroup tests (Scott, ePrint 2021/1130): P in G1 iff phi(P) = -x^2 P,",
        " * phi(x, y) = (beta x, y); Q in G2 iff psi(Q) = x Q,",
        " * psi(x, y) = (conj(x) cx, conj(y) cy), cx = xi^-((p-1)/3), cy = xi^-((p-1)/2) */",
        define("BLS12381_G1_BETA", fp_init(beta[0], p, 6)),
        define("BLS12381_PSI_CX", fp2_init(cx, p, 6)),
        define("BLS12381_PSI_CY", fp2_init(cy, p, 6)),
    ]


def pairing_blocks():
    u = BN254_U
    assert BN254_R == 36 * u ** 4 + 36 * u ** 3 + 18 * u ** 2 + 6 * u + 1
    assert BN254_Q == 36 * u ** 4 + 36 * u ** 3 + 24 * u ** 2 + 6 * u + 1
    x = BLS_X
    assert BLS_R == x ** 4 - x ** 2 + 1
    assert BLS_Q == (x - 1) ** 2 * BLS_R // 3 + x
    # Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, "Faster hashing to G2"
    # (SAC 2011), section 6: BN lambdas for 2u(6u^2 + 3u + 1)(p^4 - p^2 + 1)/r
    bn_lam = hard_part_coefs(BN254_Q, BN254_R, u, [
        [1, 6, 12, 12], [0, 4, 6, 12], [0, 6, 6, 12], [-1, 4, 6, 12]],
        2 * u * (6 * u * u + 3 * u + 1))
    # BLS12: 3(p^4 - p^2 + 1)/r = (x-1)^2 (x+p) (x^2+p^2-1) + 3 (Hayashida,
    # Hayasaka, Teruya, ePrint 2020/875), expanded in powers of p
    bls_lam = hard_part_coefs(BLS_Q, BLS_R, x, [
        [3, -1, 2, 0, -2, 1], [-1, 2, 0, -2, 1, 0], [0, 1, -2, 1, 0, 0],
        [1, -2, 1, 0, 0, 0]], 3)
    bn = pairing_block("bn254", BN254_Q, BN254_R, 4, (9, 1), 6 * u + 2, "6u+2",
                       u, "u", bn_lam, "2u(6u^2 + 3u + 1)")
    bls = pairing_block("bls12381", BLS_Q, BLS_R, 6, (1, 1), -x, "|x|",
                        x, "x", bls_lam, "3")
    bls = bls.replace(END, "\n".join(bls_subgroup_block()) + "\n" + END)
    return {"bn254_pairing.h": bn, "bls12381_pairing.h": bls}


def splice(text, block, fname):
    i = text.find(BEGIN)
    j = text.find(END)
    if i < 0 or j < 0 or j < i:
        raise SystemExit("%s: marker comments not found" % fname)
    return text[:i] + block + text[j + len(END) + 1:]


def main(argv):
    bl = blocks()
    if len(argv) > 1 and argv[1] in ("--update", "--check"):
        stale = False
        for fname, block in bl.items():
            path = os.path.join(HERE, fname)
            with open(path) as f:
                text = f.read()
            new = splice(text, block, fname)
            if new != text:
                stale = True
                if argv[1] == "--update":
                    with open(path, "w") as f:
                        f.write(new)
                    print("updated", path)
                else:
                    print("stale:", path)
        return 1 if (stale and argv[1] == "--check") else 0
    for fname, block in bl.items():
        print("/* ---- common/%s ---- */" % fname)
        sys.stdout.write(block)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
