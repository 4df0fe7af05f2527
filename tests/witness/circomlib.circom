pragma circom 2.0.0;
// tests/witness.sh: a circuit made of circomlib templates (circomlib 2.0.5,
// tests/package.json), compiled by the test both ways (--c and --wasm) on
// BN254 and BLS12-381, small so that its C++ builds fast (Poseidon's
// constants alone make 5 MB of C++). Inputs a and b are range-checked to
// 64 bits (Num2Bits); outputs: sum = a + b (BinSum over the bits,
// Bits2Num), lt = (a < b) (LessThan), eq = (a == b) (IsEqual).
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/binsum.circom";
include "circomlib/circuits/comparators.circom";

template Main() {
    signal input a;
    signal input b;
    signal output sum;
    signal output lt;
    signal output eq;

    component ba = Num2Bits(64);
    component bb = Num2Bits(64);
    ba.in <== a;
    bb.in <== b;
    component add = BinSum(64, 2);
    for (var i = 0; i < 64; i++) {
        add.in[0][i] <== ba.out[i];
        add.in[1][i] <== bb.out[i];
    }
    component s = Bits2Num(65);
    for (var i = 0; i < 65; i++) s.in[i] <== add.out[i];
    sum <== s.out;

    component cmp = LessThan(64);
    cmp.in[0] <== a;
    cmp.in[1] <== b;
    lt <== cmp.out;

    component e = IsEqual();
    e.in[0] <== a;
    e.in[1] <== b;
    eq <== e.out;
}

component main = Main();
