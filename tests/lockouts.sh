#!/bin/bash
# Clients that could lock the service out (issue 22 item 5), at the defaults:
#   - 48 and then 200 `submit --wait` at once from the daemon's own uid all
#     complete (waiting connections do not count against --max-client-conns;
#     a refusal while too many are still idle is marked busy and retried);
#     every proof is checked by `slotprove verify`, one of each batch by
#     snarkjs;
#   - a slow sender (one byte every 10 s, never a newline) is closed by the
#     idle timeout (30 s): partial lines do not reset it;
#   - after the supervisor stood still (SIGSTOP, 25 s), a connection between
#     requests (20 s quiet before the stall) is still served: the stall does
#     not count as the client's idle time.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/build/slotprove
SNARKJS=$PWD/tests/node_modules/.bin/snarkjs
FIX=$PWD/tests/fixtures
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; [ -f "$TMP/err" ] && sed 's/^/       /' "$TMP/err"; }
K=$FIX/bn128/chain.zkey
W=$FIX/bn128/chain.wtns
VK=$FIX/bn128/chain.vk.json
cd "$TMP"

start() { # start DIR: a daemon at the defaults on DIR/s.sock; pid in $srv
    mkdir -m 700 "$1"
    $BIN serve --socket "$1/s.sock" --key chain="$K" 2>"$1/log" &
    srv=$!
    for i in $(seq 300); do $BIN status --socket "$1/s.sock" >/dev/null 2>&1 && return 0; sleep 0.1; done
    return 1
}

# ---- many concurrent waits of one uid ---------------------------------------------
start a || bad "daemon a did not start"
asrv=$srv
for n in 48 200; do
    mkdir "w$n"
    pids=""
    for i in $(seq $n); do
        $BIN submit --socket a/s.sock --key chain --witness "$W" --wait \
            --proof "w$n/p$i.json" --public "w$n/q$i.json" >/dev/null 2>"w$n/e$i" &
        pids="$pids $!"
    done
    failed=0
    for p in $pids; do wait $p || failed=$((failed + 1)); done
    good=0
    for i in $(seq $n); do
        $BIN verify -q "$VK" "w$n/q$i.json" "w$n/p$i.json" && good=$((good + 1))
    done
    cat w$n/e* > err 2>/dev/null
    [ $failed = 0 ] && [ $good = $n ] \
        && ok "$n concurrent submit --wait from the daemon's uid: all $n complete and verify" \
        || bad "$n concurrent submit --wait: $failed failed, $good of $n proofs verify"
    $SNARKJS groth16 verify "$VK" "w$n/q$n.json" "w$n/p$n.json" 2>&1 | grep -q 'OK!' \
        && ok "$n concurrent: snarkjs accepts the last one" || bad "$n concurrent: snarkjs rejects"
done
rm -f err

# ---- a slow sender -----------------------------------------------------------------
timeout 120 python3 - a/s.sock >slow.out 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(10)
t0 = time.time()
sent = 0
while time.time() - t0 < 100:
    try:
        s.send(b'{')
        sent += 1
        if s.recv(4096) == b'':
            print('closed by the daemon after %d bytes' % sent, flush=True)
            sys.exit(0)
    except socket.timeout:
        continue
    except OSError as e:
        print('closed by the daemon after %d bytes (%s)' % (sent, e), flush=True)
        sys.exit(0)
print('still open after %d bytes' % sent, flush=True)
PY
slow=$!

# ---- a supervisor stall --------------------------------------------------------------
start b || bad "daemon b did not start"
bsrv=$srv
timeout 120 python3 - b/s.sock >stall.out 2>&1 <<'PY' &
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile('rb')
s.sendall(b'{"op":"status"}\n')
print('first: ' + ('ok' if json.loads(f.readline()).get('ok') else 'refused'), flush=True)
time.sleep(47)  # 20 s quiet, 25 s stopped, 2 s after it
try:
    s.sendall(b'{"op":"status"}\n')
    line = f.readline()
    print('after the stall: ' + ('answered' if line and json.loads(line).get('ok') else 'closed'),
          flush=True)
except OSError as e:
    print('after the stall: closed (%s)' % e, flush=True)
PY
stall=$!
for i in $(seq 100); do grep -q first stall.out && break; sleep 0.1; done
sleep 20
kill -STOP $bsrv
sleep 25
kill -CONT $bsrv
wait $stall
grep -q 'after the stall: answered' stall.out \
    && ok "after a 25 s supervisor stall, a connection 20 s into its idle time is still served" \
    || bad "supervisor stall: $(cat stall.out)"
$BIN status --socket b/s.sock >/dev/null 2>err && ok "daemon b answers status after the stall" \
    || bad "status after the stall"
kill -TERM $bsrv; wait $bsrv 2>/dev/null

wait $slow
grep -q 'closed by the daemon after [1-9]' slow.out && grep -q 'idle for 30 s' a/log \
    && ok "a slow sender (1 byte / 10 s, no newline) is closed by the idle timeout (30 s)" \
    || bad "slow sender: $(cat slow.out)"
$BIN status --socket a/s.sock >/dev/null 2>err && ok "daemon a still answers status" || bad "status on a"
kill -TERM $asrv; wait $asrv 2>/dev/null

echo "lockouts: $pass passed, $fail failed"
[ $fail -eq 0 ]
