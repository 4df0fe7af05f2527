pragma circom 2.0.0;
// tests/witness.sh: 300 public outputs, more public signals than one control
// message carries (gpud sends them in pieces before its proof)
template Many(n) {
    signal input x;
    signal output out[n];
    for (var i = 0; i < n; i++) out[i] <== x * x + i;
}
component main = Many(300);
