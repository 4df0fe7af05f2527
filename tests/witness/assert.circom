pragma circom 2.0.0;

// tests/witness.sh: a circuit whose assert fails on x >= 100, so its
// witness program fails with circom's own message naming the template and line.
template Small() {
    signal input x;
    signal output y;
    assert(x < 100);
    y <== x * x + 1;
}

component main = Small();
