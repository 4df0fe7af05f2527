#!/bin/bash
# tests/fleet.sh — the fleet (run/fleet/) on a real PostgreSQL 15 started
# here in a temporary directory (unix socket only, as user postgres when run
# as root), with three `serve` + `fleetd` pairs on the CPU backend and the
# bn128 fixtures. Short leases for the test (8 s, as a restart of postgres on
# a busy 2-core box takes up to ~5 s; heartbeat 0.3 s); the production
# defaults are in run/fleet/README.md.
#
#   1. fleet init: creates, is idempotent, refuses a newer schema
#   2. jobs across hosts, a key only one host holds, results verified by snarkjs
#   3. SIGKILL of a fleetd mid-lease and of a serve: re-leased, finished elsewhere
#   4. SIGSTOP of a fleetd past its lease, SIGCONT: the fence refuses its result
#   5. pg_ctl stop -m immediate + start mid-run: hosts keep proving, reconnect,
#      deliver
#   6. a witness changed after submit, a missing witness, a key no host holds
#      (status says why, cancel ends it)
#   7. row-level security: a client sees and cancels only its own jobs, adds
#      partitions only to its own jobs below their partition count, writes
#      only the columns a submit or a cancel sets; status --db shows other
#      users' strings escaped
#   8. invariants in SQL: done exactly once, attempts within the limit, leases
#      never above slots (at every claim, and sampled every 0.2 s)
#   9. a database of schema version 2: fleet init upgrades it, removes the
#      partition another client added to a job (which then finishes) and
#      returns a forged lease to the queue
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=$PWD/build/slotprove
FIX=$PWD/tests/fixtures/bn128
LEASE=8000
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1 [${SECONDS}s]"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

. tests/fleet_lib.sh

# ---- 1. fleet init -------------------------------------------------------------
SCHEMA=3   # FLEET_SCHEMA_VERSION: the newest run/fleet/sql file
out=$("$BIN" fleet init --db "$ADMIN" 2>&1)
check "fleet init creates the schema ($out)" [ "$out" = "fleet schema version $SCHEMA (was 0)" ]
out=$("$BIN" fleet init --db "$ADMIN" 2>&1)
check "fleet init again: nothing to do ($out)" [ "$out" = "fleet schema version $SCHEMA: already current" ]
q "UPDATE fleet_meta SET schema_version = $((SCHEMA + 1))"
"$BIN" fleet init --db "$ADMIN" >/dev/null 2>"$TMP/err"
rc=$?
check "fleet init refuses a newer schema (exit $rc: $(cat "$TMP/err"))" \
    grep -q "newer than this slotprove knows" "$TMP/err"
q "UPDATE fleet_meta SET schema_version = $SCHEMA"
make_roles || bad "creating the test roles"

NOWAIT=1 start_serve A nopub chain
NOWAIT=1 start_serve B nopub chain
NOWAIT=1 start_serve C nopub chain allpub
for h in A B C; do wait_serve $h; done
for h in A B C; do start_fleetd $h; done
hosts_up() { [ "$(q "SELECT count(*) FROM fleet_host_keys")" = 7 ]; }
for _ in $(seq 600); do hosts_up && break; sleep 0.1; done
check "three hosts registered their keys by SHA-256" hosts_up
want=$(sha256sum "$FIX/chain.zkey" | cut -d' ' -f1)
check "the key's SHA-256 is the file's" \
    [ "$(q "SELECT DISTINCT key_sha256 FROM fleet_host_keys WHERE key_name = 'chain'")" = "$want" ]

# leases never above slots, sampled every 0.2 s while the jobs run
( while :; do
      q "SELECT l.lease_host || ' ' || count(*) || ' > ' || h.slots FROM fleet_partitions l
         JOIN fleet_hosts h ON h.host_id = l.lease_host WHERE l.state = 'leased'
         GROUP BY l.lease_host, h.slots HAVING count(*) > h.slots" >>"$TMP/over-slots"
      echo >>"$TMP/samples"
      sleep 0.2
  done ) &
SAMPLER=$!
PIDS="$PIDS $SAMPLER"

# shared storage: the witnesses, one file per partition
mkdir -p "$TMP/w"
for i in $(seq 0 15); do
    cp "$FIX/nopub.wtns" "$TMP/w/nopub-$i.wtns"
    cp "$FIX/chain.wtns" "$TMP/w/chain-$i.wtns"
done
cp "$FIX/allpub.wtns" "$TMP/w/allpub-0.wtns"
cp "$FIX/allpub.wtns" "$TMP/w/allpub-1.wtns"
witnesses() { n=$2; for i in $(seq 0 $((n - 1))); do printf -- '--witness %s ' "$TMP/w/$1-$i.wtns"; done; }
VERIFY=""   # triples for tests/fleet_verify.mjs
leased_by() { q "SELECT count(*) FROM fleet_partitions WHERE state = 'leased' AND lease_host = '$1'"; }
poll_until() { # SECONDS CMD...
    end=$(($(date +%s) + $1)); shift
    while [ "$(date +%s)" -le "$end" ]; do "$@" && return 0; sleep 0.1; done
    return 1
}
gt0() { [ "$("$@")" -gt 0 ] 2>/dev/null; }

# ---- 2. jobs across the hosts ----------------------------------------------------
# shellcheck disable=SC2046
if "$BIN" submit --db "$ALICE" --key nopub $(witnesses nopub 6) --wait \
    --proof "$TMP/j0.proof" --public "$TMP/j0.public" >"$TMP/j0.id" 2>"$TMP/err"; then
    ok "a job of 6 partitions through the fleet (submit --db --wait)"
    VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/j0.proof $TMP/j0.public"
else bad "submit --db --wait: $(cat "$TMP/err")"; fi
J0=$(cat "$TMP/j0.id")
# shellcheck disable=SC2046
"$BIN" submit --db "$ALICE" --key allpub $(witnesses allpub 2) >"$TMP/ja.id" 2>"$TMP/err" ||
    bad "submit allpub: $(cat "$TMP/err")"
JA=$(cat "$TMP/ja.id")
if "$BIN" wait --db "$ALICE" --proof "$TMP/ja.proof" --public "$TMP/ja.public" "$JA" 2>"$TMP/err"; then
    ok "wait --db writes a job's results"
    VERIFY="$VERIFY $FIX/allpub.vk.json $TMP/ja.proof $TMP/ja.public"
else bad "wait --db: $(cat "$TMP/err")"; fi
check "only host C, the one holding key allpub, leased its partitions" \
    [ "$(q "SELECT string_agg(DISTINCT host_id, ',') FROM fleet_lease_log WHERE job_id = '$JA'")" = C ]
one=$("$BIN" submit --db "$ALICE" --key nopub --witness "$TMP/w/nopub-0.wtns" --wait \
    --proof "$TMP/j1p.proof" --public "$TMP/j1p.public" 2>"$TMP/err")
if [ -n "$one" ] && cmp -s "$TMP/j1p.public" "$FIX/nopub.public.json"; then
    ok "one partition: public.json written as snarkjs writes it"
    VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/j1p.proof $TMP/j1p.public"
else bad "one-partition job: $(cat "$TMP/err")"; fi

# ---- 3. SIGKILL of a fleetd mid-lease, and of a serve ----------------------------------
# shellcheck disable=SC2046
J1=$("$BIN" submit --db "$ALICE" --key chain $(witnesses chain 10) 2>"$TMP/err") || bad "submit J1"
if poll_until 20 gt0 leased_by A; then
    kill -KILL "$FLEETD_A"; wait "$FLEETD_A" 2>/dev/null
    ok "fleetd A SIGKILLed holding $(leased_by A) leases"
else bad "host A never leased a partition of J1"; fi
if poll_until 20 gt0 leased_by B; then
    kill -KILL "$SERVE_B"; wait "$SERVE_B" 2>/dev/null
    ok "serve B SIGKILLed while its fleetd held leases"
    start_serve B nopub chain
else bad "host B never leased a partition of J1"; fi
if timeout 90 "$BIN" wait --db "$ALICE" --proof "$TMP/j1.proof" --public "$TMP/j1.public" "$J1" 2>"$TMP/err"; then
    ok "the job finished after losing a fleetd and a serve"
    VERIFY="$VERIFY $FIX/chain.vk.json $TMP/j1.proof $TMP/j1.public"
else bad "J1: $(cat "$TMP/err")"; fi
check "fleetd A's leases expired, were reaped and re-leased" \
    gt0 q "SELECT count(*) FROM fleet_lease_log WHERE job_id = '$J1' AND host_id = 'A' AND outcome = 'expired'"
check "fleetd B released the leases its dead serve held" \
    gt0 q "SELECT count(*) FROM fleet_lease_log WHERE job_id = '$J1' AND host_id = 'B' AND outcome = 'released'"
check "every partition whose lease A lost was done by another host" [ "$(q "SELECT count(*)
    FROM fleet_lease_log l JOIN fleet_partitions p USING (job_id, idx) WHERE l.job_id = '$J1'
    AND l.host_id = 'A' AND l.outcome = 'expired' AND (p.state <> 'done' OR p.done_by = 'A')")" = 0 ]
start_fleetd A

# ---- 4. SIGSTOP of a fleetd past its lease, then SIGCONT -----------------------------------
# shellcheck disable=SC2046
J2=$("$BIN" submit --db "$ALICE" --key chain $(witnesses chain 8) 2>"$TMP/err") || bad "submit J2"
if poll_until 20 gt0 leased_by C; then
    kill -STOP "$FLEETD_C"
    held=$(q "SELECT string_agg(lease_token::text, ',') FROM fleet_partitions WHERE state = 'leased' AND lease_host = 'C'")
    reaped() { [ "$(q "SELECT count(*) FROM fleet_lease_log WHERE lease_token IN ($held) AND outcome = 'expired'")" -gt 0 ]; }
    if poll_until 15 reaped; then ok "fleetd C stopped: its leases expired and were reaped"
    else bad "fleetd C's leases were not reaped"; fi
    sleep 1 # its serve finishes the proofs meanwhile
    kill -CONT "$FLEETD_C"
    refused() { grep -q "refused by the fence" "$TMP/C/fleetd.log"; }
    check "fleetd C resumed: its late results were refused by the fence" poll_until 10 refused
    check "the lease log records the refusal" \
        gt0 q "SELECT count(*) FROM fleet_lease_log WHERE lease_token IN ($held) AND outcome = 'refused'"
else bad "host C never leased a partition of J2"; fi
if timeout 90 "$BIN" wait --db "$ALICE" --proof "$TMP/j2.proof" --public "$TMP/j2.public" "$J2" 2>"$TMP/err"; then
    ok "J2 done after the stop"
    VERIFY="$VERIFY $FIX/chain.vk.json $TMP/j2.proof $TMP/j2.public"
else bad "J2: $(cat "$TMP/err")"; fi
check "fleetd C is alive and heartbeats again" poll_until 5 \
    [ "$(q "SELECT now() - last_seen < interval '1 second' FROM fleet_hosts WHERE host_id = 'C'")" = t ]

# ---- 5. the database stopped and restarted mid-run ------------------------------------
# shellcheck disable=SC2046
J3=$("$BIN" submit --db "$ALICE" --key chain $(witnesses chain 10) 2>"$TMP/err") || bad "submit J3"
timeout 120 "$BIN" wait --db "$ALICE" --proof "$TMP/j3.proof" --public "$TMP/j3.public" "$J3" \
    2>"$TMP/j3.err" &
W3=$!
PIDS="$PIDS $W3"
leased_all() { q "SELECT count(*) FROM fleet_partitions WHERE state = 'leased'"; }
if poll_until 20 [ "$(leased_all)" -ge 3 ]; then
    T0=$(q "SELECT now()")
    t0=$(date +%s%N)
    as_pg "$PGBIN/pg_ctl" -D "$PGD/data" stop -m immediate >/dev/null 2>&1
    pg_start || bad "postgres did not restart"
    ok "postgres stopped (immediate) and restarted with leases held (down $((($(date +%s%N) - t0) / 1000000)) ms)"
else bad "no leases to hold across the restart"; T0=now; fi
if wait "$W3"; then
    ok "J3 done across the restart (wait --db reconnected)"
    VERIFY="$VERIFY $FIX/chain.vk.json $TMP/j3.proof $TMP/j3.public"
else bad "J3: $(cat "$TMP/j3.err")"; fi
check "results of leases taken before the stop were delivered after it" \
    gt0 q "SELECT count(*) FROM fleet_lease_log WHERE job_id = '$J3' AND leased_at < '$T0' AND outcome = 'done'"
reconnected=0
for h in A B C; do grep -q "connection was lost\|cannot connect" "$TMP/$h/fleetd.log" &&
    [ "$(grep -c "connected to the database" "$TMP/$h/fleetd.log")" -ge 2 ] && reconnected=$((reconnected + 1)); done
check "all three fleetds lost the database and reconnected ($reconnected)" [ $reconnected = 3 ]

# ---- 6. bad witnesses, a key no host holds --------------------------------------------
cp "$FIX/nopub.wtns" "$TMP/w/changed.wtns"
cp "$FIX/nopub.wtns" "$TMP/w/gone.wtns"
for h in A B C; do eval "kill -STOP \$FLEETD_$h"; done
JC=$("$BIN" submit --db "$ALICE" --key nopub --witness "$TMP/w/changed.wtns" 2>"$TMP/err")
JM=$("$BIN" submit --db "$ALICE" --key nopub --witness "$TMP/w/gone.wtns" 2>"$TMP/err")
printf '\001' | dd of="$TMP/w/changed.wtns" bs=1 seek=200 conv=notrunc 2>/dev/null
rm -f "$TMP/w/gone.wtns"
for h in A B C; do eval "kill -CONT \$FLEETD_$h"; done
"$BIN" wait --db "$ALICE" "$JC" 2>"$TMP/err"
rc=$?
check "a witness changed after submit fails the job with the reason (exit $rc: $(cat "$TMP/err"))" \
    grep -q "changed.wtns: the witness changed after submit" "$TMP/err"
"$BIN" wait --db "$ALICE" "$JM" 2>"$TMP/err"
rc=$?
check "a missing witness fails the job with the reason (exit $rc: $(cat "$TMP/err"))" \
    grep -q "gone.wtns: No such file" "$TMP/err"
JG=$("$BIN" submit --db "$ALICE" --key ghost --witness "$TMP/w/nopub-0.wtns" 2>"$TMP/err")
check "submit --db notes that no host holds the key" grep -q 'no host holds a key "ghost" now' "$TMP/err"
sleep 1
check "a job for a key no host holds stays queued" [ "$(q "SELECT state FROM fleet_jobs WHERE job_id = '$JG'")" = queued ]
"$BIN" status --db "$ALICE" >"$TMP/status" 2>&1
check "status --db says why it waits" grep -q 'waiting: no host with free slots holds key "ghost"' "$TMP/status"
check "status --db lists the three hosts" [ "$(grep -c 'slots 2' "$TMP/status")" = 3 ]
check "cancel --db ends it" [ "$("$BIN" cancel --db "$ALICE" "$JG" 2>&1)" = cancelled ]
"$BIN" wait --db "$ALICE" "$JG" 2>"$TMP/err"
check "wait --db on the cancelled job: exit 1 with the state" grep -q 'state "cancelled"' "$TMP/err"

# ---- 6b. a FIFO and a hung file as witnesses: no fleetd stops ----------------------
# The red team's attack (issue 36.3): a witness path replaced by a FIFO after
# submit, and one on a mount that hangs (tests/stuck_fuse.c, a real FUSE
# filesystem: reads past its first bytes wait until a release file exists).
# fleetd reads witnesses on helper threads (run/fleet/witness_open.h): the
# FIFO fails its partition at once, the hung file after --file-timeout (30 s,
# the default), and meanwhile every fleetd heartbeats and bob's job completes.
cp "$FIX/nopub.wtns" "$TMP/w/fifo.wtns"
FUSE_OK=0
mkdir -p "$TMP/mnt" "$TMP/fsrc"
cp "$FIX/nopub.wtns" "$TMP/fsrc/hung.wtns"
if cc -O1 -Wall -Werror -o "$TMP/stuck_fuse" tests/stuck_fuse.c $(pkg-config --cflags --libs fuse3) 2>"$TMP/err"; then
    touch "$TMP/fuse.release" # answered while submit hashes it
    "$TMP/stuck_fuse" "$TMP/mnt" "$TMP/fsrc/hung.wtns" 64 "$TMP/fuse.release" 2>>"$TMP/fuse.log" &
    FUSEPID=$!
    PIDS="$PIDS $FUSEPID"
    poll_until 30 test -e "$TMP/mnt/hung.wtns" && cmp -s "$TMP/mnt/hung.wtns" "$FIX/nopub.wtns" && FUSE_OK=1
fi
for h in A B C; do eval "kill -STOP \$FLEETD_$h"; done
JF=$("$BIN" submit --db "$ALICE" --key nopub --witness "$TMP/w/fifo.wtns" 2>"$TMP/err")
rm -f "$TMP/w/fifo.wtns"
mkfifo "$TMP/w/fifo.wtns"
if [ $FUSE_OK = 1 ]; then
    JH=$("$BIN" submit --db "$ALICE" --key nopub --witness "$TMP/mnt/hung.wtns" 2>"$TMP/err")
    rm -f "$TMP/fuse.release" # from now on its reads hang
fi
# shellcheck disable=SC2046
JBOB=$("$BIN" submit --db "$BOB" --key nopub $(witnesses nopub 2) 2>"$TMP/err")
for h in A B C; do eval "kill -CONT \$FLEETD_$h"; done
"$BIN" wait --db "$ALICE" "$JF" 2>"$TMP/err"
rc=$?
check "a witness replaced by a FIFO after submit fails its job at once, naming it (exit $rc: $(cat "$TMP/err"))" \
    grep -q "fifo.wtns: not a regular file (a FIFO)" "$TMP/err"
if [ $FUSE_OK = 1 ]; then
    hung_leased() { [ "$(q "SELECT count(*) FROM fleet_partitions WHERE job_id = '$JH' AND state = 'leased'")" = 1 ]; }
    check "the hung file's partition is leased (a fleetd's reader thread waits on it)" poll_until 60 hung_leased
    t_hung=$(date +%s)
    if "$BIN" wait --db "$BOB" --proof "$TMP/jb.proof" --public "$TMP/jb.public" "$JBOB" 2>"$TMP/err"; then
        ok "bob's job completes while alice's witness hangs"
        VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/jb.proof $TMP/jb.public"
    else bad "bob's job beside the hung witness: $(cat "$TMP/err")"; fi
    # heartbeats go on: every host's last_seen moves past the moment the read hung
    fresh() { [ "$(q "SELECT count(*) FROM fleet_hosts WHERE last_seen > to_timestamp($t_hung + 2)")" = 3 ]; }
    check "all three fleetds heartbeat while a reader is stuck" poll_until 60 fresh
    "$BIN" wait --db "$ALICE" "$JH" 2>"$TMP/err"
    rc=$?
    check "the hung witness fails its job after the 30 s default, naming it (exit $rc: $(cat "$TMP/err"))" \
        grep -q "hung.wtns: reading the witness did not finish within 30 s" "$TMP/err"
    touch "$TMP/fuse.release" # the stuck reader returns and goes
    one=$("$BIN" submit --db "$BOB" --key nopub --witness "$TMP/w/nopub-1.wtns" --wait \
        --proof "$TMP/jb2.proof" --public "$TMP/jb2.public" 2>"$TMP/err")
    check "after it, a new job is claimed and proved ($one)" [ -n "$one" ]
    JBOB="$JBOB $one"
    [ -n "$one" ] && VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/jb2.proof $TMP/jb2.public"
    kill "$FUSEPID" 2>/dev/null
    fusermount3 -u "$TMP/mnt" 2>/dev/null || umount -l "$TMP/mnt" 2>/dev/null
else
    echo "skip - a hung witness: cannot mount a FUSE filesystem here: $(head -3 "$TMP/err" "$TMP/fuse.log" 2>/dev/null)"
    "$BIN" wait --db "$BOB" --proof "$TMP/jb.proof" --public "$TMP/jb.public" "$JBOB" 2>"$TMP/err" &&
        VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/jb.proof $TMP/jb.public"
fi
for h in A B C; do eval "check \"fleetd $h is alive after the FIFO and the hung file\" kill -0 \$FLEETD_$h"; done

# ---- 7. row-level security ----------------------------------------------------------
"$BIN" wait --db "$BOB" "$J0" 2>"$TMP/err"
check "bob cannot see alice's job" grep -q "no such job" "$TMP/err"
"$BIN" cancel --db "$BOB" "$J3" >/dev/null 2>"$TMP/err"
rc=$?
check "bob cannot cancel alice's job (exit $rc)" [ $rc = 1 ]
JB=$("$BIN" submit --db "$BOB" --key ghost --witness "$TMP/w/nopub-1.wtns" 2>"$TMP/err")
bq() { psql -X -q -t -A "$BOB" -c "$1" 2>&1; }
mine=$(echo $JBOB $JB | tr ' ' '\n' | sort | tr '\n' ',' | sed 's/,$//')
check "bob's SELECT sees only his own jobs" [ "$(bq "SELECT string_agg(job_id, ',' ORDER BY job_id) FROM fleet_jobs")" = "$mine" ]
check "bob's UPDATE of alice's jobs touches nothing" \
    [ "$(psql -X -q -t -A "$BOB" -c "UPDATE fleet_jobs SET state = 'cancelled' WHERE job_id = '$J0' RETURNING 1" 2>&1)" = "" ]
denied() { bq "$1" | grep -q "permission denied"; }
check "bob cannot register a host" denied "INSERT INTO fleet_hosts (host_id) VALUES ('evil')"
check "bob cannot write a result" denied "SELECT fleet_deliver('$J0', 0, 1, 'A', 'done', '{}', '[]', NULL)"
check "bob cannot claim work" denied "SELECT * FROM fleet_claim('A', 1, 2, 1000)"
# A foreign key is checked without row-level security, so the policy on the
# insert path must check the job (sql/003_client_rows.sql). The hosts are
# stopped meanwhile so alice's job waits in the queue.
for h in A B C; do eval "kill -STOP \$FLEETD_$h"; done
# shellcheck disable=SC2046
JX=$("$BIN" submit --db "$ALICE" --key nopub $(witnesses nopub 2) 2>"$TMP/err") || bad "submit JX: $(cat "$TMP/err")"
aq() { psql -X -q -t -A "$ALICE" -c "$1" 2>&1; }
# part JOB IDX: a partition whose witness no host can read (it would fail the job)
part() { echo "INSERT INTO fleet_partitions (job_id, idx, witness_path, witness_size, witness_sha256)
                VALUES ('$1', $2, '$TMP/w/none.wtns', 0, repeat('0', 64)) RETURNING idx"; }
rls() { grep -q "new row violates row-level security policy"; }
out=$(bq "$(part "$JX" 2)")
check "bob cannot add a partition to alice's job ($out)" rls <<<"$out"
out=$(bq "$(part "$JX" 0)")
check "bob's INSERT at an index alice's job has is refused alike, not by the primary key ($out)" \
    rls <<<"$out"
out=$(aq "$(part "$JX" 2)")
check "alice cannot add a partition past her job's 2 ($out)" rls <<<"$out"
out=$(aq "$(part "$JX" 0)")
check "alice cannot add a second partition 0 ($out)" grep -q "duplicate key value" <<<"$out"
check "alice's job has its 2 partitions, hers" \
    [ "$(q "SELECT count(*) || ' ' || bool_and(owner = 'alice') FROM fleet_partitions WHERE job_id = '$JX'")" = "2 true" ]
JZ=$(printf '%032x' 36)
out=$(bq "INSERT INTO fleet_jobs (job_id, key_name, nparts, created_at) VALUES ('$JZ', 'nopub', 1, '2000-01-01')")
check "bob cannot date a job back to jump the queue ($out)" grep -q "permission denied" <<<"$out"
out=$(bq "INSERT INTO fleet_partitions (job_id, idx, witness_path, witness_size, witness_sha256, state,
          done_by, done_at, proof) VALUES ('$JB', 1, '/x', 0, repeat('0', 64), 'done', 'A', now(), '{}')")
check "bob cannot insert a partition done by host A ($out)" grep -q "permission denied" <<<"$out"
out=$(bq "UPDATE fleet_partitions SET state = 'leased', lease_host = 'A', lease_token = 1,
          lease_expires = 'infinity' WHERE job_id = '$JB' RETURNING idx")
check "bob cannot put a lease of host A on his own partition ($out)" rls <<<"$out"
check "nothing of bob's job $JB names host A" \
    [ "$(q "SELECT count(*) FROM fleet_partitions WHERE job_id = '$JB' AND 'A' IN (lease_host, done_by)")" = 0 ]
for h in A B C; do eval "kill -CONT \$FLEETD_$h"; done
if timeout 90 "$BIN" wait --db "$ALICE" --proof "$TMP/jx.proof" --public "$TMP/jx.public" "$JX" 2>"$TMP/err"; then
    ok "alice's job done as submitted"
    VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/jx.proof $TMP/jx.public"
else bad "JX: $(cat "$TMP/err")"; fi
"$BIN" cancel --db "$BOB" "$JB" >/dev/null 2>&1

# Other users' strings in status --db: a key name (alice's), a host id and a
# note (a host's) with a newline and an ESC sequence.
EVIL=$(printf 'ev\n  key forged queued 99  leased 0  hosts holding it 1\033[2Jil')
JE=$("$BIN" submit --db "$ALICE" --key "$EVIL" --witness "$TMP/w/nopub-0.wtns" 2>"$TMP/err") ||
    bad "submit with a key name of control bytes: $(cat "$TMP/err")"
q "INSERT INTO fleet_hosts (host_id, note) VALUES (E'h\nforged', E'n\x1b[2Jote')"
"$BIN" status --db "$BOB" >"$TMP/status" 2>&1
check "status --db shows no ESC byte of others" [ "$(tr -cd '\033' <"$TMP/status" | wc -c)" = 0 ]
check "status --db: no line forged by a key name or host id" \
    [ "$(grep -c '^  key forged\|^forged' "$TMP/status")" = 0 ]
check "status --db shows them escaped" grep -qF \
    'key ev\n  key forged queued 99  leased 0  hosts holding it 1\x1b[2Jil' "$TMP/status"
check "status --db shows the host id and its note escaped" \
    [ "$(grep -cF -e 'h\nforged' -e 'n\x1b[2Jote' "$TMP/status")" = 2 ]
"$BIN" status --db "$BOB" --json >"$TMP/status.json" 2>&1
out="$(tr -cd '\033' <"$TMP/status.json" | wc -c) $(EVIL="$EVIL" python3 -c 'import json, os, sys
print(sum(q["key_name"] == os.environ["EVIL"] for q in json.load(open(sys.argv[1]))["queue"]))' \
    "$TMP/status.json" 2>&1)"
check "status --db --json: no ESC byte (ESC bytes, keys named as submitted: $out)" [ "$out" = "0 1" ]
q "DELETE FROM fleet_hosts WHERE host_id = E'h\nforged'"
"$BIN" cancel --db "$ALICE" "$JE" >/dev/null 2>&1

# ---- 8. invariants -------------------------------------------------------------------
kill "$SAMPLER" 2>/dev/null
check "every partition of a done job is done, with a proof" [ "$(q "SELECT count(*) FROM fleet_partitions p
    JOIN fleet_jobs j USING (job_id) WHERE j.state = 'done' AND (p.state <> 'done' OR p.proof IS NULL)")" = 0 ]
check "each done partition's result was written exactly once" [ "$(q "SELECT count(*) FROM fleet_partitions p
    WHERE p.state = 'done' AND (SELECT count(*) FROM fleet_lease_log l WHERE l.job_id = p.job_id
    AND l.idx = p.idx AND l.outcome = 'done') <> 1")" = 0 ]
check "no lease wrote a result for a partition that is not done" [ "$(q "SELECT count(*) FROM fleet_lease_log l
    JOIN fleet_partitions p USING (job_id, idx) WHERE l.outcome = 'done' AND p.state <> 'done'")" = 0 ]
check "attempts within the limit" [ "$(q "SELECT count(*) FROM fleet_partitions p JOIN fleet_jobs j
    USING (job_id) WHERE p.attempts > j.max_attempts")" = 0 ]
check "no claim left a host above its slots ($(q "SELECT count(*) FROM fleet_lease_log") leases)" \
    [ "$(q "SELECT count(*) FROM fleet_lease_log WHERE host_leases > host_slots")" = 0 ]
check "no sample saw a host above its slots ($(wc -l <"$TMP/samples") samples)" \
    [ ! -s "$TMP/over-slots" ] || [ -z "$(tr -d '\n' <"$TMP/over-slots")" ]
# shellcheck disable=SC2086
if node tests/fleet_verify.mjs $VERIFY >"$TMP/verify" 2>&1; then ok "snarkjs: $(tail -1 "$TMP/verify")"
else bad "snarkjs: $(cat "$TMP/verify")"; fi

# ---- 9. a database of schema version 2 ---------------------------------------------
# made as `fleet init` made it before sql/003 (fleet_meta, then 001 and 002
# in one transaction), no host attached: there bob can still add a partition
# to alice's job and forge a lease; fleet init upgrades it, removes that row
# (alice's job, then all done, is done), queues the lease and closes the hole.
V2="host=$PGD dbname=fleet_v2"
q "CREATE DATABASE fleet_v2"
psql -X -q -1 -v ON_ERROR_STOP=1 "$V2 user=postgres" -c "CREATE TABLE fleet_meta (
    one boolean PRIMARY KEY DEFAULT true CHECK (one), schema_version integer NOT NULL);
    INSERT INTO fleet_meta VALUES (true, 2)" -f run/fleet/sql/001_init.sql \
    -f run/fleet/sql/002_round_trips.sql >"$TMP/v2.log" 2>&1 || bad "a version-2 database: $(cat "$TMP/v2.log")"
JO=$("$BIN" submit --db "$V2 user=alice" --key nopub --witness "$TMP/w/nopub-0.wtns" 2>"$TMP/err") ||
    bad "submit to the version-2 database: $(cat "$TMP/err")"
v2q() { psql -X -q -t -A "$V2 user=$1" -c "$2" 2>&1; }
out=$(v2q bob "$(part "$JO" 1)")
check "version 2 lets bob add a partition to alice's job (what version 3 closes: $out)" [ "$out" = 1 ]
# alice's own partition proved (as a host would write it): only bob's keeps her job queued
v2q postgres "UPDATE fleet_partitions SET state = 'done', proof = '{}', public = '[]'
              WHERE job_id = '$JO' AND idx = 0" >/dev/null
JL=$("$BIN" submit --db "$V2 user=bob" --key nopub --witness "$TMP/w/nopub-1.wtns" 2>"$TMP/err") ||
    bad "submit to the version-2 database: $(cat "$TMP/err")"
out=$(v2q bob "UPDATE fleet_partitions SET state = 'leased', lease_host = 'A', lease_token = 1,
               lease_expires = 'infinity' WHERE job_id = '$JL' RETURNING idx")
check "version 2 lets bob forge a lease of host A ($out)" [ "$out" = 0 ]
out=$("$BIN" fleet init --db "$V2 user=postgres" 2>&1)
check "fleet init upgrades a version-2 database ($out)" [ "$out" = "fleet schema version $SCHEMA (was 2)" ]
check "the upgrade removed bob's partition of alice's job" \
    [ "$(v2q postgres "SELECT string_agg(idx || ' ' || owner, ',') FROM fleet_partitions WHERE job_id = '$JO'")" = "0 alice" ]
check "alice's job, every partition of hers done, is done" \
    [ "$(v2q postgres "SELECT state FROM fleet_jobs WHERE job_id = '$JO'")" = "done" ]
check "bob's forged lease went back to the queue" \
    [ "$(v2q postgres "SELECT state || ' ' || coalesce(lease_host, '-') FROM fleet_partitions WHERE job_id = '$JL'")" = "queued -" ]
out=$(v2q bob "$(part "$JO" 1)")
check "after the upgrade bob's INSERT is refused ($out)" rls <<<"$out"

for h in A B C; do eval "kill -TERM \$FLEETD_$h; wait \$FLEETD_$h"; done
check "SIGTERM: the fleetds left no leases and took their slots back" [ "$(q "SELECT count(*) FROM fleet_hosts
    WHERE slots > 0") $(q "SELECT count(*) FROM fleet_partitions WHERE state = 'leased'")" = "0 0" ]
for h in A B C; do eval "kill -TERM \$SERVE_$h; wait \$SERVE_$h 2>/dev/null"; done

echo "fleet: $pass passed, $fail failed"
if [ $fail -gt 0 ]; then
    for h in A B C; do echo "--- $h/fleetd.log (tail)"; tail -15 "$TMP/$h/fleetd.log"; done
    exit 1
fi
