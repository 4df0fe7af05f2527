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
#     not count as the client's idle time;
#   - a synthd stuck in a read of a hung file cannot stop proving. The file
#     is served by tests/stuck_fuse.c, a real FUSE filesystem (libfuse3):
#     its first bytes (the header and public signals the daemon's intake
#     reads) read at once, the rest of the witness hangs until the test
#     releases it. The reading synthd sleeps in the kernel's FUSE
#     request_wait_answer: state S (interruptible) until the supervisor's
#     SIGKILL at its stall deadline (120 s plus 50 us a row, the default),
#     then D: the kernel waits out a request the filesystem has already
#     read, so the SIGKILL does not take (as on a hung NFS hard mount). The
#     test checks that the process stays alive in D after the kill, is left
#     behind 5 s later, its job fails naming the witness, its slot stays
#     FILLING and is shown quarantined in status, other jobs are proved
#     meanwhile, and once the file is released the process exits, is reaped
#     and its slot freed. Then `cancel` of a job held by a stuck synthd, and
#     SIGTERM with one still stuck: the daemon exits within the shutdown's
#     bounds (5 s, SIGKILL, 5 s) and says it left the process running.
#     Skipped (said so) where FUSE cannot be mounted.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/build/slotprove
ROOT=$PWD
SNARKJS=$PWD/tests/node_modules/.bin/snarkjs
FIX=$PWD/tests/fixtures
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; [ -f "$TMP/err" ] && sed 's/^/       /' "$TMP/err"; }
# poll SECONDS CMD...: runs CMD every 100 ms until it succeeds or SECONDS pass
poll() {
    local end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.1
    done
}
K=$FIX/bn128/chain.zkey
W=$FIX/bn128/chain.wtns
VK=$FIX/bn128/chain.vk.json
cd "$TMP"

answers() { $BIN status --socket "$1" >/dev/null 2>&1; }
start() { # start DIR: a daemon at the defaults on DIR/s.sock; pid in $srv
    mkdir -m 700 "$1"
    $BIN serve --socket "$1/s.sock" --key chain="$K" 2>"$1/log" &
    srv=$!
    poll 60 answers "$1/s.sock"
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
poll 60 grep -q first stall.out
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

# ---- a synthd stuck in an uninterruptible read -----------------------------------------
FUSE_OK=0
mkdir -p mnt
if cc -O1 -Wall -Werror -o stuck_fuse "$ROOT/tests/stuck_fuse.c" $(pkg-config --cflags --libs fuse3) 2>err; then
    # the daemon's intake reads the header and the public signals (values
    # 1..nPublic of section 2); everything past them hangs
    SERVE=$(python3 - "$W" "$VK" <<'PY'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
n_sec = struct.unpack_from('<I', b, 8)[0]
off = 12
for _ in range(n_sec):
    t, size = struct.unpack_from('<IQ', b, off)
    off += 12
    if t == 2:
        break
    off += size
print(off + 32 * (1 + json.load(open(sys.argv[2]))['nPublic']))
PY
)
    ./stuck_fuse "$PWD/mnt" "$W" "$SERVE" "$PWD/release" 2>>fuse.log &
    fusepid=$!
    poll 60 test -e mnt/chain.wtns
    [ -e mnt/chain.wtns ] && cmp -n "$SERVE" mnt/chain.wtns "$W" && FUSE_OK=1
fi
sj() { $BIN status --socket "$1" --json | jq -r "$2"; }
pstate() { awk '/^State:/ {print $2}' /proc/$1/status 2>/dev/null; }
alive() { local s; s=$(pstate $1); [ -n "$s" ] && [ "$s" != Z ]; } # a zombie has exited
dead() { ! alive "$1"; }
# the left-behind synthd PID reaped: logged, its slot no longer quarantined,
# every slot FREE (status in st.json)
reaped_freed() {
    grep -q "synthd pid $1 (left behind stuck" c/log && $BIN status --socket c/s.sock --json > st.json &&
        [ "$(jq -r .quarantined_slots.count st.json)" = 0 ] &&
        [ "$(jq -r .slots.FREE.count st.json)" = "$(jq -r .slots.total st.json)" ]
}
more_held() { [ "$(grep -c holding fuse.log)" -gt "$1" ]; }
if [ $FUSE_OK = 0 ]; then
    echo "skip - a stuck synthd: cannot mount a FUSE filesystem here: $(cat err fuse.log 2>/dev/null | head -3)"
else
    start c || bad "daemon c did not start"
    csrv=$srv
    sid=$($BIN submit --socket c/s.sock --key chain --witness mnt/chain.wtns 2>err)
    poll 60 grep -q holding fuse.log
    spid=$(sj c/s.sock "[.processes[] | select(.role == \"synthd\" and .job == \"$sid\")][0].pid")
    [ -n "$sid" ] && grep -q holding fuse.log && [ -n "$spid" ] && [ "$spid" != null ] \
        && ok "a job whose witness hangs past its first $SERVE bytes is taken; synthd pid $spid reads it" \
        || bad "stuck read not reached: job '$sid', synthd '$spid', $(cat fuse.log)"
    st0=$(pstate $spid)
    # proving goes on meanwhile
    $BIN submit --socket c/s.sock --key chain --witness "$W" --wait --proof c1.json \
        --public c1p.json >/dev/null 2>err && $BIN verify -q "$VK" c1p.json c1.json \
        && ok "meanwhile another job is proved and verifies" || bad "a job beside the stuck one"
    # the stall deadline (about 120 s at the defaults), then 5 s
    for i in $(seq 1800); do grep -q 'left behind stuck' c/log && break; sleep 0.1; done
    st1=$(pstate $spid)
    grep -q "killing synthd pid $spid: stalled" c/log && grep -q "synthd pid $spid still alive" c/log \
        && [ "$st1" = D ] \
        && ok "stalled synthd SIGKILLed and still alive in state $st1 (was $st0 before the kill): left behind" \
        || bad "left behind: state before $st0, after $st1; $(grep "pid $spid" c/log)"
    $BIN wait --socket c/s.sock "$sid" >/dev/null 2>err
    grep -q 'mnt/chain.wtns' err && grep -q 'quarantined until it exits' err \
        && ok "its job fails naming the witness and the quarantined slot: $(cut -c1-160 err)" \
        || bad "stuck job's failure: $(cat err)"
    $BIN status --socket c/s.sock --json > st.json
    qslot=$(jq -r "[.processes[] | select(.state == \"stuck\")][0].quarantined_slots[0]" st.json)
    [ "$(jq -r "[.processes[] | select(.state == \"stuck\")][0].pid" st.json)" = "$spid" ] \
        && [ "$(jq -r "[.processes[] | select(.state == \"stuck\")][0].proc_state" st.json)" = D ] \
        && [ "$(jq -r .quarantined_slots.count st.json)" = 1 ] && [ "$qslot" != null ] \
        && [ "$(jq -r .slots.FILLING.count st.json)" = 1 ] \
        && ok "status shows the stuck synthd (D) and its quarantined slot $qslot (still FILLING)" \
        || bad "status while stuck: $(jq -c '[.processes[] | select(.state == "stuck")], .quarantined_slots, .slots' st.json)"
    [ "$(jq -r '[.processes[] | select(.role == "synthd" and .state != "stuck")] | length' st.json)" = 2 ] \
        && $BIN submit --socket c/s.sock --key chain --witness "$W" --wait \
            --proof c2.json --public c2p.json >/dev/null 2>err && $BIN verify -q "$VK" c2p.json c2.json \
        && ok "two synthds again (a new one took its place); a job is proved and verifies" \
        || bad "after the stuck synthd was left behind: $(cat err); $(jq -c '[.processes[] | [.role, .state]]' st.json)"
    touch release
    poll 60 dead $spid
    poll 60 reaped_freed $spid
    $BIN status --socket c/s.sock --json > st.json
    ! alive $spid && grep -q "synthd pid $spid (left behind stuck.*killed by signal 9" c/log \
        && [ "$(jq -r .quarantined_slots.count st.json)" = 0 ] \
        && [ "$(jq -r .slots.FILLING.count st.json)" = 0 ] \
        && [ "$(jq -r .slots.FREE.count st.json)" = "$(jq -r .slots.total st.json)" ] \
        && ok "released: the process exits, is reaped, and every slot is FREE again" \
        || bad "after the release: $(grep "pid $spid" c/log | tail -2); $(jq -c .slots st.json)"
    # cancel, then SIGTERM, with a synthd stuck again
    rm -f release
    held=$(grep -c holding fuse.log)
    sid=$($BIN submit --socket c/s.sock --key chain --witness mnt/chain.wtns 2>err)
    poll 60 more_held $held
    spid=$(sj c/s.sock "[.processes[] | select(.role == \"synthd\" and .job == \"$sid\")][0].pid")
    timeout 10 $BIN cancel --socket c/s.sock "$sid" >/dev/null 2>err \
        && [ "$(sj c/s.sock .jobs.cancelled)" = 1 ] \
        && ok "cancel of a job held by a stuck synthd answers at once" \
        || bad "cancel with a stuck synthd: $(cat err)"
    t0=$(date +%s)
    kill -TERM $csrv
    for i in $(seq 600); do alive $csrv || break; sleep 0.1; done
    t1=$(date +%s)
    ! alive $csrv && [ $((t1 - t0)) -le 30 ] && alive $spid \
        && grep -q "synthd pid $spid did not exit after SIGKILL" c/log \
        && ok "SIGTERM with a synthd stuck: the daemon exits in $((t1 - t0)) s, leaving pid $spid running" \
        || bad "SIGTERM with a stuck synthd: $((t1 - t0)) s; $(tail -3 c/log)"
    wait $csrv 2>/dev/null
    touch release
    poll 60 dead $spid
    ! alive $spid && ok "released, the orphaned synthd exits" || bad "synthd $spid still there"
    kill $fusepid 2>/dev/null
    wait $fusepid 2>/dev/null
fi
umount -l mnt 2>/dev/null

echo "lockouts: $pass passed, $fail failed"
[ $fail -eq 0 ]
