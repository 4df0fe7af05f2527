#!/bin/bash
# Service tests (issue 22): `serve` with no arguments (sizes from the
# machine), --config files, the Prometheus endpoint, systemd readiness and
# socket activation. Proofs are checked with snarkjs; figures against
# /proc/meminfo read here.
set -u
cd "$(dirname "$0")/.."
BIN=$PWD/build/slotprove
SNARKJS=$PWD/tests/node_modules/.bin/snarkjs
FIX=$PWD/tests/fixtures
SUITE=service
. tests/lib.sh
PIDS=""
suite_cleanup() { for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done; sleep 0.5; for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done; }
verifies() { $SNARKJS groth16 verify "$FIX/bn128/$3.vk.json" "$2" "$1" 2>&1 | grep -q 'OK!'; }
poll() { _end=$(($(date +%s) + $1)); shift; while :; do "$@" && return 0; [ "$(date +%s)" -ge "$_end" ] && return 1; sleep 0.1; done; }
st() { "$BIN" status --socket "$1" --json 2>/dev/null; }
up() { [ -n "$(st "$1" | jq -r '.processes[] | select(.role == "gpud") | .state | select(. == "idle")' 2>/dev/null)" ]; }
# stop PID: SIGTERM, wait; true when it exited 0
stop() { kill -TERM "$1"; wait "$1"; _rc=$?; PIDS=$(echo " $PIDS " | sed "s/ $1 / /"); [ "$_rc" = 0 ]; }
cd "$TMP"

# ---- 1. serve with no arguments -------------------------------------------------
mkdir -m 700 d1
SLOTPROVE_SOCKET=$TMP/d1/s.sock "$BIN" serve 2>d1/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d1/s.sock; then
    ok "serve with no arguments starts (socket from \$SLOTPROVE_SOCKET)"
    st d1/s.sock > d1/status.json
    # the rules of run/serve/sizing.h, recomputed from the figures it reports
    python3 - d1/status.json <<'PY' >d1/check 2>&1 && ok "no arguments: slots and slot size follow the documented rules ($(cat d1/check))" || bad "no arguments: sizing" d1/check
import json, sys
st = json.load(open(sys.argv[1])); st = st.get("status", st)
sz = st["sizing"]
mem = [l for l in open("/proc/meminfo") if l.startswith("MemAvailable:")][0]
avail = int(mem.split()[1]) * 1024
u = sz["memory_usable_bytes"]
assert 0 < u <= avail * 1.25, (u, avail)
if sz["memory_usable_from"] == "MemAvailable":
    assert u >= avail * 0.75, (u, avail)
budget = min(u // 8, 64 << 30)
assert sz["pool_budget_bytes"] == budget, sz
procs = st["processes"]
syn = sum(p["role"] == "synthd" for p in procs)
gpu = sum(p["role"] == "gpud" for p in procs)
assert sz["slots"] == syn + 2 * gpu == st["slots"]["total"], (sz, syn, gpu)
want = max(16 << 20, min(16 << 30, budget // sz["slots"] // (1 << 20) * (1 << 20)))
assert sz["slot_bytes"] == want, (sz, want)
page = 4096
assert st["slots"]["slot_bytes"] == (want + page - 1) // page * page, st["slots"]
assert sz["slot_bytes_from"] == "memory" and sz["slots_from"] == "default", sz
print("%d slots of %d MiB from %.1f GiB usable" % (sz["slots"], sz["slot_bytes"] >> 20, u / 2**30))
PY
    grep -q "slots (default) of .* MiB (memory; not prefaulted: pages are allocated as jobs fill the slots); memory usable" d1/log \
        && [ "$(jq .sizing.prefaulted d1/status.json)" = false ] \
        && ok "no arguments: the sizes are printed at start; the pool is not prefaulted (log and status say so)" || bad "no arguments: start line" d1/log
    SLOTPROVE_SOCKET=$TMP/d1/s.sock "$BIN" submit --zkey "$FIX/bn128/chain.zkey" --witness "$FIX/bn128/chain.wtns" \
        --wait --proof p1.json --public pub1.json >/dev/null 2>err \
        && verifies p1.json pub1.json chain && ok "no arguments: a --zkey job is proved (snarkjs verifies)" \
        || bad "no arguments: --zkey job"
    stop $P && ok "no arguments: SIGTERM drains, exit 0" || bad "no arguments: exit" d1/log
else
    bad "serve with no arguments did not come up" d1/log
fi

# a job too large for the slots names the sizes (slots from --slot-bytes here)
mkdir -m 700 d2
"$BIN" serve --socket d2/s.sock --slot-bytes 64K 2>d2/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d2/s.sock; then
    "$BIN" submit --socket d2/s.sock --zkey "$FIX/bn128/chain.zkey" --witness "$FIX/bn128/chain.wtns" \
        --wait --proof p2.json --public pub2.json >/dev/null 2>err; rc=$?
    [ $rc -ne 0 ] && grep -q 'needs [0-9]*-byte slots but the pool.s are 65536 bytes' err \
        && ok "a --zkey job too large for the slots fails with both sizes named" || bad "too-large job (exit $rc)"
    by=$(st d2/s.sock | jq -c '.counters.jobs_failed_by_cause | [.slot_size, .key, .input]')
    [ "$by" = "[1,0,0]" ] && ok "the too-large job counts as jobs_failed_by_cause slot_size (not key or input)" \
        || bad "too-large job's cause [slot_size, key, input] = $by, expected [1,0,0]" /dev/null
    [ "$(st d2/s.sock | jq -r .sizing.slots_from)" = default ] \
        && [ "$(st d2/s.sock | jq -r .sizing.slot_bytes_from)" = --slot-bytes ] \
        && ok "status names where each size came from" || bad "status sizing sources" /dev/null
    stop $P || bad "--slot-bytes 64K: exit" d2/log
else
    bad "serve --slot-bytes 64K did not come up" d2/log
fi

# one slot size (issue 39): slots sized by a --key are the pool's, a whole
# number of pages, in status's slots and sizing and in the refusal of a
# larger --zkey alike; the human status is a summary naming that figure
mkdir -m 700 d7
"$BIN" serve --socket d7/s.sock --key n="$FIX/bn128/nopub.zkey" 2>d7/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d7/s.sock; then
    st d7/s.sock > d7/st.json
    sb=$(jq .slots.slot_bytes d7/st.json)
    [ "$sb" = "$(jq .sizing.slot_bytes d7/st.json)" ] && [ $((sb % $(getconf PAGESIZE))) = 0 ] \
        && ok "a --key sizes the slots: status's slots.slot_bytes = sizing.slot_bytes = $sb, whole pages" \
        || bad "slot size: slots $sb, sizing $(jq .sizing.slot_bytes d7/st.json)" d7/st.json
    "$BIN" submit --socket d7/s.sock --zkey "$FIX/bn128/chain.zkey" --witness "$FIX/bn128/chain.wtns" \
        --wait --proof d7/p.json --public d7/q.json >/dev/null 2>err
    grep -q "needs [0-9]*-byte slots but the pool's are $sb bytes" err \
        && ok "a --zkey too large for them is refused naming the same $sb bytes" || bad "refusal: $(cat err)"
    "$BIN" status --socket d7/s.sock > d7/human
    pids=$(jq -r '.processes[].pid' d7/st.json | tr '\n' ' ')
    ver=$("$BIN" --version)
    n=0; for p in $pids; do grep -q "^  [a-z]* *[0-9]* *$p " d7/human && n=$((n + 1)); done
    head -1 d7/human | grep -q "^${ver% (*} (commit $(echo "$ver" | sed 's/.*commit \(.*\))/\1/')), up [0-9dhms ]*\$" \
        && grep -q "^slots: $(jq .slots.total d7/st.json) of $(awk -v b=$sb 'BEGIN { printf "%d KiB", b / 1024 }') each " d7/human \
        && [ "$(grep -c "$sb\|bytes" d7/human)" = 0 ] && [ "$n" = "$(jq '.processes | length' d7/st.json)" ] \
        && grep -q '^keys: n$' d7/human && [ "$(wc -l < d7/human)" -le 20 ] \
        && ok "status without --json: $(wc -l < d7/human) lines: version and commit as --version says, one slot size ($((sb / 1024)) KiB), each of the $n processes by pid, the key" \
        || bad "human status" d7/human
    stop $P || bad "--key n: exit" d7/log
else
    bad "serve --key n=nopub.zkey did not come up" d7/log
fi

# ---- 2. --metrics --------------------------------------------------------------------
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mkdir -m 700 d4
PORT=$(free_port)
"$BIN" serve --socket d4/s.sock --slot-bytes 8M --metrics 127.0.0.1:$PORT 2>d4/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d4/s.sock; then
    # Debian's python3-prometheus-client is for the system python3
    /usr/bin/python3 "$ROOT/tests/service_metrics.py" "$BIN" d4/s.sock "$PORT" "$FIX" >d4/out 2>&1; rc=$?
    grep -E '^(ok|FAIL)' d4/out | while read -r line; do echo "   $line"; done
    [ $rc = 0 ] && ok "--metrics: scraped under load, parsed by prometheus_client, equal to status ($(grep -c '^ok' d4/out) checks)" \
        || bad "--metrics (see the lines above)" d4/out
    # issue 36 item 5: slow and silent connections cannot keep a scraper out
    timeout 300 /usr/bin/python3 "$ROOT/tests/service_slowloris.py" "$PORT" 15 >d4/slow 2>&1; rc=$?
    grep -E '^(ok|FAIL|#)' d4/slow | while read -r line; do echo "   $line"; done
    [ $rc = 0 ] && ok "--metrics: a slow header is closed at its deadline; every scrape succeeds during 100-connection slowloris and silent attacks ($(grep -c '^ok' d4/slow) checks)" \
        || bad "--metrics: slowloris (exit $rc; see the lines above)" d4/slow
    stop $P || bad "--metrics: exit" d4/log
else
    bad "serve --metrics did not come up" d4/log
fi
# --metrics-cuzk-aliases: cuzk's series with cuzk's meanings (jobs, not partitions)
PORT=$(free_port)
SLOTPROVE_FAULT_DELAY_MS=1500 "$BIN" serve --socket d4/c.sock --slot-bytes 8M --slots 1 --synth 1 \
    --metrics 127.0.0.1:$PORT --metrics-cuzk-aliases 2>d4/clog &
P=$!; PIDS="$PIDS $P"
if poll 60 up d4/c.sock; then
    /usr/bin/python3 "$ROOT/tests/service_cuzk.py" "$BIN" d4/c.sock "$PORT" "$FIX" >d4/cout 2>&1; rc=$?
    grep -E '^(ok|FAIL)' d4/cout | while read -r line; do echo "   $line"; done
    [ $rc = 0 ] && ok "--metrics-cuzk-aliases: cuzk_* series count jobs, as cuzk's do ($(grep -c '^ok' d4/cout) checks)" \
        || bad "--metrics-cuzk-aliases (see the lines above)" d4/cout
    stop $P || bad "--metrics-cuzk-aliases: exit" d4/clog
else
    bad "serve --metrics-cuzk-aliases did not come up" d4/clog
fi
"$BIN" serve --socket d4/s2.sock --slot-bytes 8M --metrics 127.0.0.1:$PORT:x >/dev/null 2>err; rc=$?
[ $rc != 0 ] && grep -q 'metrics 127.0.0.1:'"$PORT"':x: expected ADDR:PORT' err && ok "--metrics: a bad address is named" || bad "--metrics bad address (exit $rc)"

# ---- 2b. failure causes and late results (issue 36 item 7) ----------------------------
# A 2-partition job on one slot: partition 0 is proved while gpud holds its
# result (SLOTPROVE_FAULT_HOLD_RELEASED: the slot is free, the proof not
# sent); partition 1 can only take the slot after that release, and fails in
# synthd (its last wire, private, is 2^256 - 1: not below r), so the job
# fails while the proof of partition 0 is held. Then the hold ends: that
# proof comes for a failed job.
mkdir -m 700 d6
cp "$FIX/bn128/chain.wtns" d6/big.wtns
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-32:] = b"\xff" * 32; open(sys.argv[1], "wb").write(b)' d6/big.wtns
: > d6/hold
SLOTPROVE_FAULT_HOLD_RELEASED=$TMP/d6/hold "$BIN" serve --socket d6/s.sock --slot-bytes 8M --slots 1 --synth 1 2>d6/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d6/s.sock; then
    timeout -k 5 120 "$BIN" submit --socket d6/s.sock --zkey "$FIX/bn128/chain.zkey" --witness "$FIX/bn128/chain.wtns" \
        --witness d6/big.wtns --wait --proof d6/p.json --public d6/pub.json >/dev/null 2>err; rc=$?
    [ $rc = 1 ] && grep -q 'big.wtns.*not below r' err \
        && ok "a witness value not below r (read by synthd) fails its job, named" || bad "value not below r (exit $rc)"
    by=$(st d6/s.sock | jq -c '.counters | [.jobs_failed_by_cause.input, .jobs_failed_by_cause.slot_size, .jobs_failed]')
    [ "$by" = "[1,0,1]" ] && ok "it counts as jobs_failed_by_cause input, not slot_size" \
        || bad "value not below r: [input, slot_size, jobs_failed] = $by, expected [1,0,1]" /dev/null
    rm -f d6/hold
    came() { [ "$(st d6/s.sock | jq '.counters | (.late_results // 0) + .duplicate_results')" -ge 1 ] 2>/dev/null; }
    poll 120 came
    c=$(st d6/s.sock | jq -c '.counters | [.late_results, .duplicate_results, .proofs]')
    [ "$c" = "[1,0,0]" ] \
        && ok "the proof that came after its job failed counts as late_results, not duplicate_results (late, duplicate, proofs = $c)" \
        || bad "late result: [late_results, duplicate_results, proofs] = $c, expected [1,0,0]" d6/log
    stop $P || bad "late result: exit" d6/log
else
    bad "serve --slots 1 with SLOTPROVE_FAULT_HOLD_RELEASED did not come up" d6/log
fi

# ---- 3. systemd: readiness, watchdog, socket activation -------------------------------
if command -v systemd-socket-activate >/dev/null 2>&1; then
    mkdir -m 700 d5
    python3 "$ROOT/tests/service_sd.py" "$BIN" "$TMP/d5" "$FIX" >d5/out 2>&1; rc=$?
    grep -E '^(ok|FAIL|#)' d5/out | while read -r line; do echo "   $line"; done
    [ $rc = 0 ] && verifies d5/p.json d5/pub.json chain \
        && ok "systemd: READY/STATUS/WATCHDOG/STOPPING and socket activation ($(grep -c '^ok' d5/out) checks; proof verified by snarkjs)" \
        || bad "systemd (see the lines above)" d5/out
    # make install into a DESTDIR: the programs find each other, the units name them
    nice make -s -C "$ROOT" install NVCC= DESTDIR="$TMP/dest" PREFIX=/usr >d5/install.log 2>&1 \
        && [ -x "$TMP/dest/usr/libexec/slotprove/synthd" ] && [ -x "$TMP/dest/usr/libexec/slotprove/gpud" ] \
        && grep -q '^ExecStart=/usr/libexec/slotprove/slotprove serve --config /etc/slotprove/serve.conf$' "$TMP/dest/usr/lib/systemd/system/slotprove.service" \
        && grep -q '^ListenStream=/run/slotprove/slotprove.sock$' "$TMP/dest/usr/lib/systemd/system/slotprove.socket" \
        && "$TMP/dest/usr/bin/slotprove" prove -q "$FIX/bn128/chain.zkey" "$FIX/bn128/chain.wtns" d5/ip.json d5/ipub.json 2>err \
        && verifies d5/ip.json d5/ipub.json chain \
        && ok "make install DESTDIR PREFIX=/usr: units filled in; the installed slotprove proves through its installed synthd/gpud" \
        || bad "make install" d5/install.log
    # issue 39: the installed units, checked by systemd's own tools
    DEST=$TMP/dest; U=usr/lib/systemd/system; DOC=$DEST/usr/share/doc/slotprove
    # every relative link of the installed README (and of run/serve's, which the unit names) is installed
    missing=$(cd "$DOC" && for f in README.md run/serve/README.md; do
        grep -o '](\([^):#]*\)' "$f" | sed 's/^](//' | while read -r l; do
            [ -e "$(dirname "$f")/$l" ] || echo "$f -> $l"; done; done)
    [ -z "$missing" ] && [ -f "$DOC/run/README.md" ] \
        && ok "make install: every relative link of the installed README.md and run/serve/README.md resolves ($(find "$DOC" -name '*.md' | wc -l) docs)" \
        || bad "installed docs: missing $missing" /dev/null
    # the example config is installed twice and parses (allow-gid as a group name: ours here)
    sed "s/^allow-gid = slotprove\$/allow-gid = $(id -gn)/" "$DEST/etc/slotprove/serve.conf" > d5/serve.conf
    cmp -s "$DEST/etc/slotprove/serve.conf" "$DOC/serve.conf.example" \
        && "$BIN" serve --config d5/serve.conf --help >/dev/null 2>err \
        && ! "$BIN" serve --config d5/serve.conf --allow-gid no-such-group-39 --help >/dev/null 2>d5/gid.err \
        && grep -q "no-such-group-39.*a numeric gid or a group's name" d5/gid.err \
        && ok "make install: the example serve.conf (etc and doc) parses; allow-gid takes a group name" \
        || bad "example serve.conf: $(cat err)" d5/serve.conf
    # systemd-sysusers and systemd-tmpfiles on an empty root: the user, then its socket directory
    mkdir -p d5/root/etc
    systemd-sysusers --root="$TMP/d5/root" "$DEST/usr/lib/sysusers.d/slotprove.conf" >/dev/null 2>&1 \
        && systemd-tmpfiles --root="$TMP/d5/root" --create "$DEST/usr/lib/tmpfiles.d/slotprove.conf" >/dev/null 2>&1 \
        && uid=$(awk -F: '$1 == "slotprove" { print $3 }' d5/root/etc/passwd) && [ -n "$uid" ] \
        && [ "$(stat -c '%a %u' d5/root/run/slotprove)" = "750 $uid" ] \
        && ok "systemd-sysusers creates the user slotprove (uid $uid); systemd-tmpfiles its socket directory, 0750" \
        || bad "sysusers/tmpfiles" /dev/null
    # systemd-analyze on a root holding the installed units and the system's (sysinit.target …)
    mkdir -p d5/vroot && cp -a "$DEST/." d5/vroot/ && cp -rn /lib/systemd/system/. "d5/vroot/$U/" 2>/dev/null
    out=$(systemd-analyze verify --root="$TMP/d5/vroot" "$U/slotprove.service" "$U/slotprove.socket" 2>&1); rc=$?
    [ $rc = 0 ] && [ -z "$out" ] && grep -q '^User=slotprove$' "$DEST/$U/slotprove.service" \
        && ok "systemd-analyze verify: the installed slotprove.service (User=slotprove) and .socket, no complaint" \
        || bad "systemd-analyze verify (exit $rc): $out" /dev/null
    systemd-analyze security --offline=true --root="$TMP/d5/vroot" "$U/slotprove.service" >d5/security 2>&1
    score=$(sed -n 's/.*Overall exposure level for slotprove.service: \([0-9.]*\) .*/\1/p' d5/security)
    # run/serve/README.md gives the score; a change of the unit that raises it fails here
    [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.8) }' \
        && grep -q "exposure $score " "$ROOT/run/serve/README.md" \
        && ok "systemd-analyze security: exposure $score ($(tail -1 d5/security | sed 's/.*: [0-9.]* //')), as run/serve/README.md says" \
        || bad "systemd-analyze security: exposure '$score' (README: $(grep -o 'exposure [0-9.]* ' "$ROOT/run/serve/README.md"))" d5/security
else
    skipped "systemd: systemd-socket-activate not installed"
fi

# ---- 4. --config FILE -------------------------------------------------------------
mkdir -m 700 d3
cat > d3/serve.conf <<CONF
; serve's options, one a line
[serve]
socket = $TMP/d3/s.sock
slots = 3
slot-bytes = 8M
synth = 1
key = chain=$FIX/bn128/chain.zkey
trace-times = true
no-verify = false
CONF
"$BIN" serve --config d3/serve.conf --slots 5 2>d3/log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d3/s.sock; then
    st d3/s.sock > d3/status.json
    [ "$(jq -r .sizing.slots d3/status.json)" = 5 ] && [ "$(jq -r .slots.slot_bytes d3/status.json)" = 8388608 ] \
        && [ "$(jq '[.processes[] | select(.role == "synthd")] | length' d3/status.json)" = 1 ] \
        && ok "--config: the file's options apply (slot-bytes 8M, synth 1); --slots 5 on the command line overrides slots = 3" \
        || bad "--config values" d3/status.json
    "$BIN" submit --socket d3/s.sock --key chain --witness "$FIX/bn128/chain.wtns" --wait --proof p3.json --public pub3.json >/dev/null 2>err \
        && verifies p3.json pub3.json chain && grep -q ' event=times job=[0-9a-f]\{32\} part=0 ' d3/log \
        && ok "--config: the key named in the file proves (snarkjs verifies); trace-times = true logs event=times" \
        || bad "--config: key from the file" d3/log
    stop $P || bad "--config: exit" d3/log
else
    bad "serve --config did not come up" d3/log
fi
# bad files: each error names FILE:LINE and the reason, exit 2, nothing started
conf_err() { # conf_err DESCRIPTION LINE PATTERN: d3/bad.conf fails naming line LINE
    "$BIN" serve --config d3/bad.conf --socket d3/b.sock >/dev/null 2>err; _rc=$?
    [ $_rc = 2 ] && grep -q "d3/bad.conf:$2: .*$3" err && [ ! -e d3/b.sock ] \
        && ok "--config: $1: exit 2 naming d3/bad.conf:$2" || bad "--config: $1 (exit $_rc)"
}
# stderr that is the journal (JOURNAL_STREAM names it): syslog priorities, no
# stamps; every line "event=NAME key=value ... msg=\"text\"" (run/lib/log.h)
: > d3/journal.log
JOURNAL_STREAM=$(stat -c '%d:%i' d3/journal.log) "$BIN" serve --socket d3/j.sock --slot-bytes 8M --synth 1 2>>d3/journal.log &
P=$!; PIDS="$PIDS $P"
if poll 60 up d3/j.sock; then
    jpid=$("$BIN" status --socket d3/j.sock --json | jq -r '[.processes[] | select(.role == "synthd")][0].pid')
    kill -9 "$jpid"
    poll 30 grep -q "event=died role=synthd" d3/journal.log
    stop $P
    grep -q '^<5>slotprove serve: event=listening synthds=1 gpuds=[0-9]* slots=[0-9]* slot_bytes=8388608 msg="listening on d3/j.sock: ' d3/journal.log \
        && grep -q '^<5>slotprove serve: event=stopped msg="stopped"$' d3/journal.log \
        && grep -q "^<5>slotprove serve: event=started role=synthd index=0 pid=$jpid incarnation=1 msg=\"started synthd pid $jpid (incarnation 1)\"\$" d3/journal.log \
        && grep -q "^<4>slotprove serve: event=died role=synthd index=0 pid=$jpid cause=external fatal=0 msg=\"synthd pid $jpid was killed by signal 9 (Killed) (not its fault)\"\$" d3/journal.log \
        && ! grep '^slotprove serve' d3/journal.log | grep -q . \
        && ! grep -v '^<[345]>slotprove serve: event=[a-z_]*[ $]' d3/journal.log | grep -q . \
        && ok "stderr as the journal: <5>/<4> priorities, no stamp, key=value fields (synthd pid $jpid from status: started, then died of our SIGKILL)" \
        || bad "journal priorities" d3/journal.log
else
    bad "serve with JOURNAL_STREAM did not come up" d3/journal.log
fi
printf 'slots = 2\n\nslotz = 4\n' > d3/bad.conf; conf_err "an unknown name" 3 'unknown option "slotz"'
printf '# c\nsynth = 1\nslots = many\n' > d3/bad.conf; conf_err "a bad value" 3 'slots = many: expected 1..256'
printf 'slots = 2\nthis is not a pair\n' > d3/bad.conf; conf_err "a line without =" 2 'expected .key = value.'
printf '[client]\nslots = 2\n' > d3/bad.conf; conf_err "another section" 2 'the only section is \[serve\]'
printf 'no-verify = maybe\n' > d3/bad.conf; conf_err "a flag that is neither true nor false" 1 'expected true or false'
printf 'config = other.conf\n' > d3/bad.conf; conf_err "config inside config" 1 'not allowed'
printf 'synth = 1\ngpus = 0,x!y\n' > d3/bad.conf; conf_err "a bad GPU list" 2 'gpus = 0,x!y: GPU "x!y"'
"$BIN" serve --config d3/none.conf >/dev/null 2>err; rc=$?
[ $rc = 2 ] && grep -q 'd3/none.conf: No such file' err && ok "--config: a missing file is named (exit 2)" || bad "--config: missing file (exit $rc)"
# not a regular file, or larger than 1 MiB: refused at once, naming the file
# and the reason (issue 36 item 7c; before, a FIFO blocked and /dev/zero spun:
# timeout's exit 124, or 137 when serve, which blocks SIGTERM from its start,
# needed the SIGKILL, says it hung)
not_conf() { # not_conf DESCRIPTION FILE PATTERN [ARG...]
    _d=$1 _f=$2 _p=$3; shift 3
    timeout -k 5 30 "$BIN" serve --config "$_f" --socket d3/n.sock "$@" >/dev/null 2>err; _rc=$?
    [ $_rc = 2 ] && grep -q "$_p" err && [ ! -e d3/n.sock ] \
        && ok "--config: $_d: exit 2 at once: $(head -c 100 err)" || bad "--config: $_d (exit $_rc; 124 or 137: it hung)"
}
mkfifo -m 600 d3/fifo.conf
not_conf "a FIFO" d3/fifo.conf 'd3/fifo.conf: a FIFO, not a regular file'
not_conf "/dev/zero" /dev/zero '/dev/zero: a character device, not a regular file'
not_conf "a directory" d3 'd3: a directory, not a regular file'
# 1 MiB of comments and a valid line after it: one byte more than 1 MiB
{ head -c 1048575 /dev/zero | tr '\0' '#'; printf '\nslots=2\n'; } > d3/big.conf
not_conf "a file over 1 MiB" d3/big.conf "d3/big.conf: $(wc -c < d3/big.conf) bytes, more than the 1048576"
# exactly 1 MiB is read (--help: the options are parsed, nothing starts)
{ head -c 1048567 /dev/zero | tr '\0' '#'; printf '\nslots=2\n'; } > d3/edge.conf
timeout -k 5 30 "$BIN" serve --config d3/edge.conf --help >/dev/null 2>err; rc=$?
[ $rc = 0 ] && [ "$(wc -c < d3/edge.conf)" = 1048576 ] && ok "--config: a file of exactly 1 MiB is read" \
    || bad "--config: a 1 MiB file (exit $rc, $(wc -c < d3/edge.conf) bytes)"

finish
