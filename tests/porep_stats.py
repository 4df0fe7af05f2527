#!/usr/bin/env python3
"""Reads a porep-shaped key's files (circuit.params, circuit.pce,
circuit.wtns) on its own, without slotprove, and checks their statistics
against PoRep's published per-partition figures scaled by f = S * 2^(D-27)
(issue 38; common/README-bellperson.md):

  130,278,869 constraints (328 input rows), 328 inputs, 130,169,893 aux,
  non-zeros A 309.4 M, B 130.3 M, C 282.7 M, a_aux density 99.7 %,
  b_aux 33,112,281 columns, domain 2^27; the share of aux values that are
  bits: the README's estimate, 99 %.

usage: porep_stats.py DIR S D   -> one "ok"/"FAIL" line per check, exit 1 on
any FAIL. Formats: .params (bellperson: vk, then u32 big-endian counts of h,
l, a, b_g1, b_g2, uncompressed points of 96 / 192 bytes), PCE v2 (32-byte
header, CSR A/B/C little-endian), .wtns (iden3, values LE after 76 bytes).
"""
import struct
import sys

d, S, D = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
f = S * 2.0 ** (D - 27)
fails = 0


def check(name, got, want, rel):
    global fails
    good = abs(got - want) <= rel * abs(want)
    print(("ok  " if good else "FAIL") + f" {name}: {got} (published x scale: {want:.6g}, "
          f"within {rel * 100:g} %)")
    fails += not good


# ---- the PCE
pce = open(f"{d}/circuit.pce", "rb").read()
assert pce[:4] == b"PCE\x02", "not a PCE v2"
_, n_in, n_aux, rows = struct.unpack_from("<IIII", pce, 4)
off = 32
nnz, cols = [], []
for m in range(3):
    (cnt,) = struct.unpack_from("<Q", pce, off)
    rp_last = struct.unpack_from("<I", pce, off + 8 + 4 * (cnt - 1))[0]
    off += 8 + 4 * cnt
    (k,) = struct.unpack_from("<Q", pce, off)
    assert k == rp_last, "row_ptrs end != nnz"
    cols.append(struct.unpack_from(f"<{k}I", pce, off + 8))
    off += 8 + 4 * k + 8 + 32 * k
    nnz.append(k)
a_aux = len({c for c in cols[0] if c >= n_in})
b_aux = len({c for c in cols[1] if c >= n_in})
b_in = len({c for c in cols[1] if c < n_in})

# ---- the .params: skip the vk, read the section counts
par = open(f"{d}/circuit.params", "rb").read()
o = 3 * 96 + 3 * 192
(n_ic,) = struct.unpack_from(">I", par, o)
o += 4 + 96 * n_ic
counts = []
for size in (96, 96, 96, 96, 192):
    (c,) = struct.unpack_from(">I", par, o)
    counts.append(c)
    o += 4 + size * c
h, l, a, b1, b2 = counts

# ---- the witness: aux values that are 0 or 1
w = open(f"{d}/circuit.wtns", "rb").read()
(n_w,) = struct.unpack_from("<I", w, 60)
zero, one = bytes(32), (1).to_bytes(32, "little")
bits = sum(1 for i in range(n_in, n_w) if w[76 + 32 * i:108 + 32 * i] in (zero, one))

ok_layout = o == len(par) and n_ic == n_in and n_w == n_in + n_aux
print(("ok  " if ok_layout else "FAIL") + f" layout: .params {len(par)} bytes read whole, "
      f"IC {n_ic}, witness {n_w} values")
fails += not ok_layout
dom = 1 << D
print(("ok  " if h == dom - 1 and rows <= dom < 2 * rows else "FAIL") +
      f" domain: h has {h} points, {rows} constraints: 2^{D}")
fails += not (h == dom - 1 and rows <= dom < 2 * rows)
check("inputs", n_in, 328, 0)
check("circuit rows (constraints - input rows)", rows - n_in, (130278869 - 328) * 2.0 ** (D - 27),
      0.0001)
check("aux", n_aux, 130169893 * f, 0.001)
check("non-zeros A", nnz[0], 309.4e6 * f, 0.002)
check("non-zeros B", nnz[1], 130.3e6 * f, 0.002)
check("non-zeros C", nnz[2], 282.7e6 * f, 0.002)
check("a_aux density", a_aux / n_aux, 0.997, 0.001)
check("b_aux columns", b_aux, 33112281 * f, 0.002)
check(".params a = inputs + a_aux", a, n_in + a_aux, 0)
check(".params b_g1 = b_input + b_aux", b1, b_in + b_aux, 0)
check(".params b_g2 = b_g1", b2, b1, 0)
check(".params l = aux", l, n_aux, 0)
check("witness bit share", bits / n_aux, 0.99, 0.005)
sys.exit(1 if fails else 0)
