#!/bin/bash
# Edge tests (issue: the daemon's and the CLI's edges): output paths that are
# links, devices, FIFOs or one file named twice; containers with repeated
# sections. Every proof written is checked with snarkjs.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/build/slotprove
SNARKJS=$PWD/tests/node_modules/.bin/snarkjs
FIX=$PWD/tests/fixtures
SUITE=edges
. tests/lib.sh
verifies() { # verifies PROOF PUBLIC [VK]: snarkjs accepts
    $SNARKJS groth16 verify "${3:-$FIX/bn128/chain.vk.json}" "$2" "$1" 2>&1 | grep -q 'OK!'
}
K=$FIX/bn128/chain.zkey
W=$FIX/bn128/chain.wtns
prove() { $BIN prove -q "$K" "$W" "$@" 2>"$TMP/err"; }

cd "$TMP"
# ---- outputs -----------------------------------------------------------------
prove out.json ./out.json; rc=$?
[ $rc -eq 2 ] && grep -q 'same file' err && [ ! -e out.json ] \
    && ok "prove: out.json and ./out.json are one file: usage error, nothing written" \
    || bad "prove: out.json and ./out.json (exit $rc)"
echo old > real.json; ln -s real.json link.json
prove real.json link.json; rc=$?
[ $rc -eq 2 ] && [ "$(cat real.json)" = old ] && ok "prove: a file and a link to it are one file: exit 2" \
    || bad "prove: file and link to it (exit $rc)"
prove p.json link.json; rc=$?
[ $rc -eq 0 ] && [ -L link.json ] && [ "$(readlink link.json)" = real.json ] && verifies p.json real.json \
    && ok "prove: an output that is a symlink stays a link; its target gets the result" \
    || bad "prove: symlinked output (exit $rc)"
ln -s sub/new.json dangle.json; mkdir sub
prove p.json dangle.json; rc=$?
[ $rc -eq 0 ] && [ -L dangle.json ] && [ -f sub/new.json ] && verifies p.json sub/new.json \
    && ok "prove: a dangling symlink names the file to create" || bad "prove: dangling symlink (exit $rc)"
$BIN prove -q "$K" "$W" p.json /dev/stdout > so.json 2>err; rc=$?
[ $rc -eq 0 ] && verifies p.json so.json && ok "prove: /dev/stdout as PUBLIC prints the public signals" \
    || bad "prove: /dev/stdout (exit $rc)"
$BIN prove -q "$K" "$W" p.json /dev/stdout 2>err | cat > piped.json; rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] && verifies p.json piped.json && ok "prove: /dev/stdout into a pipe" || bad "prove: /dev/stdout into a pipe (exit $rc)"
prove /dev/null /dev/null; rc=$?
[ $rc -eq 0 ] && [ -c /dev/null ] && ok "prove: /dev/null twice is written, and stays a device" \
    || bad "prove: /dev/null (exit $rc)"
mkfifo fifo; (cat fifo > fifo.out) & reader=$!
prove p.json fifo; rc=$?
wait $reader
[ $rc -eq 0 ] && [ -p fifo ] && verifies p.json fifo.out && ok "prove: a FIFO is written directly, not replaced" \
    || bad "prove: FIFO output (exit $rc)"
prove . x.json; rc=$?
[ $rc -eq 1 ] && grep -q 'Is a directory' err && ok "prove: a directory as output: exit 1" || bad "prove: directory output (exit $rc)"
prove nodir/p.json x.json; rc=$?
[ $rc -eq 1 ] && grep -q 'nodir' err && [ ! -e x.json ] && ok "prove: missing directory: exit 1 before any work" \
    || bad "prove: missing directory (exit $rc)"

# ---- containers --------------------------------------------------------------
# a key whose contributions section (10) appears twice: snarkjs proves it, so do we
node - "$K" dup10.zkey <<'JS'
const fs = require('fs');
const b = fs.readFileSync(process.argv[2]);
const ns = b.readUInt32LE(8);
let off = 12, sec = null;
for (let i = 0; i < ns; i++) {
    const id = b.readUInt32LE(off), size = Number(b.readBigUInt64LE(off + 4));
    if (id === 10) sec = b.subarray(off, off + 12 + size);
    off += 12 + size;
}
const out = Buffer.concat([b, sec]);
out.writeUInt32LE(ns + 1, 8);
fs.writeFileSync(process.argv[3], out);
JS
$BIN prove -q dup10.zkey "$W" p.json q.json 2>err; rc=$?
[ $rc -eq 0 ] && verifies p.json q.json && ok "prove: a repeated contributions section is accepted" \
    || bad "prove: repeated section 10 (exit $rc)"
$SNARKJS groth16 prove dup10.zkey "$W" sp.json sq.json >/dev/null 2>&1 && verifies sp.json sq.json \
    && ok "snarkjs proves the same key (the oracle agrees it is harmless)" || bad "snarkjs on a repeated section 10"

# ---- bounded clients, at the defaults: a second daemon, checked at the end ------
# 32 connections of one uid (the --max-client-conns default): 31 idle and one
# that floods status requests and never reads; the 33rd is refused; the
# daemon's memory stays bounded; the idle timeout (30 s) frees them all.
mkdir -m 700 b
$BIN serve --socket b/s.sock --synth 1 --slots 1 --key chain="$K" 2>bserve.log &
bsrv=$!
poll 60 test -S b/s.sock || bad "the bounded-clients daemon did not listen within 60 s" bserve.log
rss_kib() { awk '/^VmRSS/ {print $2}' /proc/$1/status; }
rss0=$(rss_kib $bsrv)
python3 - b/s.sock > hog.out 2>&1 <<'PY' &
import json, socket, sys, time
path = sys.argv[1]
conns = []
for i in range(32):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    conns.append(s)
flood = conns[0]
flood.setblocking(False)
req = b'{"op":"status"}\n' * 1000
sent = 0
t0 = time.time()
while time.time() - t0 < 3:  # until the daemon stops reading (the socket fills)
    try:
        sent += flood.send(req)
    except BlockingIOError:
        time.sleep(0.05)
print('flood sent %d bytes' % sent, flush=True)
extra = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
extra.connect(path)
print('33rd: ' + json.loads(extra.recv(4096)).get('error', 'ok'), flush=True)
print('holding', flush=True)
closed = 0
for s in conns[1:]:
    s.settimeout(60)
    try:
        while s.recv(1 << 16):
            pass
        closed += 1
    except OSError:
        pass
print('idle closed by the daemon: %d of 31' % closed, flush=True)
PY
hog=$!

# ---- the daemon: outputs and logs ----------------------------------------------
mkdir -m 700 d
# while $TMP/d.hold exists gpud holds the partition it took
# (SLOTPROVE_FAULT_HOLD): the rewritten witness below waits behind 4 jobs
# that cannot move, so its synthesis comes after the rewrite however fast
# the prover is and however busy the box
SLOTPROVE_FAULT_HOLD="$TMP/d.hold" $BIN serve --socket d/s.sock --synth 1 --slots 2 --slot-bytes 4M --key chain="$K" 2>serve.log &
srv=$!
poll 60 test -S d/s.sock || bad "the daemon did not listen within 60 s" serve.log
C="--socket d/s.sock"
$BIN submit $C --key chain --witness "$W" --proof o.json --public ./o.json --wait >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q 'same file' err && [ ! -e o.json ] && ok "submit --wait: --proof o.json --public ./o.json: usage error" \
    || bad "submit --wait with one file twice (exit $rc)"
job=$($BIN submit $C --key chain --witness "$W" 2>err)
$BIN wait $C --proof o.json --public o.json "$job" >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q 'same file' err && ok "wait: --proof and --public one file: usage error" \
    || bad "wait with one file twice (exit $rc)"
$BIN wait $C --proof p.json --public link.json "$job" >/dev/null 2>err; rc=$?
[ $rc -eq 0 ] && [ -L link.json ] && verifies p.json real.json && ok "wait: a symlinked output stays a link" \
    || bad "wait: symlinked output (exit $rc)"
$BIN wait $C --proof p.json --public /dev/stdout "$job" 2>err > wso.json; rc=$?
[ $rc -eq 0 ] && verifies p.json wso.json && ok "wait: /dev/stdout prints the public signals" || bad "wait: /dev/stdout (exit $rc)"
# ---- a witness rewritten in place after submit (same inode) -----------------------
# the issue's replay: 4 jobs queued on 1 synthd and 1 slot, then w.wtns is
# submitted and overwritten with another valid witness of the circuit (x0 = 4)
$ROOT/tests/node_modules/.bin/circom2 "$FIX/circuits/chain.circom" --wasm -p bn128 -o . >/dev/null 2>&1
echo '{"x0": "4", "k": "7"}' > x4.json
$SNARKJS wtns calculate chain_js/chain.wasm x4.json w4.wtns >/dev/null 2>&1
intake_idle() { [ "$($BIN status $C --json 2>/dev/null | jq -r .intake.running)" = 0 ]; }
touch "$TMP/d.hold"
for i in 1 2 3 4; do $BIN submit $C --key chain --witness "$W" >/dev/null; done
cp "$W" w.wtns
pj=$($BIN submit $C --key chain --witness w.wtns 2>err)
# pinned (the intake read it), and not synthesized: gpud holds the first job
poll 60 intake_idle || bad "the intake still running 60 s after submit"
cat w4.wtns > w.wtns   # in place: same inode
rm -f "$TMP/d.hold"
$BIN wait $C --proof pinp.json --public pinq.json "$pj" >/dev/null 2>err; rc=$?
if [ $rc -eq 1 ] && grep -q 'w.wtns: the witness changed after submit' err && [ ! -e pinp.json ]; then
    ok "a witness rewritten after submit fails its job: \"the witness changed after submit\""
else bad "witness rewritten after submit (exit $rc)"; fi

# ---- documented limits: at the limit, and one past it ---------------------------
NK=$FIX/bn128/nopub.zkey
NW=$FIX/bn128/nopub.wtns
set --
for i in $(seq 64); do set -- "$@" --witness "$NW"; done
$BIN submit $C --zkey "$NK" "$@" --proof p64.json --public q64.json --wait >/dev/null 2>err; rc=$?
[ $rc -eq 0 ] && [ "$(jq length p64.json)" = 64 ] \
    && ok "submit --zkey with 64 witnesses (65 descriptors: the most a job without a program sends) is proved" \
    || bad "submit --zkey with 64 witnesses (exit $rc)"
$BIN submit $C --zkey "$NK" "$@" --witness "$NW" >/dev/null 2>err; rc=$?
[ $rc -eq 2 ] && grep -q 'at most 64 witnesses' err && ok "65 witnesses: usage error naming the limit" \
    || bad "65 witnesses (exit $rc)"
# a key of exactly --max-job-key (256M, the default; padded with a section
# the prover never reads, sparse on disk) is taken; one byte more is refused
pad_key() { # pad_key OUT BYTES: chain.zkey + section 12 up to BYTES in all
    node -e 'const fs = require("fs"); const [src, out, total] = process.argv.slice(1);
        const b = fs.readFileSync(src), h = Buffer.alloc(12);
        h.writeUInt32LE(12, 0); h.writeBigUInt64LE(BigInt(total) - BigInt(b.length) - 12n, 4);
        const head = Buffer.from(b); head.writeUInt32LE(b.readUInt32LE(8) + 1, 8);
        fs.writeFileSync(out, Buffer.concat([head, h]));' "$K" "$1" "$2"
    truncate -s "$2" "$1"
}
pad_key k256.zkey $((256 << 20))
$BIN submit $C --zkey k256.zkey --witness "$W" --proof kp.json --public kq.json --wait >/dev/null 2>err; rc=$?
[ $rc -eq 0 ] && verifies kp.json kq.json && ok "a key of exactly --max-job-key (256 MiB) is proved" \
    || bad "a 256 MiB key (exit $rc)"
pad_key k257.zkey $(((256 << 20) + 1))
$BIN submit $C --zkey k257.zkey --witness "$W" --proof kp.json --public kq.json --wait >/dev/null 2>err; rc=$?
[ $rc -eq 1 ] && grep -q 'above --max-job-key' err && ok "one byte more: refused, naming --max-job-key" \
    || bad "a 256 MiB + 1 key (exit $rc)"
rm -f k256.zkey k257.zkey
# a raw client: descriptors and request lines, at the limit and one past it
raw() { # raw NFDS LINE_BYTES: sends a status request padded to LINE_BYTES + '\n'
    python3 - "$TMP/d/s.sock" "$1" "$2" "$NW" <<'PY'
import json, os, socket, sys
path, nfds, size, wit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
head = '{"op":"status","pad":"'
line = (head + 'x' * (size - len(head) - 2) + '"}').encode()
assert len(line) == size
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
fds = [os.open(wit, os.O_RDONLY) for _ in range(nfds)]
socket.send_fds(s, [line[:1]], fds) if fds else s.sendall(line[:1])
try:
    s.sendall(line[1:] + b'\n')
except OSError:
    pass  # refused early: the answer is already queued
buf = b''
while not buf.endswith(b'\n'):
    got = s.recv(1 << 20)
    if not got:
        break
    buf += got
print(json.loads(buf).get('error', 'ok'))
PY
}
[ "$(raw 0 65536)" = ok ] && ok "a request line of exactly 65536 bytes is served" || bad "65536-byte request line: $(raw 0 65536)"
[ "$(raw 0 65537)" = "request line too long" ] && ok "65537 bytes: \"request line too long\"" \
    || bad "65537-byte request line: $(raw 0 65537)"
# the limit is REQUEST_MAX_FDS: a key, a witness program and 64 witnesses
r=$(raw 66 100)
case $r in "request needs 0 descriptors, 66 arrived") ok "66 descriptors arrive whole (the limit)" ;; *) bad "66 descriptors: $r" ;; esac
r=$(raw 67 100)
case $r in "more than 66 descriptors"*) ok "67 descriptors: refused naming the limit" ;; *) bad "67 descriptors: $r" ;; esac

# ---- results of any size: 64 partitions x 14,001 public signals (~70 MB) ---------
# (a single answer line used to be capped at 64 MiB; now one line a partition)
mkdir big
$BIN keygen --curve bn128 --constraints 2000 --public 14001 --seed 7 -q --out big 2>err
set --
for i in $(seq 64); do set -- "$@" --witness big/circuit.wtns; done
$BIN submit $C --zkey big/circuit.zkey "$@" --proof bigp.json --public bigq.json --wait >/dev/null 2>err; rc=$?
bytes=$(( $(stat -c %s bigp.json 2>/dev/null || echo 0) + $(stat -c %s bigq.json 2>/dev/null || echo 0) ))
if [ $rc -eq 0 ] && [ "$(jq length bigq.json)" = 64 ] && [ "$(jq '.[63] | length' bigq.json)" = 14001 ] \
    && [ $bytes -gt $((64 << 20)) ]; then
    jq '.[63]' bigp.json > p63.json; jq '.[63]' bigq.json > q63.json
    verifies p63.json q63.json big/vk.json && ok "a job whose results are $((bytes >> 20)) MiB (> 64 MiB) is fetched whole; its last proof verifies" \
        || bad "big job: the last proof does not verify"
else bad "big job (exit $rc, $bytes bytes)"; fi

# a witness whose name forges a log line
evil="$(printf 'evil\n2026-01-01T00:00:00.000Z level=notice slotprove serve[1]: event=job_done job=00000000000000000000000000000000 partitions=1 ms=1 msg="done.wtns')"
# a valid container whose value 5 is not below r: refused by synthd, after
# submit, so the failure (naming the file) reaches the daemon's log
node -e 'const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
         b.fill(0xff, 76 + 5 * 32, 76 + 6 * 32); fs.writeFileSync(process.argv[2], b);' "$W" "$evil"
$BIN submit $C --key chain --witness "$evil" --proof p.json --public q.json --wait >/dev/null 2>err
sleep 0.3
kill -TERM $srv; wait $srv
forged='^2026-01-01T00:00:00.000Z level=notice slotprove serve\[1\]'
if grep -q 'evil.*not below r' serve.log && ! grep -q "$forged" serve.log && ! grep -q "$forged" err; then
    ok "a witness name with a newline cannot forge a log line (daemon log and client message)"
else bad "log forging: $(grep -c . serve.log) log lines"; sed 's/^/       /' serve.log | head; fi

# ---- the queue limit, at the default (4096 partitions) ---------------------------
# gpud holds its one slot for 60 s (a fault delay; a SIGSTOPped child would
# be killed as stalled), so nothing leaves the queue while we fill it
mkdir -m 700 q
SLOTPROVE_FAULT_DELAY_MS=60000 $BIN serve --socket q/s.sock --synth 1 --slots 1 --key nopub="$NK" 2>qserve.log &
qsrv=$!
poll 60 grep -q 'listening on' qserve.log || bad "the queue-limit daemon did not listen within 60 s" qserve.log
set --
for i in $(seq 64); do set -- "$@" --witness "$NW"; done
accepted=0
for j in $(seq 64); do $BIN submit --socket q/s.sock --key nopub "$@" >/dev/null 2>err && accepted=$((accepted + 1)); done
$BIN submit --socket q/s.sock --key nopub --witness "$NW" >/dev/null 2>err; rc=$?
[ $accepted = 64 ] && ok "4096 partitions queued (64 jobs of 64: the --max-queued default)" || bad "only $accepted of 64 jobs of 64 accepted"
[ $rc = 1 ] && grep -q 'queue full (4096 partitions' err && ok "the 4097th partition: \"queue full (4096 partitions, …)\"" \
    || bad "4097th partition (exit $rc)"
kill -KILL $qsrv; wait $qsrv 2>/dev/null

# ---- client keys against --key-cache-max: at the limit, and one key past it ------
AK=$FIX/bn128/allpub.zkey
lim=$(( $(stat -c %s "$NK") + $(stat -c %s "$K") ))
mkdir -m 700 k
# gpud holds its slot for 60 s: the jobs stay running, so their keys cannot be dropped
SLOTPROVE_FAULT_DELAY_MS=60000 $BIN serve --socket k/s.sock --synth 1 --slots 1 --slot-bytes 8M --key-cache-max $lim 2>kserve.log &
ksrv=$!
poll 60 grep -q 'listening on' kserve.log || bad "the key-cache daemon did not listen within 60 s" kserve.log
$BIN submit --socket k/s.sock --zkey "$NK" --witness "$NW" >/dev/null 2>err; r1=$?
$BIN submit --socket k/s.sock --zkey "$K" --witness "$W" >/dev/null 2>>err; r2=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && ok "two client keys filling --key-cache-max exactly ($lim bytes) are held" \
    || bad "keys at the limit (exit $r1 $r2): $(cat err)"
# (client keys are read off the event loop, in parallel: the third goes in
# once the second is held, and its refusal is the job's failure; a key is
# held when its reader is collected, so once status shows no reader running)
kintake_idle() { [ "$($BIN status --socket k/s.sock --json 2>/dev/null | jq -r .intake.running)" = 0 ]; }
poll 60 kintake_idle || bad "the two keys' readers still running after 60 s"
timeout 30 $BIN submit --socket k/s.sock --zkey "$AK" --witness "$FIX/bn128/allpub.wtns" --wait \
    --proof kp.json --public kq.json >/dev/null 2>err; rc=$?
[ $rc = 1 ] && grep -q 'key cache full' err && grep -q 'key-cache-max' err \
    && ok "a third key (3100 bytes past it): refused, naming --key-cache-max" \
    || { bad "key past the budget (exit $rc)"; tail -5 kserve.log | sed 's/^/       /'; }
kill -KILL $ksrv; wait $ksrv 2>/dev/null

# ---- bounded clients: results ------------------------------------------------------
poll 60 grep -q holding hog.out
rss1=$(rss_kib $bsrv)
grep -q '^33rd: too many idle connections for uid' hog.out && ok "the 33rd idle connection of one uid is refused (--max-client-conns 32)" \
    || bad "33rd connection: $(cat hog.out)"
[ $((rss1 - rss0)) -lt 32768 ] && ok "a client that floods requests and never reads: supervisor RSS +$((rss1 - rss0)) KiB (< 32 MiB)" \
    || bad "flooding client: supervisor RSS grew by $((rss1 - rss0)) KiB"
wait $hog
grep -q 'idle closed by the daemon: 31 of 31' hog.out && grep -q 'idle for 30 s' bserve.log \
    && ok "idle connections are closed after 30 s (the default), the flooder too" || bad "idle timeout: $(cat hog.out)"
$BIN status --socket b/s.sock >/dev/null 2>err && ok "a new connection is served once they are gone" || bad "status after the idle timeout"
kill -TERM $bsrv; wait $bsrv

finish
