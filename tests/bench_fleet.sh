#!/bin/bash
# bench_fleet.sh — the fleet's load figure (run/fleet/README.md): N
# partitions (default 1000, FLEET_BENCH_PARTS) of the bn128 nopub fixture,
# as jobs of 50 witnesses, through (a) one serve alone over its socket,
# (b) one serve + fleetd host and (c) three hosts, all on this machine,
# each serve with --slots 2 --threads 1 --synth 1 on the CPU backend and
# production lease timers. Prints per configuration: wall time, proofs/s,
# PostgreSQL's CPU time and its share of the machine (CPU s / (cores ×
# wall)), and the time the fleetds spent waiting on the database. Every
# proof is verified by snarkjs at the end. Not part of `make test`.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=$PWD/build/slotprove
FIX=$PWD/tests/fixtures/bn128
N=${FLEET_BENCH_PARTS:-1000}
JOB=50
LEASE=60000
FLEETD_OPTS="--poll-ms 2000"
ok() { :; }
bad() { echo "bench_fleet: $1" >&2; }
. tests/fleet_lib.sh
"$BIN" fleet init --db "$ADMIN" >/dev/null || exit 1
make_roles || exit 1
mkdir -p "$TMP/w" "$TMP/out"
for i in $(seq 0 $((JOB - 1))); do cp "$FIX/nopub.wtns" "$TMP/w/n-$i.wtns"; done
WIT=""
for i in $(seq 0 $((JOB - 1))); do WIT="$WIT --witness $TMP/w/n-$i.wtns"; done
NJOBS=$(((N + JOB - 1) / JOB))
CORES=$(nproc)

pg_cpu_ticks() { # utime + stime of the postmaster and its children
    pm=$(head -1 "$PGD/data/postmaster.pid")
    for p in $pm $(ps -o pid= --ppid "$pm"); do
        awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null
    done | awk '{ s += $1 } END { print s + 0 }'
}
VERIFY=""
TABLE=""
# run TAG NAME MODE HOSTS...: MODE socket (serve alone) or db
run() {
    tag=$1 name=$2 mode=$3; shift 3
    for h in "$@"; do start_serve "$h" nopub; done
    if [ "$mode" = db ]; then
        q "DELETE FROM fleet_jobs; DELETE FROM fleet_lease_log; DELETE FROM fleet_hosts" >/dev/null
        for h in "$@"; do start_fleetd "$h"; done
        for _ in $(seq 100); do
            [ "$(q "SELECT count(*) FROM fleet_host_keys")" = $# ] && break; sleep 0.1
        done
    fi
    c0=$(pg_cpu_ticks)
    t0=$(date +%s%N)
    ids=""
    for _ in $(seq 1 $NJOBS); do
        # shellcheck disable=SC2086
        if [ "$mode" = db ]; then id=$("$BIN" submit --db "$ALICE" --key nopub $WIT)
        else id=$("$BIN" submit --socket "$TMP/$1/s.sock" --key nopub $WIT); fi
        ids="$ids $id"
    done
    k=0
    for id in $ids; do
        if [ "$mode" = db ]; then
            "$BIN" wait --db "$ALICE" --proof "$TMP/out/$tag-$k.p" --public "$TMP/out/$tag-$k.q" "$id"
        else
            "$BIN" wait --socket "$TMP/$1/s.sock" --proof "$TMP/out/$tag-$k.p" --public "$TMP/out/$tag-$k.q" "$id"
        fi || bad "$tag: job $id did not finish"
        VERIFY="$VERIFY $FIX/nopub.vk.json $TMP/out/$tag-$k.p $TMP/out/$tag-$k.q"
        k=$((k + 1))
    done
    t1=$(date +%s%N)
    c1=$(pg_cpu_ticks)
    wall=$(awk "BEGIN { print ($t1 - $t0) / 1e9 }")
    pgs=$(awk "BEGIN { print ($c1 - $c0) / $(getconf CLK_TCK) }")
    dbwait="-"
    if [ "$mode" = db ]; then
        for h in "$@"; do eval "kill -TERM \$FLEETD_$h; wait \$FLEETD_$h"; done
        dbwait=$(cat "$TMP"/*/fleetd.log | sed -n 's/.*stopped:.*; \([0-9]*\) statements, \([0-9.]*\) s waiting on the database in \([0-9.]*\) s/\1 \2 \3/p' |
                 awk '{ n += $1; w += $2; t += $3 } END { printf "%d statements, %.2f s of %.1f fleetd-s (%.1f%%)", n, w, t, 100 * w / t }')
        rm -f "$TMP"/*/fleetd.log
    fi
    for h in "$@"; do eval "kill -TERM \$SERVE_$h; wait \$SERVE_$h 2>/dev/null"; done
    parts=$((NJOBS * JOB))
    line=$(printf "%-22s %5d partitions  %7.1f s  %6.2f proofs/s  postgres CPU %5.2f s (%4.1f%% of %d cores)  fleetd DB wait: %s" \
        "$name" $parts "$wall" "$(awk "BEGIN { print $parts / $wall }")" "$pgs" \
        "$(awk "BEGIN { print 100 * $pgs / ($CORES * $wall) }")" "$CORES" "$dbwait")
    echo "$line"
    TABLE="$TABLE$line
"
}
echo "bench_fleet: $(date -u +%F) $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $CORES cores; $NJOBS jobs of $JOB nopub partitions"
run alone "serve alone (socket)" socket S
run one "one host (fleet)" db A
run three "three hosts (fleet)" db A B C
# shellcheck disable=SC2086
node tests/fleet_verify.mjs $VERIFY | tail -1
