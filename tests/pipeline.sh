#!/bin/sh
# The pipeline figures that `make bench-pipeline` reads, checked against each
# other: serve --trace-times's TIMES lines (one per proved partition) and
# status's "pipeline" counters (sums of the same reports), with 2 synthds
# sharing 1 slot so that one must wait for it.
# - one TIMES line per partition, each partition once;
# - prover_busy_ns = Σ (prove_ns + verify_ns) of the lines, synth_ns and
#   synth_cpu_ns and slot_wait_ns likewise, synth_rows = partitions × the
#   fixture's domainSize (512, tests/fixtures/README.md, from snarkjs);
# - each partition's latency (synthd start to proof, on the supervisor's
#   clock) covers its slot wait, synthesis and proving, which follow each
#   other and are timed by synthd and gpud;
# - a synthd waited for the one slot; a lone partition finds it free;
# - CPU time is counted (> 0) for every synthesis.
set -u
cd "$(dirname "$0")/.."
BIN=build/slotprove
FIX=tests/fixtures/bn128
DOMAIN=512 # nopub's domainSize
N=6
SUITE=pipeline
. tests/lib.sh
SP=
suite_cleanup() { [ -n "$SP" ] && kill "$SP" 2>/dev/null; }

$BIN serve --socket "$TMP/s.sock" --synth 2 --slots 1 --trace-times --key k="$FIX/nopub.zkey" \
    2>"$TMP/log" &
SP=$!
i=0
until [ -S "$TMP/s.sock" ]; do
    i=$((i + 1))
    [ $i -lt 300 ] || { bad "serve did not start: $(tail -3 "$TMP/log")"; exit 1; }
    sleep 0.1
done
st() { $BIN status --socket "$TMP/s.sock" --json | jq -r "$1"; }
check "status before any job: pipeline counters all 0" \
    [ "$(st '[.pipeline | to_entries[] | select(.key != "now_ns") | .value] | add')" = 0 ]
set --
for i in $(seq $N); do set -- "$@" --witness "$FIX/nopub.wtns"; done
if timeout 120 $BIN submit --socket "$TMP/s.sock" --key k "$@" --proof "$TMP/p.json" \
    --public "$TMP/q.json" --wait >/dev/null 2>"$TMP/err"; then ok "$N partitions proved"
else bad "submit: $(cat "$TMP/err")"; fi
$BIN status --socket "$TMP/s.sock" --json >"$TMP/status.json"
p() { jq -r ".pipeline.$1" "$TMP/status.json"; }
grep ' event=times ' "$TMP/log" >"$TMP/times"
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$TMP/times"; }
sum() { field "$1" | awk '{ s += $1 } END { printf "%d\n", s }'; }

check "one TIMES line per partition ($(wc -l <"$TMP/times") lines)" [ "$(wc -l <"$TMP/times")" -eq $N ]
check "each partition 0..$((N - 1)) once" [ "$(field part | sort -n | uniq | tr '\n' ' ')" = "$(seq 0 $((N - 1)) | tr '\n' ' ')" ]
check "every line has rows=$DOMAIN" [ "$(field rows | sort -u)" = $DOMAIN ]
busy=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "prove_ns" || kv[1] == "verify_ns") s += kv[2] } } END { printf "%d\n", s }' "$TMP/times")
check "prover_busy_ns $(p prover_busy_ns) = sum of the lines' prove + verify $busy" [ "$(p prover_busy_ns)" = "$busy" ]
check "synth_partitions $(p synth_partitions) = $N" [ "$(p synth_partitions)" = $N ]
check "synth_rows $(p synth_rows) = $N x $DOMAIN" [ "$(p synth_rows)" = $((N * DOMAIN)) ]
check "synth_ns = sum of the lines' synth_ns" [ "$(p synth_ns)" = "$(sum synth_ns)" ]
check "synth_cpu_ns = sum of the lines' synth_cpu_ns" [ "$(p synth_cpu_ns)" = "$(sum synth_cpu_ns)" ]
check "slot_wait_ns = sum of the lines' slot_wait_ns" [ "$(p slot_wait_ns)" = "$(sum slot_wait_ns)" ]
check "every synthesis counted some CPU time" [ "$(field synth_cpu_ns | awk '$1 == 0 { n++ } END { print n + 0 }')" = 0 ]
check "a synthd waited for the one slot (longest wait $(p slot_wait_max_ns) ns)" [ "$(p slot_wait_max_ns)" -gt 0 ]
check "the longest wait is the largest line's" [ "$(p slot_wait_max_ns)" = "$(field slot_wait_ns | sort -n | tail -1)" ]
nshort=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    if (v["latency_ns"] < v["slot_wait_ns"] + v["synth_ns"] + v["prove_ns"] + v["verify_ns"]) n++ }
    END { print n + 0 }' "$TMP/times")
check "latency covers slot wait + synthesis + proving on every line ($nshort short)" [ "$nshort" = 0 ]
check "queue wait counted: partitions waited for a synthd (longest $(p queue_wait_max_ns) ns)" \
    [ "$(p queue_wait_max_ns)" -gt 0 ]

# one partition with both synthds idle and the slot free: no slot wait
timeout 60 $BIN submit --socket "$TMP/s.sock" --key k --witness "$FIX/nopub.wtns" --proof "$TMP/p1.json" \
    --public "$TMP/q1.json" --wait >/dev/null 2>&1
$BIN status --socket "$TMP/s.sock" --json >"$TMP/status.json"
last=$(grep ' event=times ' "$TMP/log" | tail -1 | sed -n 's/.* slot_wait_ns=\([0-9]*\).*/\1/p')
# (50 ms: a claim is one compare-and-swap, the rest is room for a preempted CI box)
check "a lone partition waits under 50 ms for the free slot ($last ns)" [ "${last:-1000000000}" -lt 50000000 ]

kill -TERM "$SP"
wait "$SP"
SP=
finish
