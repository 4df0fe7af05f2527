#!/bin/sh
# make bench-sha256: whole proofs of a real circuit, circomlib's Sha256 over a
# 256-bit message (one compression block, about 31k constraints: BN254 domain
# 2^15, witness mostly 0/1), slotprove against rapidsnark and snarkjs, side by
# side in one run (A B C A B C … so load drift hits all), medians of N runs.
# make bench-sha256x2 (BENCH_SHA_BLOCKS=2): the same over a 64-byte message,
# two compression blocks (about 62.5k constraints: domain 2^16).
#
# Everything is built with the project's npm tools (tests/node_modules:
# circom2, circomlib, snarkjs) and cached under build/bench-sha256/
# (build/bench-sha256x2/ for two blocks), so only the first run pays for it:
# the circuit (r1cs + wasm), the witness, the powers of tau, the zkey
# (groth16 setup plus one contribution) and its verification key. The
# powers of tau (new, one contribution, prepare phase2) are made once at
# the circuit's power and kept in build/bench-sha256/potP_final.ptau; any
# potP_final.ptau there of that power or more serves (a 2^16 file serves
# both benches), and BENCH_PTAU names an existing file instead. Making one
# on a 2-core box: about 20 CPU minutes at 2^15, about 40 at 2^16, most of
# it prepare phase2. The circuit's outputs (the public signals) are checked
# against sha256sum of the message, and every proof made by every prover
# is checked with `snarkjs groth16 verify`.
#
# Prints each prover's median wall and CPU time (user + sys, all threads:
# on a shared machine it moves much less than wall time), the ratios
# slotprove/rapidsnark and snarkjs/slotprove (of the medians, and the median
# of the per-round ratios), and the median of slotprove's stage times (where
# its time goes). Absolute times are this machine's.
#
# env: BENCH_RUNS       runs per prover (default 5)
#      RAPIDSNARK       iden3 rapidsnark's `prover` binary (built by you; left
#                       out with a message when unset)
#      BENCH_SNARKJS    0 to leave snarkjs out
#      BENCH_SHA_BLOCKS 1 (default) or 2: the message's SHA-256 blocks
#      BENCH_SHA_MSG    the message: 1 to 55 bytes for one block (default 32
#                       bytes, a 256-bit preimage), 56 to 119 for two
#                       (default 64 bytes)
#      BENCH_PTAU       a prepared (phase 2) BN254 powers-of-tau file of the
#                       circuit's power or more, used instead of the cache
set -eu
cd "$(dirname "$0")/.."
N=${BENCH_RUNS:-5}
RS=${RAPIDSNARK:-}
USE_SNARKJS=${BENCH_SNARKJS:-1}
BLOCKS=${BENCH_SHA_BLOCKS:-1}
case $BLOCKS in
1) MSG=${BENCH_SHA_MSG:-slotprove bench: sha256 preimage} W=build/bench-sha256 MIN=1 MAX=55 ;;
2) MSG=${BENCH_SHA_MSG:-slotprove bench-sha256x2: a 64-byte message, two SHA-256 blocks.}
   W=build/bench-sha256x2 MIN=56 MAX=119 ;;
*) printf 'bench-sha256: BENCH_SHA_BLOCKS is %s; 1 or 2\n' "$BLOCKS" >&2; exit 1 ;;
esac
PTAU_DIR=build/bench-sha256
BIN=tests/node_modules/.bin
SNARKJS=$BIN/snarkjs

die() { printf 'bench-sha256: %s\n' "$*" >&2; exit 1; }
say() { printf 'bench-sha256: %s\n' "$*"; }
for t in "$BIN/snarkjs" "$BIN/circom2" tests/node_modules/circomlib/circuits/sha256/sha256.circom; do
    [ -e "$t" ] || die "$t not found: run make deps"
done
[ -x build/slotprove ] || die "build/slotprove not found: run make"
command -v sha256sum >/dev/null || die "sha256sum not found"
if [ -n "$RS" ] && [ ! -x "$RS" ]; then
    die "RAPIDSNARK=$RS is not an executable"
fi
if [ -n "${BENCH_PTAU:-}" ] && [ ! -f "$BENCH_PTAU" ]; then
    die "BENCH_PTAU=$BENCH_PTAU: no such file"
fi
LEN=$(printf '%s' "$MSG" | wc -c)
[ "$LEN" -ge "$MIN" ] && [ "$LEN" -le "$MAX" ] ||
    die "BENCH_SHA_MSG is $LEN bytes; $MIN to $MAX make $BLOCKS SHA-256 block(s) (BENCH_SHA_BLOCKS=$BLOCKS)"
BITS=$((LEN * 8))

mkdir -p "$W" "$PTAU_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# step OUT DESCRIPTION CMD...: runs CMD (which writes OUT.tmp) unless OUT
# exists and is newer than every input named in $DEPS; then renames OUT.tmp
# to OUT, so an interrupted step leaves no half-made file in the cache.
step() {
    out=$1 what=$2
    shift 2
    if [ -f "$out" ]; then
        fresh=1
        for d in $DEPS; do
            [ "$out" -nt "$d" ] || fresh=0
        done
        [ "$fresh" = 1 ] && return 0
    fi
    say "$what"
    t0=$(date +%s)
    if ! "$@" > "$TMP/step.log" 2>&1; then
        cat "$TMP/step.log" >&2
        die "$what failed"
    fi
    [ -f "$out.tmp" ] && mv -f "$out.tmp" "$out"
    [ -f "$out" ] || die "$what did not write $out"
    say "  done in $(( $(date +%s) - t0 )) s"
}

# --- the circuit: main = circomlib Sha256(BITS), outputs the digest bits ----
C=sha256_$BITS
CIRCUIT=$W/$C.circom
cat > "$TMP/c.circom" <<EOF
pragma circom 2.0.0;
// slotprove bench-sha256: circomlib's SHA-256 of a $LEN-byte message
// (bits most significant first, as circomlib's tests give them).
include "circomlib/circuits/sha256/sha256.circom";

template Main(nBits) {
    signal input in[nBits];
    signal output out[256];
    component h = Sha256(nBits);
    for (var i = 0; i < nBits; i++) h.in[i] <== in[i];
    for (var i = 0; i < 256; i++) out[i] <== h.out[i];
}

component main = Main($BITS);
EOF
cmp -s "$TMP/c.circom" "$CIRCUIT" || cp "$TMP/c.circom" "$CIRCUIT"

# circom2 (WASI) sees only the current directory and below: paths are
# relative to the repository root, circomlib through -l tests/node_modules.
compile() {
    rm -rf "$W/tmp-circom" && mkdir -p "$W/tmp-circom"
    "$BIN/circom2" "$CIRCUIT" --r1cs --wasm --O1 -l tests/node_modules -o "$W/tmp-circom" || return 1
    rm -rf "$W/${C}_js" && mv "$W/tmp-circom/${C}_js" "$W/${C}_js" &&
        mv "$W/tmp-circom/$C.r1cs" "$W/$C.r1cs.tmp" && rm -rf "$W/tmp-circom"
}
DEPS="$CIRCUIT tests/package-lock.json" step "$W/$C.r1cs" "circom2: compiling $CIRCUIT (r1cs + wasm)" compile

# --- the witness: the message's bits, MSB first ------------------------------
bits=$(printf '%s' "$MSG" | od -An -v -tu1 | awk '{
    for (i = 1; i <= NF; i++) for (b = 7; b >= 0; b--)
        s = s (s == "" ? "" : ",") "\"" int($i / 2^b) % 2 "\"" }
    END { print s }')
printf '{"in":[%s]}\n' "$bits" > "$TMP/input.json"
cmp -s "$TMP/input.json" "$W/input.json" || cp "$TMP/input.json" "$W/input.json"
DEPS="$W/$C.r1cs $W/input.json" step "$W/$C.wtns" "snarkjs wtns calculate" \
    "$SNARKJS" wtns calculate "$W/${C}_js/$C.wasm" "$W/input.json" "$W/$C.wtns.tmp"

# --- powers of tau at the circuit's power, once ------------------------------
# snarkjs's groth16 setup takes the power P = floor(log2(constraints +
# public inputs + outputs)) + 1 (zkey_new.js) and accepts any prepared file
# of power P or more.
"$SNARKJS" r1cs info "$W/$C.r1cs" > "$TMP/r1cs.info" 2>&1 || { cat "$TMP/r1cs.info" >&2; die "snarkjs r1cs info $W/$C.r1cs failed"; }
P=$(awk -F: '/# of (Constraints|Public Inputs|Outputs):/ { n += $NF }
    END { p = 0; while (n >= 1) { n = int(n / 2); p++ } print p }' "$TMP/r1cs.info")
[ "$P" -ge 8 ] || die "could not read the circuit's size from snarkjs r1cs info $W/$C.r1cs"
if [ -n "${BENCH_PTAU:-}" ]; then
    POT=$BENCH_PTAU
else
    POT=
    for p in $(seq "$P" 28); do
        [ -f "$PTAU_DIR/pot${p}_final.ptau" ] && { POT=$PTAU_DIR/pot${p}_final.ptau; break; }
    done
fi
if [ -z "$POT" ]; then
    POT=$PTAU_DIR/pot${P}_final.ptau
    say "no powers of tau of power $P or more in $PTAU_DIR: making $POT (about 20 CPU minutes at 2^15, 40 at 2^16 on a 2-core box; BENCH_PTAU=FILE uses yours)"
    DEPS="" step "$PTAU_DIR/pot${P}_0.ptau" "powersoftau new bn128 $P" \
        "$SNARKJS" powersoftau new bn128 "$P" "$PTAU_DIR/pot${P}_0.ptau.tmp"
    DEPS="$PTAU_DIR/pot${P}_0.ptau" step "$PTAU_DIR/pot${P}_1.ptau" "powersoftau contribute (a few minutes)" \
        "$SNARKJS" powersoftau contribute "$PTAU_DIR/pot${P}_0.ptau" "$PTAU_DIR/pot${P}_1.ptau.tmp" \
        --name=bench-sha256 -e="slotprove bench-sha256 entropy"
    DEPS="$PTAU_DIR/pot${P}_1.ptau" step "$POT" "powersoftau prepare phase2 (the long part)" \
        "$SNARKJS" powersoftau prepare phase2 "$PTAU_DIR/pot${P}_1.ptau" "$POT.tmp"
    rm -f "$PTAU_DIR/pot${P}_0.ptau" "$PTAU_DIR/pot${P}_1.ptau"
fi
# the file's header (snarkjs binfile: "ptau", version, section count; section
# 1 holds n8, q and the power at byte 60): a prepared file has 11 sections
# (phase 1's 7, then the Lagrange bases prepare phase2 adds as 12 to 15)
# shellcheck disable=SC2046 # the numbers are split on purpose
set -- $(od -An -tu4 -N12 "$POT") $(od -An -tu4 -j60 -N4 "$POT")
[ "${1:-}" = 1969321072 ] || die "$POT is not a powers-of-tau file (no ptau magic)"
[ "${3:-0}" -ge 11 ] || die "$POT is not prepared for phase 2 (${3:-0} sections; run snarkjs powersoftau prepare phase2)"
[ "${4:-0}" -ge "$P" ] || die "$POT has power ${4:-0}; the circuit ($W/$C.r1cs) needs $P or more"
say "powers of tau: $POT (power $4; the circuit needs $P)"

# --- the key: groth16 setup, one contribution, verification key ---------------
DEPS="$W/$C.r1cs $POT" step "$W/${C}_0.zkey" "groth16 setup" \
    "$SNARKJS" groth16 setup "$W/$C.r1cs" "$POT" "$W/${C}_0.zkey.tmp"
DEPS="$W/${C}_0.zkey" step "$W/$C.zkey" "zkey contribute" \
    "$SNARKJS" zkey contribute "$W/${C}_0.zkey" "$W/$C.zkey.tmp" \
    --name=bench-sha256 -e="slotprove bench-sha256 zkey entropy"
DEPS="$W/$C.zkey" step "$W/$C.vk.json" "zkey export verificationkey" \
    "$SNARKJS" zkey export verificationkey "$W/$C.zkey" "$W/$C.vk.json.tmp"

# --- the expected public signals: the digest's bits, MSB first ----------------
digest=$(printf '%s' "$MSG" | sha256sum | cut -c1-64)
echo "$digest" | awk '{
    n = split("0 1 2 3 4 5 6 7 8 9 a b c d e f", hx, " ")
    for (i = 1; i <= n; i++) v[hx[i]] = i - 1
    for (i = 1; i <= 64; i++) { d = v[substr($1, i, 1)]
        for (b = 3; b >= 0; b--) print int(d / 2^b) % 2 }
}' > "$TMP/expect"

# check PROOF PUBLIC NAME: snarkjs verifies the proof, and the public signals
# are the message's SHA-256 (so the circuit really computed the digest)
check() {
    jq -r '.[]' "$2" > "$TMP/got" 2>/dev/null || die "$3: $2 is not a JSON array"
    cmp -s "$TMP/got" "$TMP/expect" ||
        die "$3: public signals in $2 are not the SHA-256 of the message ($digest)"
    "$SNARKJS" groth16 verify "$W/$C.vk.json" "$2" "$1" > "$TMP/verify.log" 2>&1 ||
        { cat "$TMP/verify.log" >&2; die "$3: snarkjs groth16 verify rejected $1"; }
    grep -q 'OK' "$TMP/verify.log" || { cat "$TMP/verify.log" >&2; die "$3: snarkjs groth16 verify did not say OK"; }
}

# cpu_ms VAR: sets VAR to the children's CPU time so far (user + sys, ms),
# from the shell's `times` (run in this shell: in a $(...) subshell it would
# see no children)
cpu_ms() {
    times > "$TMP/times"
    awk 'NR == 2 { t = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
        printf "%d\n", t * 1000 }' "$TMP/times" > "$TMP/cpu"
    read -r "$1" < "$TMP/cpu"
}
# timed RESULT_FILE CMD...: runs CMD, appends its wall time in ms to
# RESULT_FILE and its CPU time (all threads, user + sys) to RESULT_FILE.cpu
timed() {
    f=$1
    shift
    cpu_ms c0
    t0=$(date +%s%N)
    "$@" > "$TMP/run.log" 2>&1 || { cat "$TMP/run.log" >&2; die "$1 failed"; }
    t1=$(date +%s%N)
    cpu_ms c1
    echo $(( (t1 - t0) / 1000000 )) >> "$f"
    echo $(( c1 - c0 )) >> "$f.cpu"
}
# median of the per-round ratios of two result files (line i over line i)
ratio_median() {
    paste "$1" "$2" | awk '{ printf "%.4f\n", $1 / $2 }' | median
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "machine: $(nproc) CPUs ($(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
cons=$(sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p' "$TMP/r1cs.info")
info=$(build/slotprove prove "$W/$C.zkey" "$W/$C.wtns" "$TMP/p.json" "$TMP/q.json" 2>&1) ||
    { echo "$info" >&2; die "slotprove prove failed"; }
dom=$(echo "$info" | sed -n 's/.*domain \(2^[0-9]*\).*/\1/p')
nvars=$(echo "$info" | sed -n 's/.*nVars \([0-9]*\).*/\1/p')
ones=$(node -e '
const b = require("fs").readFileSync(process.argv[1]);
// wtns: magic, version, nSections; section 1 (header: n8, prime, nWitness), section 2 (values)
let o = 12, n8 = 0, nw = 0, z = 0, one = 0;
while (o < b.length) {
    const id = b.readUInt32LE(o), len = Number(b.readBigUInt64LE(o + 4)); o += 12;
    if (id === 1) { n8 = b.readUInt32LE(o); nw = b.readUInt32LE(o + 4 + n8); }
    if (id === 2) for (let i = 0; i < nw; i++) {
        const v = b.subarray(o + i * n8, o + (i + 1) * n8);
        let hi = 0; for (let j = 1; j < n8; j++) hi |= v[j];
        if (!hi && v[0] === 0) z++; else if (!hi && v[0] === 1) one++;
    }
    o += len;
}
console.log(`${nw} values: ${z} zero, ${one} one, ${nw - z - one} other`);' "$W/$C.wtns")
echo "circuit: circomlib Sha256($BITS), $cons constraints, domain $dom, nVars $nvars; witness $ones"
check "$TMP/p.json" "$TMP/q.json" slotprove

: > "$TMP/a"; : > "$TMP/b"; : > "$TMP/c"; : > "$TMP/stages"
: > "$TMP/a.cpu"; : > "$TMP/b.cpu"; : > "$TMP/c.cpu"
[ -n "$RS" ] || say "RAPIDSNARK is not set: rapidsnark left out (set it to iden3 rapidsnark's prover binary)"
for i in $(seq "$N"); do
    timed "$TMP/a" build/slotprove prove "$W/$C.zkey" "$W/$C.wtns" "$TMP/a.proof.json" "$TMP/a.public.json"
    sed -n 's/^  \([a-z_0-9]*\) *\([0-9.]*\) ms.*/\1 \2/p' "$TMP/run.log" >> "$TMP/stages"
    check "$TMP/a.proof.json" "$TMP/a.public.json" "slotprove run $i"
    if [ -n "$RS" ]; then
        timed "$TMP/b" "$RS" "$W/$C.zkey" "$W/$C.wtns" "$TMP/b.proof.json" "$TMP/b.public.json"
        check "$TMP/b.proof.json" "$TMP/b.public.json" "rapidsnark run $i"
    fi
    if [ "$USE_SNARKJS" = 1 ]; then
        timed "$TMP/c" "$SNARKJS" groth16 prove "$W/$C.zkey" "$W/$C.wtns" "$TMP/c.proof.json" "$TMP/c.public.json"
        check "$TMP/c.proof.json" "$TMP/c.public.json" "snarkjs run $i"
    fi
    printf '  round %d: slotprove %s ms%s%s\n' "$i" "$(tail -n1 "$TMP/a")" \
        "$([ -n "$RS" ] && printf ', rapidsnark %s ms' "$(tail -n1 "$TMP/b")")" \
        "$([ "$USE_SNARKJS" = 1 ] && printf ', snarkjs %s ms' "$(tail -n1 "$TMP/c")")"
done

a=$(median < "$TMP/a")
echo
printf '%-24s %10s %10s\n' prover "wall ms" "CPU ms"
printf '%-24s %10s %10s\n' "slotprove prove" "$a" "$(median < "$TMP/a.cpu")"
if [ -n "$RS" ]; then
    b=$(median < "$TMP/b")
    printf '%-24s %10s %10s\n' "rapidsnark prover" "$b" "$(median < "$TMP/b.cpu")"
fi
if [ "$USE_SNARKJS" = 1 ]; then
    c=$(median < "$TMP/c")
    printf '%-24s %10s %10s\n' "snarkjs groth16 prove" "$c" "$(median < "$TMP/c.cpu")"
fi
echo "ratios: of the medians; in brackets the median of the per-round ratios, and CPU time's"
[ -n "$RS" ] && printf 'slotprove / rapidsnark: %.2f  (%.2f; CPU %.2f)   issue 11 target (2^15): at most 0.90\n' \
    "$(echo "$a $b" | awk '{print $1/$2}')" "$(ratio_median "$TMP/a" "$TMP/b")" \
    "$(ratio_median "$TMP/a.cpu" "$TMP/b.cpu")"
[ "$USE_SNARKJS" = 1 ] && printf 'snarkjs / slotprove:    %.2f  (%.2f; CPU %.2f)\n' \
    "$(echo "$c $a" | awk '{print $1/$2}')" "$(ratio_median "$TMP/c" "$TMP/a")" \
    "$(ratio_median "$TMP/c.cpu" "$TMP/a.cpu")"
echo "(median of $N alternating runs each, whole commands: process start, key load, proof,"
echo " output; CPU = user + sys of all threads; every proof verified by snarkjs groth16 verify,"
echo " outside the timed part)"
echo
echo "slotprove stage medians (ms, from prove's stderr):"
awk '{print $1}' "$TMP/stages" | awk '!seen[$0]++' | while read -r s; do
    printf '  %-10s %9s\n' "$s" "$(awk -v s="$s" '$1 == s {print $2}' "$TMP/stages" | median)"
done
