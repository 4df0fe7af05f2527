#!/bin/sh
# Fault suite for `slotprove serve` (make faults; part of make test).
#
# Each section starts its own daemon (socket in a fresh 0700 directory),
# injects one kind of fault (SIGKILLs, SLOTPROVE_FAULT* from common/fault_point.h,
# SLOTPROVE_FAULT_DELAY_MS from gpud/fault_delay.c, bad inputs, signals, other uids)
# and checks what clients and `slotprove status --json` see. Proofs are
# verified with snarkjs (its JS API, in one node process per batch).
# Synchronisation is by polling `status --json` (or the daemon log) with a
# deadline, never by fixed sleeps (the only plain sleeps: the killer's random
# pauses); a state a check samples is made to last (SLOTPROVE_FAULT_HOLD*
# files) or read from the daemon's own counters and log. Every process
# started here is killed on exit (trap), and each section checks that its
# daemon left no synthd/gpud. FAULTS_ONLY="s2 s7" runs some sections only.
#
# Output (tests/lib.sh): "ok   - ..." / "FAIL - ..." per check, "# ..." notes and figures,
# each section's elapsed seconds, and last "faults: N passed, M failed".
# Exit status 1 when a check failed. Needs: build/ binaries, jq, node,
# tests/node_modules (make deps). Section 11 runs clients as uid 65534 when
# run as root (setpriv), else it is skipped with a note.
set -u
cd "$(dirname "$0")/.." || exit 1
ulimit -c 0 2>/dev/null # crash tests raise SIGSEGV: no core files
ROOT=$PWD
BIN=$ROOT/build/slotprove
FIX=$ROOT/tests/fixtures/bn128
export NODE_PATH="$ROOT/tests/node_modules"

NJOBS=${FAULTS_NJOBS:-210}   # section 1: jobs under random synthd kills
KILLS_MIN=50                 # section 1: at least this many synthd SIGKILLs
KILLS_MAX=150                # section 1: the killer stops here
OTHER_GID=4711               # section 11: the group given --allow-gid

DAEMONS=""                   # serve pids started and not yet reaped
ALL_DAEMONS=""               # every serve pid started, for the final orphan check
BG=""                        # other background pids (killer, samplers, clients)
EXTRA=""                     # directories outside $TMP to remove
SUITE=faults
. tests/lib.sh
. tests/wcopy_bytes.sh

show() { [ -s "$1" ] && tail -n "${2:-15}" "$1" | sed 's/^/#     /'; return 0; }
# kill, but never a process group: a pid of 0 (what status shows for a child
# that is not running) would signal this script's own process group
kill() {
    case ${1:-} in -*) _sig=$1; shift ;; *) _sig=-TERM ;; esac
    for _a in "$@"; do
        [ "$_a" -gt 0 ] 2>/dev/null || { echo "faults.sh: not signalling pid '$_a'" >&2; return 1; }
    done
    command kill "$_sig" "$@"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

suite_cleanup() {
    for _p in $BG; do kill -KILL "$_p" 2>/dev/null; done
    for _p in $DAEMONS; do kill -KILL "$_p" 2>/dev/null; done
    for _p in $DAEMONS; do
        for _k in $(kids_of "$_p"); do kill -KILL "$_k" 2>/dev/null; done
    done
    wait 2>/dev/null
    rm -rf $EXTRA
}

# ---- processes ----------------------------------------------------------------

# alive PID: exists and is not a zombie
alive() {
    _s=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
    [ -n "$_s" ] && [ "$_s" != Z ] && [ "$_s" != X ]
}
dead() { ! alive "$1"; }
all_dead() { for _q in "$@"; do alive "$_q" && return 1; done; return 0; }

# kids_of SERVE_PID: live synthd/gpud processes that serve started (their
# command line names it as --supervisor), even after it died
kids_of() {
    for _d in /proc/[0-9]*; do
        case "$( { tr '\0' ' ' <"$_d/cmdline"; } 2>/dev/null)" in
        "synthd "*"--supervisor $1 "* | "gpud "*"--supervisor $1 "*)
            alive "${_d#/proc/}" && echo "${_d#/proc/}" ;;
        esac
    done
}
no_kids() { [ -z "$(kids_of "$1")" ]; }

# poll SECONDS COMMAND...: tests/lib.sh

# ---- the daemon ---------------------------------------------------------------

st() { "$BIN" status --socket "$SOCK" --json 2>/dev/null; }
sj() { st | jq -r "$1" 2>/dev/null; }
gpud_pid() { sj '.processes[] | select(.role == "gpud") | .pid'; }
counter() { sj ".counters.$1"; }

# start_daemon TAG [VAR=VALUE ...] -- SERVE_ARGS...: sets D (its 0700
# directory), SOCK, LOG, DPID; waits until it answers status
start_daemon() {
    TAG=$1
    shift
    _env=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do _env="$_env $1"; shift; done
    shift
    D=$(mktemp -d "$TMP/$TAG.XXXXXX")
    SOCK=$D/s.sock
    LOG=$D/daemon.log
    # shellcheck disable=SC2086
    env $_env "$BIN" serve --socket "$SOCK" "$@" 2>"$LOG" &
    DPID=$!
    DAEMONS="$DAEMONS $DPID"
    ALL_DAEMONS="$ALL_DAEMONS $DPID"
    _end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$_end" ] && alive "$DPID"; do
        if [ -n "$(sj '.processes[] | select(.role == "gpud") | .state | select(. == "idle")')" ]; then
            return 0
        fi
        sleep 0.05
    done
    bad "$TAG: the daemon did not come up (serve $*)"
    show "$LOG"
    return 1
}

forget() { DAEMONS=$(echo " $DAEMONS " | sed "s/ $1 / /; s/^ *//; s/ *$//"); }
# reaped background pids leave the cleanup list (their numbers may be reused)
bg_add() { BG="$BG $1"; }
bg_done() { BG=$(echo " $BG " | sed "s/ $1 / /; s/^ *//; s/ *$//"); }

# stop_daemon: SIGTERM, wait for its exit (deadline), reap it, check that it
# exited 0 and left no synthd/gpud behind
stop_daemon() {
    kill -TERM "$DPID" 2>/dev/null
    if ! poll 60 dead "$DPID"; then
        bad "$TAG: daemon did not exit within 60 s of SIGTERM"
        kill -KILL "$DPID" 2>/dev/null
    fi
    wait "$DPID"
    _rc=$?
    forget "$DPID"
    if poll 30 no_kids "$DPID"; then
        check "$TAG: SIGTERM: the daemon exited 0 ($_rc) and no synthd/gpud of it is left" [ "$_rc" = 0 ]
    else
        bad "$TAG: synthd/gpud left after the daemon exited: $(kids_of "$DPID" | tr '\n' ' ')"
        for _k in $(kids_of "$DPID"); do kill -KILL "$_k"; done
    fi
}

submit() { "$BIN" submit --socket "$SOCK" "$@"; }

# ---- node helper: zkey/wtns figures and batch verification ----------------------

cat >"$TMP/h.js" <<'EOF'
'use strict';
const fs = require('fs');
const [cmd, a1, a2] = process.argv.slice(2);
function sections(b, magic) {
  if (b.toString('latin1', 0, 4) !== magic) throw new Error('not a ' + magic + ' file');
  const n = b.readUInt32LE(8), s = {};
  let off = 12;
  for (let i = 0; i < n; i++) {
    const t = b.readUInt32LE(off), size = Number(b.readBigUInt64LE(off + 4));
    (s[t] = s[t] || []).push({ off: off + 12, size });
    off += 12 + size;
  }
  return s;
}
if (cmd === 'zkinfo') {            // nVars nPublic domainSize nCoefs n8r
  const b = fs.readFileSync(a1), s = sections(b, 'zkey');
  let o = s[2][0].off;
  o += 4 + b.readUInt32LE(o);
  const n8r = b.readUInt32LE(o);
  o += 4 + n8r;
  console.log(b.readUInt32LE(o), b.readUInt32LE(o + 4), b.readUInt32LE(o + 8),
              b.readUInt32LE(s[4][0].off), n8r);
} else if (cmd === 'wtns-big') {   // copy a1 to a2 with witness value 0 = 2^256-1 (>= r)
  const b = fs.readFileSync(a1), s = sections(b, 'wtns');
  const n8 = b.readUInt32LE(s[1][0].off), off = s[2][0].off;
  b.fill(0xff, off, off + n8);
  fs.writeFileSync(a2, b);
  console.log(off);
} else if (cmd === 'verify') {     // lines: VK PROOF PUBLIC NPARTS EXPECTED_PUBLIC
  (async () => {
    const snarkjs = require('snarkjs');
    const lines = fs.readFileSync(a1, 'utf8').split('\n').filter(Boolean);
    const vks = {}, bad = [];
    let proofs = 0, good = 0, control = null;
    for (const line of lines) {
      const [vkp, pp, qp, ns, ep] = line.split(' ');
      const n = Number(ns);
      try {
        const vk = vks[vkp] || (vks[vkp] = JSON.parse(fs.readFileSync(vkp, 'utf8')));
        const P = JSON.parse(fs.readFileSync(pp, 'utf8')), Q = JSON.parse(fs.readFileSync(qp, 'utf8'));
        const exp = JSON.stringify(JSON.parse(fs.readFileSync(ep, 'utf8')));
        if (n === 1 && (Array.isArray(P) || typeof P !== 'object'))
          throw new Error('one witness, but the proof file is not one proof object');
        if (n > 1 && (!Array.isArray(P) || P.length !== n))
          throw new Error(`${n} witnesses, but ${Array.isArray(P) ? P.length : 'not an array of'} proofs`);
        const ps = n === 1 ? [P] : P, qs = n === 1 ? [Q] : Q;
        if (!Array.isArray(qs) || qs.length !== n) throw new Error('public file has the wrong shape');
        for (let i = 0; i < n; i++) {
          proofs++;
          if (JSON.stringify(qs[i]) !== exp) throw new Error(`public[${i}] differs from the fixture`);
          if (!(await snarkjs.groth16.verify(vk, qs[i], ps[i]))) throw new Error(`proof ${i} rejected`);
          good++;
          if (!control) control = { vk, pub: qs[i], proof: ps[i] };
        }
      } catch (e) { bad.push(pp + ': ' + (e.message || e)); }
    }
    // negative control: the same verifier rejects a tampered proof
    let control_rejected = null;
    if (control) {
      const t = JSON.parse(JSON.stringify(control.proof));
      [t.pi_a, t.pi_c] = [t.pi_c, t.pi_a];
      control_rejected = !(await snarkjs.groth16.verify(control.vk, control.pub, t));
    }
    console.log(JSON.stringify({ jobs: lines.length, proofs, verified: good, nbad: bad.length,
                                 bad: bad.slice(0, 5), control_rejected }));
    process.exit(bad.length === 0 && control_rejected === true && good > 0 ? 0 : 1);
  })().catch((e) => { console.log(JSON.stringify({ error: String(e) })); process.exit(1); });
} else {
  console.error('h.js: unknown command ' + cmd);
  process.exit(2);
}
EOF

# verify_batch LIST WHAT: verifies every line of LIST (see h.js) with snarkjs
verify_batch() {
    if node "$TMP/h.js" verify "$1" >"$1.out" 2>&1; then
        ok "$2: $(cat "$1.out")"
    else
        bad "$2: $(tail -c 600 "$1.out")"
    fi
}
# vline CIRCUIT PROOF PUBLIC NPARTS: a line for verify_batch
vline() { echo "$FIX/$1.vk.json $2 $3 $4 $FIX/$1.public.json"; }

# ---- 1. random synthd kills under load -----------------------------------------

killer() {
    _n=0
    while [ ! -e "$D/stop" ] && [ "$_n" -lt "$KILLS_MAX" ]; do
        # a busy synthd when the snapshot shows one; else any live synthd:
        # with the synthesis index a fixture partition keeps a synthd busy
        # for a few ms, shorter than one status round trip on a loaded box,
        # and the kill still lands while jobs run (the snapshot is stale
        # anyway, so some of these land mid-partition too)
        _pids=$(sj '[.processes[] | select(.role == "synthd" and .pid > 0 and .state != "stopped")] |
            (map(select(.state == "busy")) | if length > 0 then . else empty end) // . | .[].pid')
        # shellcheck disable=SC2046
        set -- $(od -An -N8 -tu4 /dev/urandom) # two random numbers
        _delay=$(printf '0.%03d' $(($2 % 80)))  # the next moment: 0..79 ms on
        _r=$1
        if [ -n "$_pids" ]; then
            # shellcheck disable=SC2086
            set -- $_pids
            eval "_p=\${$((_r % $# + 1))}"
            if kill -KILL "$_p" 2>/dev/null; then
                _n=$((_n + 1))
                echo "$_p" >>"$D/kills"
            fi
        fi
        sleep "$_delay"
    done
}
# the synthds killed: a pid signalled twice (a snapshot older than its
# death, or a zombie not reaped yet) died once
kills() { sort -u "$D/kills" | wc -l | tr -d ' '; }
deaths_cover_kills() { [ "$(counter synthd_deaths)" -ge "$(kills)" ] 2>/dev/null; }
none_running() { [ "$(sj .jobs.running)" = 0 ]; }
all_free() { [ "$(sj .slots.FREE.count)" = "$1" ]; }

# submit_until N: submits jobs i+1..N, appending "i id circuit nwitnesses" to
# $D/jobs: nopub and allpub alternately, a few of 2 or 3 witnesses of each
submit_until() {
    while [ $i -lt "$1" ]; do
        i=$((i + 1))
        if [ $((i % 2)) -eq 0 ]; then c=nopub; else c=allpub; fi
        k=1
        case $((i % 8)) in 0 | 3) k=2 ;; esac
        [ $((i % 24)) -eq 0 ] && k=3
        w=""
        j=0
        while [ $j -lt $k ]; do w="$w --witness $FIX/$c.wtns"; j=$((j + 1)); done
        # shellcheck disable=SC2086
        if id=$(submit --key $c $w 2>"$D/submit.err"); then
            echo "$i $id $c $k" >>"$D/jobs"
            nparts=$((nparts + k))
            [ $k -gt 1 ] && nmulti=$((nmulti + 1))
        else
            bad "s1: submit $i refused: $(cat "$D/submit.err")"
        fi
    done
}

s1() {
    start_daemon s1 -- --synth 3 --slots 4 \
        --key nopub="$FIX/nopub.zkey" --key allpub="$FIX/allpub.zkey" || return
    gpud0=$(gpud_pid)
    : >"$D/kills"
    killer &
    KPID=$!
    bg_add "$KPID"
    i=0
    nparts=0
    nmulti=0
    : >"$D/jobs"
    submit_until "$NJOBS"
    note "s1: submitted $i jobs ($nmulti with 2-3 witnesses, $nparts partitions); killer running"
    # the killer goes on until every job has ended (or KILLS_MAX); on a
    # machine fast enough to finish before KILLS_MIN kills, add waves of jobs
    waves=0
    while :; do
        poll 180 none_running || bad "s1: jobs still running after 180 s: $(sj .jobs.running)"
        if [ "$(kills)" -ge "$KILLS_MIN" ] || [ $waves -ge 4 ]; then break; fi
        waves=$((waves + 1))
        note "s1: only $(kills) kills when the jobs ended: wave $waves of 60 more jobs"
        submit_until $((i + 60))
    done
    njobs=$(wc -l <"$D/jobs" | tr -d ' ')
    touch "$D/stop"
    wait "$KPID"
    bg_done "$KPID"
    note "s1: $(wc -l <"$D/kills" | tr -d ' ') synthd SIGKILLs sent while the jobs ran, to $(kills) synthds"
    check "s1: at least $KILLS_MIN synthd SIGKILLs landed while jobs were running ($(kills))" \
        [ "$(kills)" -ge "$KILLS_MIN" ]
    # wait for every job; each must come back done, once
    end=$(($(date +%s) + 180))
    : >"$D/verify"
    nok=0
    nfail=0
    while read -r i id c k; do
        left=$((end - $(date +%s)))
        [ $left -lt 2 ] && left=2
        if timeout "$left" "$BIN" wait --socket "$SOCK" --proof "$D/p.$i.json" --public "$D/q.$i.json" \
            "$id" 2>"$D/wait.err"; then
            nok=$((nok + 1))
        else
            nfail=$((nfail + 1))
            [ $nfail -le 3 ] && note "s1: job $i ($id, $c x$k): $(cat "$D/wait.err")"
        fi
        vline "$c" "$D/p.$i.json" "$D/q.$i.json" "$k" >>"$D/verify"
    done <"$D/jobs"
    check "s1: all $njobs jobs completed ok:true ($nok done, $nfail not)" [ "$nok" -eq "$njobs" -a "$njobs" -ge "$NJOBS" ]
    verify_batch "$D/verify" "s1: every proof verifies and each job has one proof per witness"
    # each synthd killed is reaped and counted (the daemon's count)
    poll 60 deaths_cover_kills
    st >"$D/final.json"
    f() { jq -r "$1" "$D/final.json"; }
    note "s1: counters $(jq -c .counters "$D/final.json")"
    check "s1: jobs done $(f .jobs.done) == $njobs, failed $(f .jobs.failed) == 0" \
        [ "$(f .jobs.done)" = "$njobs" -a "$(f .jobs.failed)" = 0 ]
    check "s1: each partition proved exactly once (counters.proofs $(f .counters.proofs) == $nparts)" \
        [ "$(f .counters.proofs)" = "$nparts" ]
    check "s1: gpud pid unchanged ($gpud0 -> $(f '.processes[] | select(.role == "gpud") | .pid')), gpud_deaths 0" \
        [ "$(f '.processes[] | select(.role == "gpud") | .pid')" = "$gpud0" -a "$(f .counters.gpud_deaths)" = 0 ]
    check "s1: synthd_deaths $(f .counters.synthd_deaths) >= $KILLS_MIN and >= the synthds killed ($(kills))" \
        [ "$(f .counters.synthd_deaths)" -ge "$KILLS_MIN" -a "$(f .counters.synthd_deaths)" -ge "$(kills)" ]
    r=$(f '[.processes[] | select(.role == "synthd") | .restarts] | add')
    check "s1: synthds were restarted ($r restarts)" [ "$r" -gt 0 ]
    s=$(f '[.processes[] | select(.role == "synthd" and .state == "stopped")] | length')
    check "s1: no synthd was stopped by the crash-loop breaker ($s stopped)" [ "$s" = 0 ]
    poll 60 all_free 4
    check "s1: slots conserved: total $(sj .slots.total) == 4 and all FREE ($(sj .slots.FREE.count))" \
        [ "$(sj .slots.total)" = 4 -a "$(sj .slots.FREE.count)" = 4 ]
    stop_daemon
}

# ---- 2. gpud SIGKILL mid-proving ------------------------------------------------

proving() { [ "$(sj .slots.PROVING.count)" -ge 1 ] 2>/dev/null; }
new_gpud() {
    _g=$(sj '.processes[] | select(.role == "gpud" and .state == "idle") | "\(.pid) \(.incarnation)"')
    [ -n "$_g" ] && [ "${_g% *}" != 0 ] && [ "${_g% *}" != "$1" ]
}
released() { grep -q " level=notice gpud\[$1\]: BUFFERS\[release\]" "$LOG"; }
gpud_deaths_is() { [ "$(counter gpud_deaths)" = "$1" ]; }

s2() {
    # two hold files (gpud/fault_delay.h) put each kill in its window, however
    # busy the box: while $TMP/s2.take exists gpud holds the slot it took
    # (PROVING); while $TMP/s2.released exists it holds the partition it
    # copied off after the slot's early release
    touch "$TMP/s2.take" "$TMP/s2.released"
    start_daemon s2 SLOTPROVE_FAULT_HOLD="$TMP/s2.take" SLOTPROVE_FAULT_HOLD_RELEASED="$TMP/s2.released" \
        -- --synth 2 --slots 4 --trace-buffers --key nopub="$FIX/nopub.zkey" || return
    g0=$(gpud_pid)
    : >"$D/jobs"
    for i in 1 2 3 4 5 6; do
        submit --key nopub --witness "$FIX/nopub.wtns" >>"$D/jobs" 2>"$D/err" || bad "s2: submit $i: $(cat "$D/err")"
    done
    # kill 1: while a slot is PROVING (gpud is held at its take)
    if poll 60 proving; then
        kill -KILL "$g0"
        ok "s2: gpud $g0 SIGKILLed while a slot was PROVING"
    else
        bad "s2: no slot reached PROVING"
    fi
    poll 60 gpud_deaths_is 1
    rep1=$(counter reproved_from_shm)
    res1=$(counter resynthesized)
    note "s2: after kill 1: reproved_from_shm $rep1, resynthesized $res1"
    rm -f "$TMP/s2.take"
    # kill 2: after the new gpud released a slot early (trace line) and before
    # it sent the result (held there while $TMP/s2.released exists; with its
    # one worker held it takes no other slot)
    if poll 60 new_gpud "$g0"; then
        set -- $(sj '.processes[] | select(.role == "gpud") | "\(.pid) \(.incarnation)"')
        g1=$1
        inc1=$2
        if poll 60 released "$inc1"; then
            snap=$(sj '"\(.slots.PROVING.count) \(.jobs.running)"')
            kill -KILL "$g1"
            set -- $snap
            note "s2: kill 2 of gpud $g1 after its early release: PROVING slots $1, jobs running $2"
            check "s2: kill 2 landed in the release window (no PROVING slot, jobs still running)" \
                [ "$1" = 0 -a "$2" -ge 1 ]
        else
            bad "s2: gpud $g1 never released a slot (no BUFFERS[release] trace)"
        fi
    else
        bad "s2: no new gpud after kill 1"
    fi
    rm -f "$TMP/s2.released"
    poll 60 gpud_deaths_is 2
    : >"$D/verify"
    n=0
    nok=0
    while read -r id; do
        n=$((n + 1))
        if timeout 90 "$BIN" wait --socket "$SOCK" --proof "$D/p.$n.json" --public "$D/q.$n.json" "$id" 2>"$D/err"; then
            nok=$((nok + 1))
        else
            note "s2: job $id: $(cat "$D/err")"
        fi
        vline nopub "$D/p.$n.json" "$D/q.$n.json" 1 >>"$D/verify"
    done <"$D/jobs"
    check "s2: all $n jobs completed ($nok ok)" [ "$nok" = 6 ]
    verify_batch "$D/verify" "s2: all proofs verify"
    g2=$(gpud_pid)
    check "s2: a new gpud runs (pids $g0 -> ${g1:-?} -> $g2), gpud_deaths $(counter gpud_deaths) == 2" \
        [ -n "$g2" -a "$g2" != "$g0" -a "$g2" != "${g1:-}" -a "$(counter gpud_deaths)" = 2 ]
    check "s2: counters.reproved_from_shm $(counter reproved_from_shm) >= 1 (kill 1 alone: $rep1)" \
        [ "$rep1" -ge 1 ]
    check "s2: counters.resynthesized $(counter resynthesized) >= 1 + $res1 (after kill 1: $res1)" \
        [ "$(counter resynthesized)" -ge $((res1 + 1)) ]
    check "s2: counters.duplicate_results $(counter duplicate_results) and proofs $(counter proofs) == 6" \
        [ "$(counter proofs)" = 6 ]
    stop_daemon
}

# ---- 3. RSS limit ---------------------------------------------------------------

synthd_restarted() { [ "$(sj '[.processes[] | select(.role == "synthd") | .restarts] | add')" -ge 1 ] 2>/dev/null; }

s3() {
    start_daemon s3 SLOTPROVE_FAULT=synthd-bloat SLOTPROVE_FAULT_ONCE="$TMP/s3.once" \
        SLOTPROVE_FAULT_BYTES=300000000 -- --synth 2 --synth-rss-max 100M \
        --key nopub="$FIX/nopub.zkey" || return
    if timeout 150 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$D/p.json" --public "$D/q.json" >/dev/null 2>"$D/err"; then
        ok "s3: the job completed despite the bloated synthd"
    else
        bad "s3: the job failed: $(cat "$D/err")"
    fi
    vline nopub "$D/p.json" "$D/q.json" 1 >"$D/verify"
    verify_batch "$D/verify" "s3: the proof verifies"
    check "s3: the fault fired (synthd grew by 300 MB)" [ -e "$TMP/s3.once" ]
    line=$(grep -m1 'RssAnon .* exceeded --synth-rss-max' "$LOG")
    note "s3: log: ${line#*: }"
    check "s3: the log names the figure (RssAnon ... exceeded --synth-rss-max 100.0 MiB)" \
        eval 'echo "$line" | grep -q "killing synthd pid [0-9]*: RssAnon [0-9.]* MiB exceeded --synth-rss-max 100.0 MiB"'
    check "s3: counters.rss_kills $(counter rss_kills) >= 1" [ "$(counter rss_kills)" -ge 1 ]
    poll 60 synthd_restarted
    check "s3: the synthd was restarted ($(sj '[.processes[] | select(.role == "synthd") | .restarts] | add') restarts, last_exit: $(sj '[.processes[] | select(.role == "synthd") | .last_exit | select(. != "")][0]'))" \
        synthd_restarted
    stop_daemon
}

# ---- 4. crash loop, external kills, fatal exit ---------------------------------

synthds_stopped() { [ "$(sj '[.processes[] | select(.role == "synthd" and .state != "stopped")] | length')" = 0 ]; }
synthds_looping() { [ "$(sj '[.processes[] | select(.role == "synthd" and .state == "backoff" and (.backoff_reason // "" | startswith("crash loop: ")))] | length')" = 2 ]; }
synthds_idle() { [ "$(sj '[.processes[] | select(.role == "synthd" and .state == "idle")] | length')" = 2 ]; }
synthd_restarts() { sj '[.processes[] | select(.role == "synthd") | .restarts] | add'; }
# a snapshot of status in $D/st.json in which synthd 0 is in a crash-loop
# backoff with more than 1 s left: the backoffs double (4, 8, 16 ... s), so
# one comes that a status round trip on a busy box does not outlast
backoff_snapshot() {
    st >"$D/st.json" && [ "$(jq '[.processes[] | select(.role == "synthd")][0] |
        .state == "backoff" and (.backoff_reason // "" | startswith("crash loop: ")) and .respawn_in_s > 1' "$D/st.json")" = true ]
}
# backoffs_kept: "N M": of the synthds' crash-loop backoffs in $LOG that a
# start of the same synthd followed, N were checked and M ended early: the
# start came less than backoff_s - 1 s after the crash_loop line (the log's
# times are RFC 3339 in milliseconds; 1 s of room for the supervisor's tick)
backoffs_kept() {
    awk 'function ix() { match($0, / index=[0-9]+/); return substr($0, RSTART + 7, RLENGTH - 7) }
        match($0, /^[0-9-]+T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]Z level=/) {
            split(substr($0, 12, 12), h, ":")
            t = h[1] * 3600 + h[2] * 60 + h[3]
        }
        / event=crash_loop role=synthd / {
            i = ix(); match($0, / backoff_s=[0-9]+/); b[i] = substr($0, RSTART + 11, RLENGTH - 11); at[i] = t
            next
        }
        / event=started role=synthd / {
            i = ix()
            if (i in b) { n++; if ((t - at[i] + 86400) % 86400 < b[i] - 1) short++; delete b[i] }
        }
        END { print n + 0, short + 0 }' "$LOG"
}
backoff_ended() { [ "$(backoffs_kept | cut -d" " -f1)" -ge 1 ]; }

s4() {
    # (a) synthds that crash (SIGSEGV) at every start, holding nothing: the
    # breaker backs them off (shown in status), it does not stop them, and a
    # queued job waits instead of failing
    start_daemon s4 SLOTPROVE_FAULT=synthd-start SLOTPROVE_FAULT_SIGNAL=11 -- --synth 2 \
        --key nopub="$FIX/nopub.zkey" || return
    id=$(submit --key nopub --witness "$FIX/nopub.wtns" 2>"$D/err")
    check "s4: a submit during the crash loop is accepted: $(cat "$D/err")" [ -n "$id" ]
    check "s4: both synthds back off with a crash-loop reason" poll 60 synthds_looping
    # status's figures from one snapshot, of synthd 0 in a backoff
    poll 120 backoff_snapshot
    reason=$(jq -r '[.processes[] | select(.role == "synthd")][0].backoff_reason' "$D/st.json")
    wait_s=$(jq -r '[.processes[] | select(.role == "synthd")][0].respawn_in_s' "$D/st.json")
    next_s=$(echo "$reason" | sed -n 's/.*next start in \([0-9]*\) s.*/\1/p')
    note "s4: backoff_reason: $reason (respawn in $wait_s s)"
    check "s4: status shows when the next start is (1 < respawn_in_s $wait_s <= ${next_s:-?}, the reason's)" \
        eval 'awk -v w="$wait_s" -v n="${next_s:-0}" "BEGIN { exit !(w > 1 && w <= n) }"'
    # no respawn before a backoff is over: the daemon's own log lines, a
    # crash_loop with its backoff_s, then the next start of that synthd
    lim=$(sed -n 's/^#define CRASH_LIMIT *\([0-9]*\).*/\1/p' run/sup/kids.h)
    poll 120 backoff_ended
    set -- $(backoffs_kept)
    check "s4: no respawn during the backoff ($1 backoffs followed by a start in the log, $2 of them early; CRASH_LIMIT ${lim:-?})" \
        [ "$1" -ge 1 -a "$2" = 0 ]
    check "s4: the queued job is still running, not failed ($(sj .jobs.running) running, $(sj .jobs.failed) failed)" \
        [ "$(sj .jobs.running)" = 1 -a "$(sj .jobs.failed)" = 0 ]
    check "s4: the daemon ($DPID) and gpud are still up" \
        eval 'alive $DPID && [ "$(sj ".processes[] | select(.role == \"gpud\") | .state")" = idle ]'
    stop_daemon_now
    # (b) SIGKILLs from elsewhere of idle synthds, 12 in a few seconds: not
    # crashes, so no crash-loop backoff, and jobs still complete
    start_daemon s4b -- --synth 2 --key nopub="$FIX/nopub.zkey" || return
    n=0
    while [ $n -lt 12 ]; do
        poll 60 synthds_idle || break
        p=$(sj '[.processes[] | select(.role == "synthd") | .pid][0]')
        kill -KILL "$p" 2>/dev/null && n=$((n + 1))
    done
    poll 60 synthds_idle
    st >"$D/st.json"
    looped=$(jq '[.processes[] | select(.backoff_reason != null)] | length' "$D/st.json")
    check "s4: $n external SIGKILLs of idle synthds: no crash-loop backoff ($looped), both idle again" \
        eval '[ $n = 12 ] && [ "$looped" = 0 ] && synthds_idle'
    if timeout 60 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$D/p.json" --public "$D/q.json" >/dev/null 2>"$D/err"; then
        ok "s4: a job after the kills completes"
    else
        bad "s4: a job after the kills failed: $(cat "$D/err")"
    fi
    stop_daemon
    # (c) exit code 2 (fatal) stops the role for good: queued jobs fail with
    # the reason instead of hanging, new submits are refused at once
    start_daemon s4c SLOTPROVE_FAULT=synthd-start SLOTPROVE_FAULT_EXIT=2 -- --synth 2 \
        --key nopub="$FIX/nopub.zkey" || return
    poll 60 synthds_stopped
    check "s4: exit code 2 stops every synthd" synthds_stopped
    reason=$(sj '[.processes[] | select(.role == "synthd") | .stop_reason][0]')
    check "s4: stop_reason says why: $reason" eval 'echo "$reason" | grep -q "exit code 2: fatal"'
    r1=$(synthd_restarts)
    check "s4: never respawned ($r1 restarts)" [ "$r1" = 0 ]
    submit --key nopub --witness "$FIX/nopub.wtns" >/dev/null 2>"$D/err"
    rc=$?
    check "s4: a new submit is refused at once (exit $rc): $(cat "$D/err")" \
        eval '[ $rc = 1 ] && grep -q "cannot prove: .*exit code 2" "$D/err"'
    stop_daemon
}

# stop_daemon_now: SIGKILL the section's daemon (its children follow by
# PDEATHSIG) and reap it
stop_daemon_now() {
    kill -KILL "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
    forget "$DPID"
    poll 30 no_kids "$DPID" || bad "$TAG: children left after SIGKILL: $(kids_of "$DPID" | tr '\n' ' ')"
}

# ---- 5. poison partition --------------------------------------------------------

s5() {
    # synthesis of this one witness crashes its synthd (SIGSEGV) every time
    start_daemon s5 SLOTPROVE_FAULT=synthd-fill SLOTPROVE_FAULT_MATCH=poison SLOTPROVE_FAULT_SIGNAL=11 \
        -- --synth 2 --key nopub="$FIX/nopub.zkey" --key allpub="$FIX/allpub.zkey" || return
    cp "$FIX/nopub.wtns" "$D/poison.wtns"
    pid_poison=$(submit --key nopub --witness "$D/poison.wtns" 2>"$D/err") || bad "s5: poison submit: $(cat "$D/err")"
    : >"$D/jobs"
    for i in 1 2 3 4 5 6; do
        if [ $((i % 2)) = 0 ]; then c=nopub; else c=allpub; fi
        id=$(submit --key $c --witness "$FIX/$c.wtns" 2>"$D/err") && echo "$i $id $c" >>"$D/jobs"
    done
    timeout 60 "$BIN" wait --socket "$SOCK" "${pid_poison:-0}" >/dev/null 2>"$D/err"
    rc=$?
    note "s5: poison job: $(cat "$D/err")"
    check "s5: the poison job failed (exit $rc), naming the partition and attempts" \
        eval '[ $rc = 1 ] && grep -q "partition 0 (.*poison.wtns) failed after 3 attempts" "$D/err"'
    : >"$D/verify"
    nok=0
    while read -r i id c; do
        timeout 60 "$BIN" wait --socket "$SOCK" --proof "$D/p.$i.json" --public "$D/q.$i.json" "$id" 2>"$D/err" &&
            nok=$((nok + 1))
        vline $c "$D/p.$i.json" "$D/q.$i.json" 1 >>"$D/verify"
    done <"$D/jobs"
    check "s5: every other job completed ($nok of 6)" [ "$nok" = 6 ]
    verify_batch "$D/verify" "s5: their proofs verify"
    s=$(sj '[.processes[] | select(.role == "synthd") | .state] | join(",")')
    check "s5: synthds not stopped (states $s; synthd_deaths $(counter synthd_deaths) == 3)" \
        eval 'echo "$s" | grep -qv stopped && [ "$(counter synthd_deaths)" = 3 ]'
    stop_daemon
}

# ---- 6. supervisor killed -------------------------------------------------------

s6() {
    # gpud held at its take while $TMP/s6.hold exists: the jobs are still
    # running when serve is killed
    touch "$TMP/s6.hold"
    start_daemon s6 SLOTPROVE_FAULT_HOLD="$TMP/s6.hold" -- --synth 2 --key nopub="$FIX/nopub.zkey" || return
    for i in 1 2 3 4; do submit --key nopub --witness "$FIX/nopub.wtns" >/dev/null; done
    poll 60 proving || bad "s6: no slot reached PROVING"
    kids=$(kids_of "$DPID" | tr '\n' ' ')
    spids=$(sj '[.processes[] | select(.role != "supervisor") | .pid] | map(tostring) | join(" ")')
    note "s6: killing serve $DPID with $(sj .jobs.running) jobs running; children $kids (status: $spids)"
    check "s6: status and /proc agree on the 3 children" \
        [ "$(echo "$kids" | wc -w)" = 3 -a "$(echo "$spids" | wc -w)" = 3 ]
    kill -KILL "$DPID"
    t0=$(now)
    # shellcheck disable=SC2086
    if poll 30 all_dead $kids $spids; then
        ok "s6: no synthd or gpud survived the supervisor ($(since "$t0") s)"
    else
        # shellcheck disable=SC2086
        bad "s6: survivors: $(for p in $kids $spids; do alive $p && echo $p; done | tr '\n' ' ')"
    fi
    wait "$DPID" 2>/dev/null
    forget "$DPID"
    rm -f "$TMP/s6.hold"
}

# ---- 7. client disconnect -------------------------------------------------------

client_in_job() { [ -s "$D/c.id" ] && [ "$(sj .jobs.running)" = 1 ]; }

# While $TMP/s7.hold exists gpud holds the job's partition
# (SLOTPROVE_FAULT_HOLD): the client is killed while its job cannot end yet.
s7() {
    touch "$TMP/s7.hold"
    start_daemon s7 SLOTPROVE_FAULT_HOLD="$TMP/s7.hold" -- --synth 2 --key nopub="$FIX/nopub.zkey" || return
    "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$D/c.proof.json" --public "$D/c.public.json" >"$D/c.id" 2>"$D/c.err" &
    CPID=$!
    bg_add "$CPID"
    if poll 60 client_in_job; then
        kill -KILL "$CPID"
        wait "$CPID" 2>/dev/null
        bg_done "$CPID"
        ok "s7: client $CPID killed while its job was running"
    else
        bad "s7: the job never started"
    fi
    id=$(cat "$D/c.id")
    check "s7: the killed client wrote no output" [ ! -e "$D/c.proof.json" ]
    rm -f "$TMP/s7.hold"
    if timeout 90 "$BIN" wait --socket "$SOCK" --proof "$D/p.json" --public "$D/q.json" "$id" 2>"$D/err"; then
        ok "s7: slotprove wait $id returned the finished job"
    else
        bad "s7: wait $id: $(cat "$D/err")"
    fi
    vline nopub "$D/p.json" "$D/q.json" 1 >"$D/verify"
    verify_batch "$D/verify" "s7: its proof verifies"
    stop_daemon
}

# ---- 8. bad inputs as jobs ------------------------------------------------------

# bad_job WHAT PATTERN SUBMIT_ARGS...: the job fails alone, with PATTERN
# (file and reason); then a valid job proves
bad_job() {
    _what=$1
    _want=$2
    shift 2
    rm -f "$D/b.proof.json"
    timeout 30 "$BIN" submit --socket "$SOCK" "$@" --wait --proof "$D/b.proof.json" \
        --public "$D/b.public.json" >/dev/null 2>"$D/err"
    _rc=$?
    if [ $_rc = 1 ] && grep -q -- "$_want" "$D/err" && [ ! -e "$D/b.proof.json" ]; then
        ok "s8: $_what: exit 1, $(head -c 160 "$D/err")"
    else
        bad "s8: $_what: exit $_rc (wanted 1 and '$_want'): $(cat "$D/err")"
    fi
    nbad=$((nbad + 1))
    if timeout 30 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$D/v$nbad.proof.json" --public "$D/v$nbad.public.json" >/dev/null 2>"$D/err"; then
        vline nopub "$D/v$nbad.proof.json" "$D/v$nbad.public.json" 1 >>"$D/verify"
    else
        bad "s8: the valid job after '$_what' failed: $(cat "$D/err")"
    fi
}

s8() {
    start_daemon s8 -- --synth 2 --key nopub="$FIX/nopub.zkey" || return
    cp "$FIX/nopub.zkey" "$D/trunc.zkey" && truncate -s 3000 "$D/trunc.zkey"
    { printf 'nope'; tail -c +5 "$FIX/nopub.zkey"; } >"$D/magic.zkey"
    off=$(node "$TMP/h.js" wtns-big "$FIX/nopub.wtns" "$D/big.wtns")
    note "s8: big.wtns: witness value 0 (at byte $off) set to 2^256-1"
    mkdir "$D/dir.wtns"
    nbad=0
    : >"$D/verify"
    bad_job "truncated zkey" "trunc.zkey: truncated" --zkey "$D/trunc.zkey" --witness "$FIX/nopub.wtns"
    bad_job "wrong magic" "magic.zkey: wrong magic" --zkey "$D/magic.zkey" --witness "$FIX/nopub.wtns"
    bad_job "PLONK key" "plonk.zkey: protocol 2 (PLONK)" --zkey "$FIX/plonk.zkey" --witness "$FIX/nopub.wtns"
    if [ -f "$FIX/../bls12381/nopub.wtns" ]; then
        bad_job "bls12381 witness on a bn128 key" "nopub.wtns: witness is for bls12381 but .* is a bn128 key" \
            --key nopub --witness "$FIX/../bls12381/nopub.wtns"
    else
        note "s8: SKIP bls12381 witness case: tests/fixtures/bls12381/nopub.wtns not generated yet"
    fi
    bad_job "witness of another circuit" "allpub.wtns: nWitness [0-9]* != the key.s nVars" \
        --key nopub --witness "$FIX/allpub.wtns"
    bad_job "witness value >= r" "big.wtns: witness value 0 is not below r" --key nopub --witness "$D/big.wtns"
    bad_job "directory as witness" "dir.wtns: not a regular file" --key nopub --witness "$D/dir.wtns"
    bad_job "missing witness" "none.wtns: No such file" --key nopub --witness "$D/none.wtns"
    bad_job "missing zkey" "none.zkey: No such file" --zkey "$D/none.zkey" --witness "$FIX/nopub.wtns"
    bad_job "bad one among good witnesses" "big.wtns: witness value 0 is not below r" \
        --key nopub --witness "$FIX/nopub.wtns" --witness "$D/big.wtns"
    verify_batch "$D/verify" "s8: the valid job after each bad one proves and verifies"
    check "s8: the daemon pid is unchanged ($DPID) and no child died (synthd $(counter synthd_deaths), gpud $(counter gpud_deaths))" \
        eval 'alive $DPID && [ "$(sj ".processes[0].pid")" = "$DPID" ] && [ "$(counter synthd_deaths)" = 0 ] && [ "$(counter gpud_deaths)" = 0 ]'
    poll 60 all_free 4
    check "s8: every slot is FREE again ($(sj .slots.FREE.count) of 4)" all_free 4
    stop_daemon
}

# ---- 9. memory bound ------------------------------------------------------------

sampler() {
    while [ ! -e "$D/stop" ]; do
        sj '"\(.group_pss_kib) \(.slots.total) \(.slots.FREE.count) \(.slots.FILLING.count) \(.slots.READY.count) \(.slots.PROVING.count) \(.processes | map(select(.role == "supervisor") | .pss_kib) | add) \(.processes | map(select(.role == "synthd") | .pss_kib) | add) \(.processes | map(select(.role == "gpud") | .pss_kib) | add)"' >>"$D/samples"
        sleep 0.02
    done
}
all_idle() { [ "$(sj '[.processes[] | select(.role != "supervisor" and .state != "idle")] | length')" = 0 ]; }
# at least 3 samples taken with every one of $SLOTS slots in use
pool_full_sampled() { [ "$(awk '$4 + $5 + $6 == '$SLOTS' { n++ } END { print n + 0 }' "$D/samples")" -ge 3 ]; }

s9() {
    SLOTS=3
    SLOT_BYTES=8M
    NSYN=4
    # SLOTPROVE_FAULT_HOLD (gpud/fault_delay.h): while $TMP/s9.hold exists gpud
    # holds the proof it copied off, so the synthds fill every slot: the
    # state the bound is about is made to happen, not hoped for
    start_daemon s9 SLOTPROVE_FAULT_HOLD="$TMP/s9.hold" -- --synth $NSYN --slots $SLOTS --slot-bytes $SLOT_BYTES --key nopub="$FIX/nopub.zkey" || return
    poll 60 all_idle
    # one warm-up job first, so the baseline holds what every process touches
    # once (libraries, allocator arenas, gpud's NTT domain) and not only the
    # prefaulted pool
    timeout 60 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" \
        --proof "$D/w.json" --public "$D/wq.json" --wait >/dev/null 2>"$D/err" || bad "s9: warm-up job: $(cat "$D/err")"
    poll 60 all_idle
    base=0
    for i in 1 2 3; do # the largest of three idle samples
        set -- $(sj '"\(.group_pss_kib) \(.processes | map(select(.role == "supervisor") | .pss_kib) | add) \(.processes | map(select(.role == "synthd") | .pss_kib) | add) \(.processes | map(select(.role == "gpud") | .pss_kib) | add)"')
        [ "$1" -gt "$base" ] && base=$1 base_roles="$2 $3 $4"
    done
    slot_bytes=$(sj .slots.slot_bytes)
    set -- $(node "$TMP/h.js" zkinfo "$FIX/nopub.zkey")
    nvars=$1 domain=$3 ncoefs=$4
    # the margins above baseline + slots (tests/wcopy_bytes.sh mem_margins,
    # the bound bench_pipeline.sh checks too): one gpud's proof, every
    # synthd's scratch, and the supervisor's entries of the 31 partitions
    # submitted here (the warm-up's and 30)
    set -- $(mem_margins "$nvars" "$domain" 1 "$NSYN" "$(nproc)" 31)
    proof_kib=$2 scratch_kib=$3 sup_kib=$4
    : >"$D/samples"
    touch "$TMP/s9.hold"
    sampler &
    SPID=$!
    bg_add "$SPID"
    : >"$D/jobs"
    for i in $(seq 30); do submit --key nopub --witness "$FIX/nopub.wtns" >>"$D/jobs" 2>"$D/err" || bad "s9: submit: $(cat "$D/err")"; done
    # the pool full and gpud holding one proof: sample it, then let go
    poll 100 pool_full_sampled || bad "s9: the pool was never sampled full within 100 s"
    rm -f "$TMP/s9.hold"
    : >"$D/verify"
    n=0
    nok=0
    while read -r id; do
        n=$((n + 1))
        timeout 60 "$BIN" wait --socket "$SOCK" --proof "$D/p.$n.json" --public "$D/q.$n.json" "$id" 2>"$D/err" &&
            nok=$((nok + 1))
        vline nopub "$D/p.$n.json" "$D/q.$n.json" 1 >>"$D/verify"
    done <"$D/jobs"
    touch "$D/stop"
    wait "$SPID"
    bg_done "$SPID"
    check "s9: all 30 jobs completed ($nok)" [ "$nok" = 30 ]
    verify_batch "$D/verify" "s9: their proofs verify"
    ns=$(wc -l <"$D/samples" | tr -d ' ')
    peak=$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' "$D/samples")
    peak_roles=$(awk 'BEGIN { m = 0 } $1 > m { m = $1; r = $7 " " $8 " " $9 } END { print r }' "$D/samples")
    maxbusy=$(awk 'BEGIN { m = 0 } { b = $4 + $5 + $6; if (b > m) m = b } END { print m }' "$D/samples")
    badsum=$(awk '$3 + $4 + $5 + $6 != $2 || $2 != '$SLOTS' { n++ } END { print n + 0 }' "$D/samples")
    full_seen=$(awk '$4 + $5 + $6 == '$SLOTS' { n++ } END { print n + 0 }' "$D/samples")
    slots_kib=$((SLOTS * slot_bytes / 1024))
    # serve prefaults the pool, so the idle group already holds the slots once:
    # baseline (processes alone) = idle Pss - slots
    proc_base=$((base - slots_kib))
    bound=$((proc_base + slots_kib + proof_kib + scratch_kib + sup_kib))
    note "s9: key nopub: nVars $nvars, domain $domain, nCoefs $ncoefs"
    note "s9: idle group Pss after one warm-up job          $base KiB (of which the prefaulted pool $slots_kib KiB)"
    note "s9: baseline (processes without the pool)         $proc_base KiB"
    note "s9: peak group Pss over $ns samples               $peak KiB (+$((peak - base)) KiB)"
    note "s9:   supervisor / synthds / gpud: idle $base_roles KiB, at the peak $peak_roles KiB"
    note "s9: slots x slot_bytes = $SLOTS x $slot_bytes        $slots_kib KiB"
    note "s9: gpud: one proof (2 x (3 x domain + nVars) x 32 B + 4 MiB)  $proof_kib KiB"
    note "s9: synthds x scratch ($NSYN x (64 KiB stack x $(nproc) threads + 4 KiB))  $scratch_kib KiB"
    note "s9: supervisor: 31 partitions x 4 KiB         $sup_kib KiB"
    note "s9: bound = baseline + slots + margins = $bound KiB (Pss summed over the group, smaps_rollup)"
    check "s9: sampled with every slot in use ($ns samples, $full_seen with all $SLOTS slots in use)" [ "$full_seen" -ge 3 ]
    check "s9: in-flight slots never exceeded $SLOTS (max not-FREE $maxbusy; $badsum samples with counts != total)" \
        [ "$maxbusy" -le $SLOTS -a "$badsum" = 0 ]
    check "s9: peak Pss $peak KiB <= bound $bound KiB" [ "$peak" -le "$bound" ]
    stop_daemon
}

# ---- 10. SIGTERM drains ---------------------------------------------------------

draining() { [ "$(sj .draining)" = true ]; }

# While $TMP/s10.hold exists gpud holds the partition it took
# (SLOTPROVE_FAULT_HOLD): the jobs cannot end before the drain is seen and a
# submit is refused; then the hold is lifted and the drain must finish them.
s10() {
    touch "$TMP/s10.hold"
    start_daemon s10 SLOTPROVE_FAULT_HOLD="$TMP/s10.hold" -- --synth 2 --key nopub="$FIX/nopub.zkey" || return
    sock=$SOCK
    : >"$D/waiters"
    for i in 1 2 3 4; do
        id=$(submit --key nopub --witness "$FIX/nopub.wtns") || continue
        ( timeout 180 "$BIN" wait --socket "$sock" --proof "$D/p.$i.json" --public "$D/q.$i.json" "$id" \
            2>"$D/w.$i.err"; echo $? >"$D/w.$i.rc" ) &
        bg_add $!
        echo "$i $!" >>"$D/waiters"
    done
    poll 60 proving || bad "s10: no slot reached PROVING"
    running=$(sj .jobs.running)
    kill -TERM "$DPID"
    poll 60 draining || bad "s10: status never showed draining"
    submit --key nopub --witness "$FIX/nopub.wtns" >/dev/null 2>"$D/err"
    rc=$?
    check "s10: a submit while draining is refused (exit $rc): $(cat "$D/err")" \
        eval '[ $rc = 1 ] && grep -q "shutting down" "$D/err"'
    rm -f "$TMP/s10.hold"
    poll 120 dead "$DPID"
    wait "$DPID"
    drc=$?
    forget "$DPID"
    check "s10: SIGTERM with $running jobs running: the daemon exited 0 ($drc)" [ "$drc" = 0 ]
    check "s10: the daemon removed its socket" [ ! -e "$sock" ]
    : >"$D/verify"
    nok=0
    while read -r i p; do
        wait "$p" 2>/dev/null
        bg_done "$p"
        [ "$(cat "$D/w.$i.rc" 2>/dev/null)" = 0 ] && nok=$((nok + 1))
        vline nopub "$D/p.$i.json" "$D/q.$i.json" 1 >>"$D/verify"
    done <"$D/waiters"
    check "s10: every running job completed and its waiting client got it ($nok of 4)" [ "$nok" = 4 ]
    verify_batch "$D/verify" "s10: their proofs verify"
    check "s10: no synthd/gpud left" no_kids "$DPID"
}

# ---- 11. socket security --------------------------------------------------------

s11() {
    TAG=s11
    D=$(mktemp -d "$TMP/s11.XXXXXX")
    chmod 0755 "$D"
    timeout 20 "$BIN" serve --socket "$D/s.sock" --key nopub="$FIX/nopub.zkey" 2>"$D/err"
    rc=$?
    check "s11: serve refuses a 0755 socket directory (exit $rc): $(cat "$D/err")" \
        eval '[ $rc = 1 ] && grep -q "is mode 0755; it must be 0700" "$D/err" && [ ! -e "$D/s.sock" ]'
    if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
        start_daemon s11 -- --synth 1 --key nopub="$FIX/nopub.zkey" || return
        check "s11: the socket is mode 0660 ($(stat -c %a "$SOCK"))" [ "$(stat -c %a "$SOCK")" = 660 ]
        note "s11: SKIP other-uid checks: not root (or no setpriv)"
        stop_daemon
        return
    fi
    # a directory other uids can traverse to: 0750, group OTHER_GID
    G=$(mktemp -d /tmp/slotprove-faults.XXXXXX)
    EXTRA="$EXTRA $G"
    chgrp "$OTHER_GID" "$G" && chmod 0750 "$G"
    SOCK=$G/s.sock
    LOG=$G/daemon.log
    TAG=s11
    "$BIN" serve --socket "$SOCK" --synth 1 --allow-gid "$OTHER_GID" --key nopub="$FIX/nopub.zkey" 2>"$LOG" &
    DPID=$!
    DAEMONS="$DAEMONS $DPID"
    ALL_DAEMONS="$ALL_DAEMONS $DPID"
    poll 60 eval '[ "$(gpud_pid)" -gt 0 ] 2>/dev/null' || { bad "s11: daemon did not come up"; show "$LOG"; return; }
    check "s11: the socket is mode 0660, group $OTHER_GID ($(stat -c '%a %g' "$SOCK"))" \
        [ "$(stat -c '%a %g' "$SOCK")" = "660 $OTHER_GID" ]
    as_supp() { setpriv --reuid 65534 --regid 65534 --groups "$OTHER_GID" "$@"; }
    as_other() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
    as_member "$BIN" status --socket "$SOCK" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: uid 65534 with primary gid $OTHER_GID (--allow-gid) is served (exit $rc)$(cat "$D/err")" [ $rc = 0 ]
    as_supp "$BIN" status --socket "$SOCK" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: uid 65534 in group $OTHER_GID only as a supplementary group is served too (exit $rc)$(cat "$D/err")" [ $rc = 0 ]
    as_other "$BIN" status --socket "$SOCK" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: uid 65534 outside the allowed uid/gid is refused (exit $rc): $(cat "$D/err")" \
        eval '[ $rc = 1 ] && grep -q "uid 65534 is not allowed\|Permission denied" "$D/err"'
    id=$(submit --key nopub --witness "$FIX/nopub.wtns" --witness "$FIX/nopub.wtns" --witness "$FIX/nopub.wtns" 2>"$D/err") \
        || bad "s11: submit as root: $(cat "$D/err")"
    as_member "$BIN" status --socket "$SOCK" --json >"$D/st" 2>"$D/err"
    "$BIN" status --socket "$SOCK" --json >"$D/st0" 2>"$D/err"
    check "s11: status shows uid 65534 none of root's jobs; root sees them ($(jq -c .jobs "$D/st") vs $(jq -c .jobs "$D/st0"))" \
        eval '! grep -q "${id:-none}" "$D/st" && [ "$(jq ".jobs.running + .jobs.done" "$D/st")" = 0 ] &&
              [ "$(jq ".jobs.running + .jobs.done" "$D/st0")" -ge 1 ]'
    as_member "$BIN" wait --socket "$SOCK" "${id:-0}" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: root's job is \"no such job\" for uid 65534 (exit $rc): $(cat "$D/err")" \
        eval '[ $rc = 1 ] && grep -q "no such job" "$D/err"'
    as_member "$BIN" cancel --socket "$SOCK" "${id:-0}" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: ... and uid 65534 cannot cancel it (exit $rc)" eval '[ $rc = 1 ] && grep -q "no such job" "$D/err"'
    timeout 30 "$BIN" wait --socket "$SOCK" "${id:-0}" >/dev/null 2>"$D/err"
    check "s11: the owner still gets the job" [ $? = 0 ]
    stop_daemon
    # --allow-uid adds users; the daemon's own user stays allowed
    "$BIN" serve --socket "$G/u.sock" --synth 1 --allow-uid 65534 --allow-gid "$OTHER_GID" \
        --key nopub="$FIX/nopub.zkey" 2>"$G/u.log" &
    upid=$!
    ALL_DAEMONS="$ALL_DAEMONS $upid"
    poll 60 test -S "$G/u.sock"
    "$BIN" status --socket "$G/u.sock" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: with --allow-uid 65534 the daemon's own uid is still served (exit $rc)$(cat "$D/err")" [ $rc = 0 ]
    as_member "$BIN" status --socket "$G/u.sock" >/dev/null 2>"$D/err"
    rc=$?
    check "s11: ... and so is uid 65534 (exit $rc)$(cat "$D/err")" [ $rc = 0 ]
    kill -TERM $upid 2>/dev/null; wait $upid 2>/dev/null
}

# ---- 12. fuzzers ----------------------------------------------------------------

s12() {
    if ! grep -q '^fuzz-short:' Makefile; then
        note "s12: SKIP: the Makefile has no fuzz-short target yet"
        return
    fi
    if ! command -v clang >/dev/null 2>&1; then
        note "s12: SKIP: make fuzz-short needs clang, which is not installed"
        return
    fi
    # the build first, untimed: on a loaded 2-core box compiling the four
    # sanitizer builds alone took past the run's 240 s (a flake, not a
    # fault); the deadline is for the fuzzing runs (10 s each)
    if ! nice make --no-print-directory fuzz-build >"$TMP/fuzz.log" 2>&1; then
        bad "s12: make fuzz-build failed"
        show "$TMP/fuzz.log" 25
        return
    fi
    if timeout 240 make --no-print-directory fuzz-short >"$TMP/fuzz.log" 2>&1; then
        grep -E '^fuzz:|^Done [0-9]+ runs' "$TMP/fuzz.log" | sed 's/^/# s12: /'
        ok "s12: make fuzz-short"
    else
        bad "s12: make fuzz-short failed"
        show "$TMP/fuzz.log" 25
    fi
}

# ---- 13. key cache: per-job keys past the table size -----------------------------

# 70 distinct copies of allpub.zkey (a different byte in the contributions
# hash of section 10, which provers ignore) sent with --zkey: the cache (64
# entries) must drop idle keys instead of refusing jobs, and oversized keys
# must be refused with a clear message.
s13() {
    start_daemon s13 -- --synth 2 --slots 4 --slot-bytes 1M --max-job-key 100K || return
    src="$ROOT/tests/fixtures/bn128/allpub.zkey"
    size=$(wc -c <"$src" | tr -d ' ')
    : >"$D/verify"
    nok=0
    for i in $(seq 70); do
        cp "$src" "$D/k$i.zkey"
        # section 10 (64-byte hash + u32 count) is the last 68 bytes of this key
        printf "\\$(printf %o $((i + 100)))" | dd of="$D/k$i.zkey" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
        if timeout 60 "$BIN" submit --socket "$SOCK" --zkey "$D/k$i.zkey" --witness "$FIX/allpub.wtns" \
            --proof "$D/p$i.json" --public "$D/q$i.json" --wait >/dev/null 2>"$D/err"; then
            nok=$((nok + 1))
            vline allpub "$D/p$i.json" "$D/q$i.json" 1 >>"$D/verify"
        else
            note "s13: key $i: $(cat "$D/err")"
        fi
    done
    check "s13: 70 jobs with 70 distinct per-job keys all proved ($nok)" [ "$nok" = 70 ]
    verify_batch "$D/verify" "s13: their proofs verify"
    check "s13: the log shows idle keys dropped from the full cache" grep -q "key cache full: dropped" "$LOG"
    head -c 200000 /dev/zero >>"$D/k1.zkey"
    # (its size is checked off the event loop, with the copy: the job fails)
    timeout 30 "$BIN" submit --socket "$SOCK" --zkey "$D/k1.zkey" --witness "$FIX/allpub.wtns" --wait \
        --proof "$D/k1.p.json" --public "$D/k1.q.json" >/dev/null 2>"$D/err"
    check "s13: a key above --max-job-key is refused naming it ($(cat "$D/err"))" grep -q "k1.zkey: .*above --max-job-key" "$D/err"
    stop_daemon
}

# ---- main -----------------------------------------------------------------------

for f in "$BIN" "$ROOT/build/synthd" "$ROOT/build/gpud" "$FIX/nopub.zkey" "$NODE_PATH/snarkjs"; do
    [ -e "$f" ] || { echo "FAIL - $f is missing (make all deps)"; echo "faults: 0 passed, 1 failed"; exit 1; }
done
for t in jq node timeout; do
    command -v $t >/dev/null 2>&1 || { echo "FAIL - $t not found (make deps)"; echo "faults: 0 passed, 1 failed"; exit 1; }
done

# ---- 14. two gpuds, each killed --------------------------------------------------

gpud_of() { sj ".processes[] | select(.role == \"gpud\" and .index == $1) | .$2"; }
# gpud INDEX runs again with a pid other than OLD and has said HELLO (idle,
# or busy already: it takes a READY slot at once)
gpud_up_again() {
    _p=$(gpud_of "$1" pid)
    [ -n "$_p" ] && [ "$_p" != 0 ] && [ "$_p" != "$2" ] &&
        case $(gpud_of "$1" state) in idle | busy) true ;; *) false ;; esac
}
took() { grep -q " level=notice gpud\[$1\]: BUFFERS\[take\]" "$LOG"; }

s14() {
    # while $TMP/s14.hold exists each gpud holds the slot it took: both take
    # one, and each is killed holding it
    touch "$TMP/s14.hold"
    start_daemon s14 SLOTPROVE_FAULT_HOLD="$TMP/s14.hold" -- --synth 2 --gpuds 2 --slots 4 --trace-buffers \
        --key nopub="$FIX/nopub.zkey" --key allpub="$FIX/allpub.zkey" || return
    poll 60 eval '[ "$(gpud_of 1 state)" = idle ]'
    a0=$(gpud_of 0 pid); a1=$(gpud_of 1 pid)
    i0=$(gpud_of 0 incarnation); i1=$(gpud_of 1 incarnation)
    check "s14: two gpuds run (pids $a0 $a1)" [ -n "$a0" -a -n "$a1" -a "$a0" != "$a1" ]
    : >"$D/jobs"
    for i in $(seq 16); do
        if [ $((i % 2)) = 0 ]; then c=nopub; else c=allpub; fi
        id=$(submit --key $c --witness "$FIX/$c.wtns" 2>"$D/err") && echo "$i $id $c" >>"$D/jobs" \
            || bad "s14: submit $i: $(cat "$D/err")"
    done
    # each gpud is killed once it has taken a slot, the other keeps going
    poll 60 took "$i0" || bad "s14: gpud 0 took no slot"
    poll 60 took "$i1" || bad "s14: gpud 1 took no slot"
    kill -KILL "$a0"
    check "s14: gpud 0 ($a0) killed; gpud 1 ($a1) untouched" eval 'poll 60 gpud_up_again 0 "$a0" && [ "$(gpud_of 1 pid)" = "$a1" ]'
    kill -KILL "$a1"
    check "s14: gpud 1 ($a1) killed and restarted" poll 60 gpud_up_again 1 "$a1"
    rm -f "$TMP/s14.hold"
    : >"$D/verify"
    n=0
    nok=0
    while read -r i id c; do
        n=$((n + 1))
        timeout 120 "$BIN" wait --socket "$SOCK" --proof "$D/p.$i.json" --public "$D/q.$i.json" "$id" 2>"$D/err" &&
            nok=$((nok + 1)) || note "s14: job $i: $(cat "$D/err")"
        vline $c "$D/p.$i.json" "$D/q.$i.json" 1 >>"$D/verify"
    done <"$D/jobs"
    check "s14: all $n jobs completed ($nok ok)" [ "$nok" = 16 ]
    verify_batch "$D/verify" "s14: every proof verifies"
    note "s14: counters $(st | jq -c .counters)"
    check "s14: each partition proved once (proofs $(counter proofs) == 16), gpud_deaths $(counter gpud_deaths) == 2" \
        [ "$(counter proofs)" = 16 -a "$(counter gpud_deaths)" = 2 ]
    poll 60 all_free 4
    check "s14: slots conserved (all 4 FREE: $(sj .slots.FREE.count))" all_free 4
    stop_daemon
}

# ---- 17. a gpud with two workers killed holding two released partitions ------
# gpud proves on worker threads (two per GPU); SLOTPROVE_GPUD_WORKERS=2 gives
# the CPU backend two as well, and SLOTPROVE_FAULT_HOLD_RELEASED keeps each
# partition in gpud's hands after its slot's early release for as long as
# $TMP/s17.released exists (not a time: the kill cannot miss it). Killed then,
# both partitions live only in the supervisor's table: both must be
# synthesized again, each proved once, and no slot lost.
s17() {
    touch "$TMP/s17.released"
    start_daemon s17 SLOTPROVE_GPUD_WORKERS=2 SLOTPROVE_FAULT_HOLD_RELEASED="$TMP/s17.released" -- --synth 2 --slots 4 \
        --trace-buffers --key nopub="$FIX/nopub.zkey" || return
    inc=$(gpud_of 0 incarnation)
    gp=$(gpud_of 0 pid)
    : >"$D/jobs"
    for i in 1 2 3 4; do
        id=$(submit --key nopub --witness "$FIX/nopub.wtns" 2>"$D/err") && echo "$i $id nopub 1" >>"$D/jobs" \
            || bad "s17: submit $i: $(cat "$D/err")"
    done
    check "s17: gpud ($gp) holds two partitions after their slots' early release" \
        poll 60 eval '[ "$(grep -c " level=notice gpud\[$inc\]: BUFFERS\[release\]" "$LOG")" -ge 2 ]'
    r0=$(counter resynthesized)
    p0=$(counter proofs)
    kill -KILL "$gp"
    rm -f "$TMP/s17.released"
    check "s17: gpud killed and restarted" poll 60 gpud_up_again 0 "$gp"
    wait_all "$D/jobs" 4 "s17"
    r1=$(counter resynthesized)
    check "s17: both released partitions synthesized again (resynthesized $r0 -> $r1; proofs before the kill $p0)" \
        [ "$p0" = 0 -a "$r1" -ge $((r0 + 2)) ]
    check "s17: each partition proved once (proofs $(counter proofs) == 4)" [ "$(counter proofs)" = 4 ]
    poll 60 all_free 4
    check "s17: slots conserved (all 4 FREE: $(sj .slots.FREE.count))" all_free 4
    stop_daemon
}

# ---- 15. stalls: a stopped child, a stopped supervisor, a key not preloaded ------

# wait_all FILE N TAG: waits for every job id (2nd column) in FILE, checks all
# N completed and their proofs verify (column 3: circuit, 4: witnesses)
wait_all() {
    : >"$D/verify"
    _n=0
    _ok=0
    while read -r _i _id _c _k; do
        _n=$((_n + 1))
        timeout 120 "$BIN" wait --socket "$SOCK" --proof "$D/p.$_i.json" --public "$D/q.$_i.json" "$_id" \
            2>"$D/err" && _ok=$((_ok + 1)) || note "$3: job $_i: $(cat "$D/err")"
        vline "$_c" "$D/p.$_i.json" "$D/q.$_i.json" "$_k" >>"$D/verify"
    done <"$1"
    check "$3: all $2 jobs completed ($_ok ok)" [ "$_ok" = "$2" -a "$_n" = "$2" ]
    verify_batch "$D/verify" "$3: every proof verifies"
}
stall_logged() { grep -q "killing $1 pid $2: stalled: stopped" "$LOG"; }
# the stalled synthd's last exit, once reaped, in status (in $sw)
stall_shown() {
    sw=$(sj '[.processes[] | select(.role == "synthd" and .stalls > 0) | .last_exit][0]')
    echo "$sw" | grep -q "stalled: stopped"
}

s15() {
    start_daemon s15 SLOTPROVE_FAULT_DELAY_MS=300 SLOTPROVE_FAULT_HOLD="$TMP/s15.hold" -- --synth 2 --slots 4 \
        --key nopub="$FIX/nopub.zkey" --key allpub="$FIX/allpub.zkey" || return
    # (a) an idle synthd SIGSTOPped: it gets no work it would sit on; it is
    # seen stopped, killed, respawned; the jobs complete
    sp=$(sj '[.processes[] | select(.role == "synthd") | .pid][0]')
    kill -STOP "$sp"
    : >"$D/jobs"
    for i in 1 2 3 4 5 6; do
        id=$(submit --key nopub --witness "$FIX/nopub.wtns" 2>"$D/err") && echo "$i $id nopub 1" >>"$D/jobs"
    done
    check "s15: SIGSTOPped synthd $sp detected as stalled and killed" poll 60 stall_logged synthd "$sp"
    sw=""
    poll 30 stall_shown
    check "s15: status counts the stall and its last exit says why: $sw" stall_shown
    wait_all "$D/jobs" 6 "s15 (stopped synthd)"
    # (b) gpud SIGSTOPped while it holds work (held at its take while
    # $TMP/s15.hold exists): killed, restarted, work redone
    gp=$(gpud_pid)
    touch "$TMP/s15.hold"
    : >"$D/jobs"
    for i in 1 2 3 4 5 6; do
        id=$(submit --key allpub --witness "$FIX/allpub.wtns" 2>"$D/err") && echo "$i $id allpub 1" >>"$D/jobs"
    done
    check "s15: gpud $gp holds a PROVING slot" poll 60 proving
    kill -STOP "$gp"
    check "s15: SIGSTOPped gpud $gp detected as stalled and killed" poll 60 stall_logged gpud "$gp"
    rm -f "$TMP/s15.hold"
    wait_all "$D/jobs" 6 "s15 (stopped gpud)"
    check "s15: counters.stall_kills $(counter stall_kills) == 2" [ "$(counter stall_kills)" = 2 ]
    stop_daemon
    # (d) a job whose key is not preloaded (attached with --zkey) is not
    # starved by a steady stream of jobs submitted after it
    # (the later jobs are chain proofs, ~10x a nopub one, so the margin does
    # not hang on the machine's load; starved, the --zkey job would end last)
    start_daemon s15d -- --synth 2 --slots 2 --key nopub="$FIX/nopub.zkey" --key chain="$FIX/chain.zkey" || return
    for i in $(seq 4); do submit --key nopub --witness "$FIX/nopub.wtns" >/dev/null; done
    zid=$(submit --zkey "$FIX/allpub.zkey" --witness "$FIX/allpub.wtns" 2>"$D/err")
    : >"$D/later"
    for i in $(seq 16); do submit --key chain --witness "$FIX/chain.wtns" >>"$D/later"; done
    if timeout 60 "$BIN" wait --socket "$SOCK" --proof "$D/z.json" --public "$D/zq.json" "$zid" 2>"$D/err"; then
        left=$(sj .jobs.running)
        check "s15: the --zkey job finished while $left of the 16 later jobs were still running" [ "$left" -ge 1 ]
    else
        bad "s15: the --zkey job failed: $(cat "$D/err")"
    fi
    vline allpub "$D/z.json" "$D/zq.json" 1 >"$D/verify"
    verify_batch "$D/verify" "s15: its proof verifies"
    while read -r id; do "$BIN" cancel --socket "$SOCK" "$id" >/dev/null 2>&1; done <"$D/later"
    # (c) the supervisor SIGSTOPped for 3 s with 16 proofs in flight: children
    # wait to send instead of dropping; every proof arrives once
    : >"$D/jobs"
    p0=$(counter proofs)
    w=""
    for k in 1 2 3 4; do w="$w --witness $FIX/nopub.wtns"; done
    for i in 1 2 3 4; do
        # shellcheck disable=SC2086
        id=$(submit --key nopub $w 2>"$D/err") && echo "$i $id nopub 4" >>"$D/jobs"
    done
    poll 20 proving
    kill -STOP "$DPID"
    sleep 3
    kill -CONT "$DPID"
    wait_all "$D/jobs" 4 "s15 (stopped supervisor)"
    check "s15: after the supervisor's stop, proofs $(counter proofs) == $p0 + 16, none duplicated or lost" \
        [ "$(counter proofs)" = $((p0 + 16)) ]
    stop_daemon
}

# ---- 16. a client's file stalls -------------------------------------------------

s16() {
    # SLOTPROVE_FAULT=intake-stall: reads of a witness named *stall* never
    # return, as on a hung NFS or FUSE mount
    start_daemon s16 SLOTPROVE_FAULT=intake-stall SLOTPROVE_FAULT_MATCH=stall -- --synth 2 \
        --file-timeout 3 --key nopub="$FIX/nopub.zkey" || return
    cp "$FIX/nopub.wtns" "$D/stall.wtns"
    t0=$(now)
    # (answered: an id; a daemon that waited on the file would answer the
    # job's failure after --file-timeout, or never)
    sid=$(timeout 30 "$BIN" submit --socket "$SOCK" --key nopub --witness "$D/stall.wtns" 2>"$D/err")
    check "s16: the submit with the stalling file is answered at once ($(since "$t0") s): ${sid:-$(cat "$D/err")}" [ -n "$sid" ]
    check "s16: status answers while the file is stalled" eval 'timeout 30 "$BIN" status --socket "$SOCK" --json >/dev/null'
    if timeout 90 "$BIN" submit --socket "$SOCK" --zkey "$FIX/allpub.zkey" --witness "$FIX/allpub.wtns" --wait \
        --proof "$D/p.json" --public "$D/q.json" >/dev/null 2>"$D/err"; then
        ok "s16: another job (with an attached key) completes meanwhile"
    else
        bad "s16: another job failed: $(cat "$D/err")"
    fi
    vline allpub "$D/p.json" "$D/q.json" 1 >"$D/verify"
    verify_batch "$D/verify" "s16: its proof verifies"
    timeout 90 "$BIN" wait --socket "$SOCK" "${sid:-0}" >/dev/null 2>"$D/err"
    rc=$?
    note "s16: stalled job: $(cat "$D/err")"
    check "s16: the stalled job failed on its own after the deadline (exit $rc), naming the file" \
        eval '[ $rc = 1 ] && grep -q "stall.wtns: reading the job.s files did not finish within 3 s" "$D/err"'
    stop_daemon
}

# ---- 18. many submits on a hung mount, and a hung --zkey ------------------------

s18() {
    # At the defaults (--file-timeout 30): 32 submits whose witnesses never
    # read (the intake threads' limit) are failed after the timeout; their
    # stuck threads are abandoned and counted, and later submits are taken
    # again: a client key that hangs is named in its failure, and a good job
    # completes meanwhile.
    start_daemon s18 SLOTPROVE_FAULT=intake-stall SLOTPROVE_FAULT_MATCH=stall -- \
        --key nopub="$FIX/nopub.zkey" || return
    ids=""
    for i in $(seq 32); do
        cp "$FIX/nopub.wtns" "$D/stall$i.wtns"
        id=$(timeout 10 "$BIN" submit --socket "$SOCK" --key nopub --witness "$D/stall$i.wtns" 2>"$D/err")
        ids="$ids $id"
    done
    check "s18: 32 submits on stalling files are taken" [ "$(echo $ids | wc -w)" = 32 ]
    timeout 10 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" >/dev/null 2>"$D/err"
    check "s18: meanwhile a 33rd is refused as busy, all 32 readers taken (the client retries): $(cat "$D/err")" \
        grep -q 'busy: the files of earlier submits are still being read.*retrying' "$D/err"
    first=$(echo $ids | cut -d' ' -f1)
    timeout 90 "$BIN" wait --socket "$SOCK" "$first" >/dev/null 2>"$D/err"
    check "s18: a stalled job fails after --file-timeout (30 s), naming its witness" \
        grep -q 'stall1.wtns: reading the job.s files did not finish within 30 s' "$D/err"
    poll 90 eval '[ "$(sj .intake.abandoned_stuck)" = 32 ]'
    check "s18: status counts the 32 abandoned readers ($(sj .intake.abandoned_stuck) stuck, $(sj .intake.running) running)" \
        eval '[ "$(sj .intake.abandoned_stuck)" = 32 ] && [ "$(sj .intake.running)" = 0 ]'
    cp "$FIX/allpub.zkey" "$D/stallkey.zkey"
    kid=$(timeout 10 "$BIN" submit --socket "$SOCK" --zkey "$D/stallkey.zkey" --witness "$FIX/allpub.wtns" 2>"$D/err")
    check "s18: a submit with a hanging --zkey is taken after the abandonment: ${kid:-$(cat "$D/err")}" [ -n "$kid" ]
    if timeout 60 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$D/p.json" --public "$D/q.json" >/dev/null 2>"$D/err"; then
        ok "s18: a good job completes while 33 readers are stuck"
    else
        bad "s18: a good job failed: $(cat "$D/err")"
    fi
    vline nopub "$D/p.json" "$D/q.json" 1 >"$D/verify"
    verify_batch "$D/verify" "s18: its proof verifies"
    timeout 90 "$BIN" wait --socket "$SOCK" "${kid:-0}" >/dev/null 2>"$D/err"
    check "s18: the hanging --zkey's job fails naming the key, not the witness: $(cat "$D/err")" \
        grep -q 'stallkey.zkey: reading the job.s files did not finish within 30 s' "$D/err"
    check "s18: status: 33 abandoned in all" poll 60 eval '[ "$(sj .intake.abandoned_total)" = 33 ]'
    stop_daemon
}

# ---- 19. SIGTERM/SIGINT drain with a key large enough for helper threads -------

# sigblk_ok PID...: every thread of each PID blocks SIGHUP, SIGINT and SIGTERM
# (bits 0, 1 and 14 of /proc/PID/task/TID/status's SigBlk); prints the
# offenders, and how many threads were looked at, on $D/sigblk
sigblk_ok() {
    _n=0 _badt=""
    for _p in "$@"; do
        for _tk in /proc/"$_p"/task/*; do
            _m=$(awk '/^SigBlk:/ { print $2 }' "$_tk/status" 2>/dev/null) || continue
            [ -n "$_m" ] || continue
            _n=$((_n + 1))
            _lo=$(printf '%s' "$_m" | tail -c 4)
            [ $((0x$_lo & 0x4003)) = $((0x4003)) ] || _badt="$_badt ${_tk#/proc/}:$_m"
        done
    done
    echo "$_n threads${_badt:+; not blocking them:$_badt}" >"$D/sigblk"
    [ -z "$_badt" ]
}
group_sigblk() { sigblk_ok "$DPID" $(kids_of "$DPID"); }
# gpud held on the first partition, the other three published: 3 of the 4 slots in use
three_in_use() { [ "$(sj '.slots.total - .slots.FREE.count')" -ge 3 ] 2>/dev/null; }
drain_logged() { grep -q "event=drain signal=$1 " "$LOG"; }

# s19_one SIG SIGNO: a 4-partition job of the 2^17 key held in gpud
# (SLOTPROVE_FAULT_HOLD), the signal, then the hold lifted: the job must
# finish, the daemon exit 0 and remove its socket
s19_one() {
    start_daemon "s19-$1" SLOTPROVE_FAULT_HOLD="$TMP/s19.hold" -- --key big="$K19/circuit.zkey" || return
    nthr=$(ls /proc/"$DPID"/task | wc -l)
    check "s19 $1: serve runs $nthr threads with the 2^17 key loaded (the helpers exist)" [ "$nthr" -ge 2 ]
    group_sigblk
    check "s19 $1: at start every thread of serve, synthds and gpud blocks SIGTERM/SIGINT/SIGHUP ($(cat "$D/sigblk"))" group_sigblk
    touch "$TMP/s19.hold"
    sock=$SOCK
    ( timeout 600 "$BIN" submit --socket "$sock" --key big --witness "$K19/circuit.wtns" \
        --witness "$K19/circuit.wtns" --witness "$K19/circuit.wtns" --witness "$K19/circuit.wtns" \
        --proof "$D/p.json" --public "$D/q.json" --wait >/dev/null 2>"$D/c.err"; echo $? >"$D/c.rc" ) &
    cpid=$!
    bg_add $cpid
    poll 120 three_in_use || bad "s19 $1: the job's partitions never filled 3 slots"
    group_sigblk
    check "s19 $1: with the job running, every thread blocks them ($(cat "$D/sigblk"))" group_sigblk
    kill -"$1" "$DPID"
    poll 60 drain_logged "$2" || bad "s19 $1: no drain line in the log" "$LOG"
    check "s19 $1: the drain is logged: $(grep -o 'msg="signal.*' "$LOG" | head -1)" drain_logged "$2"
    group_sigblk
    check "s19 $1: draining, every thread still blocks them ($(cat "$D/sigblk"))" group_sigblk
    rm -f "$TMP/s19.hold"
    poll 300 dead "$DPID"
    wait "$DPID"
    drc=$?
    forget "$DPID"
    check "s19 $1: the daemon exited 0 ($drc)" [ "$drc" = 0 ]
    check "s19 $1: the daemon removed its socket" [ ! -e "$sock" ]
    wait $cpid
    bg_done $cpid
    check "s19 $1: the running 4-partition job completed for its client ($(cat "$D/c.rc"): $(cat "$D/c.err"))" \
        [ "$(cat "$D/c.rc")" = 0 ]
    echo "$K19/vk.json $D/p.json $D/q.json 4 $K19/public.json" >"$D/verify"
    verify_batch "$D/verify" "s19 $1: its 4 proofs verify"
    check "s19 $1: no synthd/gpud left" no_kids "$DPID"
}

s19() {
    K19=$TMP/k19
    mkdir -p "$K19"
    "$BIN" keygen --curve bn128 --constraints 131000 --seed 19 -q --out "$K19" 2>"$TMP/k19.err" ||
        { bad "s19: keygen" "$TMP/k19.err"; return; }
    s19_one TERM 15
    s19_one INT 2
    # one-shot prove: the signal stops it, nothing is written, no child is left
    D=$(mktemp -d "$TMP/s19-prove.XXXXXX")
    touch "$TMP/s19.hold"
    SLOTPROVE_FAULT_HOLD="$TMP/s19.hold" "$BIN" prove "$K19/circuit.zkey" "$K19/circuit.wtns" \
        "$D/p.json" "$D/q.json" 2>"$D/err" &
    ppid=$!
    bg_add $ppid
    # synthesized: gpud takes it and is held before proving (SLOTPROVE_FAULT_HOLD)
    poll 120 grep -q "synthesized into slot" "$D/err" || bad "s19 prove: never synthesized" "$D/err"
    check "s19 prove: every thread of prove and its children blocks them ($(sigblk_ok "$ppid" $(pgrep -P "$ppid"); cat "$D/sigblk"))" \
        sigblk_ok "$ppid" $(pgrep -P "$ppid")
    kids=$(pgrep -P "$ppid" | tr '\n' ' ')
    kill -INT "$ppid"
    wait "$ppid"
    prc=$?
    bg_done $ppid
    rm -f "$TMP/s19.hold"
    check "s19 prove: SIGINT: exit 130 ($prc), $(cat "$D/err")" \
        eval '[ $prc = 130 ] && grep -q "stopped by SIGINT before the proof was done; nothing written" "$D/err"'
    check "s19 prove: no proof or public file written" [ ! -e "$D/p.json" -a ! -e "$D/q.json" ]
    check "s19 prove: no child left ($kids)" poll 10 all_dead $kids
}

# ---- 20. a torn control page ------------------------------------------------------

# s20: the slot pool's control memfd overwritten with 0xff (what the red team
# did through /proc/<pid>/fd before witness programs were boxed): the
# supervisor writes its layout back from its own copy (shm/pool_guard.h),
# resets the rings and the slot words that hold no state, respawned synthds
# attach, and every later job is proved; status and the log say so.
pool_repaired() { [ "$(sj .counters.pool_fields_repaired)" -ge 1 ] 2>/dev/null; }
s20() {
    start_daemon s20 -- --key nopub="$FIX/nopub.zkey" || return
    fd=$(ls -l /proc/"$DPID"/fd | awk '/slotprove-ctl/ { print $9; exit }')
    check "s20: the supervisor holds the control memfd (fd $fd)" [ -n "$fd" ]
    python3 -c "
import os, sys
f = os.open('/proc/$DPID/fd/$fd', os.O_RDWR)
os.pwrite(f, b'\xff' * os.fstat(f).st_size, 0)" 2>"$D/err" || bad "s20: overwriting the control memfd" "$D/err"
    poll 30 pool_repaired || bad "s20: status never counted a repair"
    check "s20: status counts the repair ($(st | jq -c '.counters | {pool_fields_repaired, pool_slots_repaired}'))" \
        eval '[ "$(sj .counters.pool_fields_repaired)" -ge 12 ] && [ "$(sj .counters.pool_slots_repaired)" -ge 1 ]'
    check "s20: the log names it: $(grep -o 'msg="the slot pool.s control page was overwritten[^"]*' "$LOG" | head -1)" \
        grep -q "event=pool_repaired" "$LOG"
    for k in $(sj '.processes[] | select(.role == "synthd") | .pid'); do kill -KILL "$k"; done
    : >"$D/verify"
    nok=0
    for i in 1 2 3; do
        timeout 120 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
            --proof "$D/p.$i.json" --public "$D/q.$i.json" >/dev/null 2>"$D/err" && nok=$((nok + 1))
        vline nopub "$D/p.$i.json" "$D/q.$i.json" 1 >>"$D/verify"
    done
    check "s20: after the repair, with the synthds killed and respawned, 3 jobs are proved ($nok)" [ "$nok" = 3 ]
    verify_batch "$D/verify" "s20: their proofs verify"
    check "s20: no process stopped for good ($(sj '[.processes[] | select(.state == "stopped")] | length'))" \
        [ "$(sj '[.processes[] | select(.state == "stopped")] | length')" = 0 ]
    stop_daemon
}

# gid_daemon [VAR=VALUE ...]: serve in $G (0750, group OTHER_GID) for uid
# 65534 in that group as well as root, the nopub key preloaded; sets D,
# SOCK, LOG, DPID and as_member (runs a command as that uid)
# other_uid_dir TAG: G, a fresh folder the other uid (as_member) may read,
# removed at the end; status 1 (after a SKIP note) without root or setpriv
other_uid_dir() {
    if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
        note "$1: SKIP: needs root and setpriv for a second uid"
        return 1
    fi
    G=$(mktemp -d /tmp/slotprove-faults.XXXXXX)
    EXTRA="$EXTRA $G"
    chgrp "$OTHER_GID" "$G" && chmod 0750 "$G"
}
as_member() { setpriv --reuid 65534 --regid "$OTHER_GID" --clear-groups "$@"; }
gid_daemon() {
    D=$G SOCK=$G/s.sock LOG=$G/daemon.log
    env "$@" "$BIN" serve --socket "$SOCK" --allow-gid "$OTHER_GID" --key nopub="$FIX/nopub.zkey" 2>"$LOG" &
    DPID=$!
    DAEMONS="$DAEMONS $DPID"
    ALL_DAEMONS="$ALL_DAEMONS $DPID"
    poll 60 eval '[ "$(gpud_pid)" -gt 0 ] 2>/dev/null' || { bad "$TAG: daemon did not come up"; show "$LOG"; return 1; }
}

# ---- 21. one uid's hung files cannot refuse the others' submits ---------------------

# s21 (issue 36.4): uid 65534 resubmits jobs whose files hang (the
# intake-stall fault point, as s18) round after round; its readers count
# against its own share (8 running, 64 stuck: run/sup/intake.h), its 9th is
# refused as busy (the client says so and retries), and every submit of the
# daemon's own uid is accepted and proved meanwhile; the supervisor's
# threads stay bounded.
s21() {
    TAG=s21
    other_uid_dir s21 || return
    mkdir -m 0755 "$G/w"
    for i in $(seq 20); do cp "$FIX/nopub.wtns" "$G/w/stall$i.wtns"; done
    chmod 0644 "$G"/w/*
    gid_daemon SLOTPROVE_FAULT=intake-stall SLOTPROVE_FAULT_MATCH=stall || return
    : >"$G/verify"
    owner_ok=0 owner_n=0 n=0
    for round in 1 2; do
        taken=0
        for i in $(seq 8); do
            n=$((n + 1))
            as_member timeout 20 "$BIN" submit --socket "$SOCK" --key nopub --witness "$G/w/stall$n.wtns" \
                >/dev/null 2>"$G/err" && taken=$((taken + 1))
        done
        check "s21 round $round: uid 65534's 8 hanging submits are taken ($taken)" [ "$taken" = 8 ]
        as_member timeout 5 "$BIN" submit --socket "$SOCK" --key nopub --witness "$G/w/stall20.wtns" \
            >/dev/null 2>"$G/err9"
        rc=$?
        check "s21 round $round: its 9th is refused as busy and the client retries (exit $rc): $(head -1 "$G/err9")" \
            eval '[ $rc = 124 ] && grep -q "busy: the files of earlier submits are still being read.*8 of one uid.*retrying" "$G/err9"'
        for i in $(seq 6); do
            owner_n=$((owner_n + 1))
            if timeout 60 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
                --proof "$G/p.$owner_n.json" --public "$G/q.$owner_n.json" >/dev/null 2>"$G/err"; then
                owner_ok=$((owner_ok + 1))
            else note "s21: the owner's submit $owner_n: $(cat "$G/err")"; fi
            vline nopub "$G/p.$owner_n.json" "$G/q.$owner_n.json" 1 >>"$G/verify"
        done
        # the hanging readers are abandoned after --file-timeout (30 s)
        poll 120 eval '[ "$(sj .intake.abandoned_stuck)" -ge $((8 * round)) ]' ||
            bad "s21 round $round: the hanging readers were not abandoned ($(sj .intake.abandoned_stuck))"
    done
    check "s21: every submit of the daemon's own uid was taken and proved ($owner_ok of $owner_n)" [ "$owner_ok" = "$owner_n" ]
    verify_batch "$G/verify" "s21: their proofs verify"
    thr=$(awk '/^Threads:/ { print $2 }' /proc/"$DPID"/status)
    check "s21: the supervisor's threads stay bounded ($thr: 16 stuck readers of uid 65534 and its own)" [ "$thr" -le 64 ]
    stop_daemon
}

# ---- 22. hung witnesses cannot take every synthd and slot --------------------------

# s22 (issue 36.4, N2): uid 65534 submits as many jobs as there are slots,
# each on a witness whose reads hang after its header (tests/stuck_fuse.c, a
# real FUSE file), so a synthd reading it sleeps until the mount answers.
# Another uid's partitions get at most min(slots, synthds) - 1 synthds at
# once (dispatch.h), so the daemon's own job is proved meanwhile, long
# before the stall deadline (minutes) would free a synthd.
s22() {
    TAG=s22
    other_uid_dir s22 || return
    mkdir -m 0755 "$G/mnt"
    if ! cc -O1 -Wall -Werror -o "$G/stuck_fuse" "$ROOT/tests/stuck_fuse.c" $(pkg-config --cflags --libs fuse3) 2>"$G/err"; then
        note "s22: SKIP: cannot build tests/stuck_fuse.c: $(head -2 "$G/err")"
        return
    fi
    # the intake reads the header and section 2's first value (nopub: no public signals)
    serve_bytes=$(python3 - "$FIX/nopub.wtns" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 12
for _ in range(struct.unpack_from('<I', b, 8)[0]):
    t, size = struct.unpack_from('<IQ', b, off)
    off += 12
    if t == 2:
        break
    off += size
print(off + 32)
PY
)
    "$G/stuck_fuse" "$G/mnt" "$FIX/nopub.wtns" "$serve_bytes" "$G/release" allow_other 2>"$G/fuse.log" &
    fpid=$!
    bg_add "$fpid"
    if ! poll 30 test -e "$G/mnt/nopub.wtns"; then
        note "s22: SKIP: cannot mount a FUSE filesystem here: $(head -2 "$G/fuse.log")"
        kill "$fpid" 2>/dev/null
        return
    fi
    gid_daemon || return
    slots=$(sj .slots.total) synthds=$(sj '[.processes[] | select(.role == "synthd")] | length')
    ids=""
    for i in $(seq "$slots"); do
        ids="$ids $(as_member timeout 30 "$BIN" submit --socket "$SOCK" --key nopub --witness "$G/mnt/nopub.wtns" 2>"$G/err")"
    done
    check "s22: uid 65534's $slots jobs on hung witnesses are taken" [ "$(echo $ids | wc -w)" = "$slots" ]
    busy_synthd() { [ "$(sj '[.processes[] | select(.role == "synthd" and .state == "busy")] | length')" -ge 1 ] 2>/dev/null; }
    poll 60 busy_synthd || bad "s22: no synthd took a hung witness"
    t0=$(date +%s)
    timeout 90 "$BIN" submit --socket "$SOCK" --key nopub --witness "$FIX/nopub.wtns" --wait \
        --proof "$G/p.json" --public "$G/q.json" >/dev/null 2>"$G/err"
    rc=$?
    check "s22: the daemon's own job is proved while $slots hung witnesses wait ($synthds synthds, $slots slots; exit $rc in $(($(date +%s) - t0)) s, before any stall deadline)" \
        [ $rc = 0 ]
    vline nopub "$G/p.json" "$G/q.json" 1 >"$G/verify"
    verify_batch "$G/verify" "s22: its proof verifies"
    check "s22: uid 65534 holds at most $((synthds - 1)) synthd(s) at once ($(sj '[.processes[] | select(.role == "synthd" and .state == "busy")] | length') busy)" \
        [ "$(sj '[.processes[] | select(.role == "synthd" and .state == "busy")] | length')" -le $((synthds > 1 ? synthds - 1 : 1)) ]
    touch "$G/release" # the mount answers: the hung jobs go on
    nok=0
    for id in $ids; do
        as_member timeout 180 "$BIN" wait --socket "$SOCK" "$id" >/dev/null 2>"$G/err" && nok=$((nok + 1))
    done
    check "s22: once the mount answers, uid 65534's jobs are proved too ($nok of $slots)" [ "$nok" = "$slots" ]
    stop_daemon
    kill "$fpid" 2>/dev/null
    wait "$fpid" 2>/dev/null
    bg_done "$fpid"
    fusermount3 -u "$G/mnt" 2>/dev/null || umount -l "$G/mnt" 2>/dev/null
}

T0=$(now)
section() {
    _t=$(now)
    echo "# --- $1: $2"
    "$1"
    # whatever the section left running
    [ -n "${DPID:-}" ] && case " $DAEMONS " in *" $DPID "*) kill -KILL "$DPID"; wait "$DPID" 2>/dev/null; forget "$DPID" ;; esac
    echo "# $1 took $(since "$_t") s"
}
ONLY=${FAULTS_ONLY:-"s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s19 s20 s21 s22 s11 s13 s14 s17 s15 s16 s18 s12"}
for s in $ONLY; do
    case $s in
    s1) section s1 "random synthd kills under load" ;;
    s2) section s2 "gpud SIGKILL mid-proving" ;;
    s3) section s3 "RSS limit" ;;
    s4) section s4 "crash loop, external kills, fatal exit" ;;
    s5) section s5 "poison partition" ;;
    s6) section s6 "supervisor killed" ;;
    s7) section s7 "client disconnect" ;;
    s8) section s8 "bad inputs as jobs" ;;
    s9) section s9 "memory bound" ;;
    s10) section s10 "SIGTERM drains" ;;
    s22) section s22 "hung witnesses and the last synthd" ;;
    s21) section s21 "one uid's hung files and the others' submits" ;;
    s20) section s20 "a torn control page (0xff over the pool's control memfd)" ;;
    s19) section s19 "SIGTERM/SIGINT drain with helper threads (a 2^17 key)" ;;
    s11) section s11 "socket security" ;;
    s12) section s12 "fuzzers (make fuzz-short)" ;;
    s13) section s13 "key cache eviction and size cap" ;;
    s14) section s14 "two gpuds, each killed" ;;
    s17) section s17 "two gpud workers, killed holding two released partitions" ;;
    s16) section s16 "a client's file stalls" ;;
    s18) section s18 "32 submits on a hung mount, a hung --zkey" ;;
    s15) section s15 "stalls: stopped child, stopped supervisor, key not preloaded" ;;
    esac
done
orphans=""
for p in $ALL_DAEMONS; do orphans="$orphans $(kids_of "$p" | tr '\n' ' ')"; done
orphans=$(echo $orphans) # trims
check "no synthd/gpud of the $(echo $ALL_DAEMONS | wc -w) daemons started here is left${orphans:+: $orphans}" [ -z "$orphans" ]
echo "# total $(since "$T0") s"
finish
