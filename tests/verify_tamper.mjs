// verify_tamper.mjs - writes a tampered copy of a snarkjs proof.json or
// public.json for tests/verify.sh:
//     node tests/verify_tamper.mjs MODE CURVE IN OUT
// CURVE is bn128 or bls12381. MODE:
//   coord       pi_a's x plus one (the point leaves the curve)
//   offcurve    pi_c's y plus one
//   g2sub       pi_b replaced by a point on the twist outside the prime-order
//               subgroup (found here: the smallest x with x^3 + b' a square
//               in Fp2, y its square root; the twist's cofactor is large, so
//               such a point is almost never of order r - verify.sh checks
//               slotprove's reason and that snarkjs rejects it too)
//   pub         public[0] plus one      pub_r   public[0] = r
//   pub_extra   one more public signal  pub_short  the last one dropped
//   malformed   the file cut in half
//   inf_c       pi_c the point at infinity (z "0")
//   zero_a      pi_a written as x = y = 0, z = 1 (infinity in zkey layout)
//   multi       the proof file of a two-partition job: [proof, proof]
//   multi_pub   the public file of a two-partition job: [public, public]
//   vk_g2sub    (a verification_key.json) vk_delta_2 replaced by the g2sub
//               point: on the twist, outside the prime-order subgroup
//   vk_g1sub    (bls12381 only) IC[1] replaced by a point on G1's curve
//               outside the prime-order subgroup (smallest x with x^3 + 4 a
//               square; G1's cofactor is large; bn128's G1 has cofactor 1)
//   vk_inf      vk_gamma_2 the point at infinity
// Plain BigInt arithmetic, independent of slotprove and of snarkjs.
import { readFileSync, writeFileSync } from "fs";

const [mode, curve, inp, out] = process.argv.slice(2);
const P = {
    bn128: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    bls12381: BigInt("0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624" +
                     "1eabfffeb153ffffb9feffffffffaaab"),
}[curve];
const R = {
    bn128: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    bls12381: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
}[curve];
if (!P) throw new Error("unknown curve " + curve);
const md = (a) => ((a % P) + P) % P;
function pw(b, e) {
    let r = 1n;
    b = md(b);
    while (e > 0n) {
        if (e & 1n) r = (r * b) % P;
        b = (b * b) % P;
        e >>= 1n;
    }
    return r;
}
// Fp2 = Fp[u]/(u^2 + 1), elements [c0, c1]
const add = (a, b) => [md(a[0] + b[0]), md(a[1] + b[1])];
const mul = (a, b) => [md(a[0] * b[0] - a[1] * b[1]), md(a[0] * b[1] + a[1] * b[0])];
const inv = (a) => {
    const n = pw(a[0] * a[0] + a[1] * a[1], P - 2n);
    return [md(a[0] * n), md(-a[1] * n)];
};
function pow2(a, e) {
    let r = [1n, 0n];
    while (e > 0n) {
        if (e & 1n) r = mul(r, a);
        a = mul(a, a);
        e >>= 1n;
    }
    return r;
}
const eq = (a, b) => a[0] === b[0] && a[1] === b[1];
// square root in Fp2 for p = 3 mod 4 (Adj and Rodriguez-Henriquez, alg. 9)
function sqrt2(a) {
    const a1 = pow2(a, (P - 3n) / 4n);
    const alpha = mul(mul(a1, a1), a);
    const x0 = mul(a1, a);
    let x;
    if (eq(alpha, [P - 1n, 0n])) x = mul([0n, 1n], x0);
    else x = mul(pow2(add([1n, 0n], alpha), (P - 1n) / 2n), x0);
    return eq(mul(x, x), a) ? x : null;
}
function g1Point() {
    for (let x = 1n; ; x++) {
        const a = md(x * x * x + 4n), y = pw(a, (P + 1n) / 4n);
        if (md(y * y) === a) return [x, y];
    }
}
function twistPoint() {
    const b = curve === "bn128" ? mul([3n, 0n], inv([9n, 1n])) : [4n, 4n];
    for (let x = 1n; ; x++) {
        const X = [x, 0n];
        const y = sqrt2(add(mul(mul(X, X), X), b));
        if (y) return [[X[0], X[1]], y];
    }
}
const text = readFileSync(inp, "utf8");
if (mode === "malformed") {
    writeFileSync(out, text.slice(0, text.length >> 1));
    process.exit(0);
}
const j = JSON.parse(text);
const inc = (s) => (BigInt(s) + 1n).toString();
switch (mode) {
case "coord": j.pi_a[0] = inc(j.pi_a[0]); break;
case "offcurve": j.pi_c[1] = inc(j.pi_c[1]); break;
case "g2sub": {
    const [x, y] = twistPoint();
    j.pi_b = [x.map(String), y.map(String), ["1", "0"]];
    break;
}
case "inf_c": j.pi_c = ["0", "1", "0"]; break;
case "zero_a": j.pi_a = ["0", "0", "1"]; break;
case "multi": case "multi_pub": writeFileSync(out, JSON.stringify([j, j], null, 1)); process.exit(0);
case "vk_g2sub": {
    const [x, y] = twistPoint();
    j.vk_delta_2 = [x.map(String), y.map(String), ["1", "0"]];
    break;
}
case "vk_g1sub": j.IC[1] = [...g1Point().map(String), "1"]; break;
case "vk_inf": j.vk_gamma_2 = [["0", "0"], ["1", "0"], ["0", "0"]]; break;
case "pub": j[0] = inc(j[0]); break;
case "pub_r": j[0] = R.toString(); break;
case "pub_extra": j.push("1"); break;
case "pub_short": j.pop(); break;
default: throw new Error("unknown mode " + mode);
}
writeFileSync(out, JSON.stringify(j, null, 1));
