# shellcheck shell=bash
# fleet_lib.sh — sourced by tests/fleet.sh and tests/bench_fleet.sh: a
# PostgreSQL started in a temporary directory (unix socket only, as user
# postgres when run as root), the test roles, and helpers to
# start serve + fleetd pairs on the CPU backend with the bn128 fixtures.
# Needs BIN, FIX, LEASE, ok/bad (FLEETD_OPTS: fleetd's timers); sets TMP, PGD, PGBIN, ADMIN, HOSTDB, ALICE,
# BOB, PIDS and an EXIT trap that stops everything started here.
PGBIN=$(pg_config --bindir 2>/dev/null)
[ -x "$PGBIN/initdb" ] || PGBIN=/usr/lib/postgresql/15/bin
if [ ! -x "$PGBIN/initdb" ]; then
    echo "FAIL - no PostgreSQL server (initdb) found: make deps installs postgresql-15"
    exit 1
fi
TMP=$(mktemp -d /tmp/slotprove-fleet.XXXXXX)
chmod 755 "$TMP"
PGD=$TMP/pg
mkdir -p "$PGD"
if [ "$(id -u)" = 0 ]; then
    chown postgres "$PGD"
    as_pg() { runuser -u postgres -- "$@"; }
else
    as_pg() { "$@"; }
fi
PIDS=""
cleanup() {
    for p in $PIDS; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
    as_pg "$PGBIN/pg_ctl" -D "$PGD/data" stop -m immediate >/dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT

pg_start() { as_pg "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w \
    -o "-k $PGD -c listen_addresses='' -c fsync=off -c max_connections=50" start >/dev/null; }
as_pg "$PGBIN/initdb" -D "$PGD/data" -A trust -U postgres --no-sync >"$TMP/initdb.log" 2>&1 ||
    { bad "initdb"; cat "$TMP/initdb.log"; exit 1; }
pg_start || { bad "postgres did not start"; cat "$PGD/log"; exit 1; }
ADMIN="host=$PGD dbname=postgres user=postgres"
HOSTDB="host=$PGD dbname=postgres user=fleet_host"
# shellcheck disable=SC2034 # used by the sourcing scripts
ALICE="host=$PGD dbname=postgres user=alice"
# shellcheck disable=SC2034
BOB="host=$PGD dbname=postgres user=bob"
q() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$ADMIN" -c "$1" 2>/dev/null; }
make_roles() {
    q "CREATE ROLE fleet_host LOGIN IN ROLE slotprove_host;
       CREATE ROLE alice LOGIN IN ROLE slotprove_client; CREATE ROLE bob LOGIN IN ROLE slotprove_client"
}

# start_serve X KEYS...: serve on $TMP/X/s.sock (CPU, 2 slots, 1 thread);
# with NOWAIT=1 it returns at once (then wait_serve X)
start_serve() {
    h=$1; shift
    mkdir -p "$TMP/$h" && chmod 700 "$TMP/$h"
    args=""
    for k in "$@"; do args="$args --key $k=$FIX/$k.zkey"; done
    # in production the database has a machine of its own; here it shares
    # two cores with six proving threads, so the provers yield to it
    # shellcheck disable=SC2086
    nice -n 10 "$BIN" serve --socket "$TMP/$h/s.sock" --backend cpu --synth 1 --slots 2 --threads 1 $args \
        2>>"$TMP/$h/serve.log" &
    eval "SERVE_$h=$!"
    PIDS="$PIDS $!"
    [ "${NOWAIT:-}" = 1 ] || wait_serve "$h"
}
# wait_serve X: until serve X answers status (60 s: a loaded box)
wait_serve() {
    h=$1
    for _ in $(seq 600); do
        "$BIN" status --socket "$TMP/$h/s.sock" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    bad "serve $h did not come up"; cat "$TMP/$h/serve.log"
}
start_fleetd() {
    h=$1
    # shellcheck disable=SC2086
    "$BIN" fleetd --db "$HOSTDB" --socket "$TMP/$h/s.sock" --host-id "$h" --lease-ms $LEASE \
        ${FLEETD_OPTS:---heartbeat-ms 300 --poll-ms 500 --reap-ms 400 --backoff-max-ms 1000} \
        2>>"$TMP/$h/fleetd.log" &
    eval "FLEETD_$h=$!"
    PIDS="$PIDS $!"
}
