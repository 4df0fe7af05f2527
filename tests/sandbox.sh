#!/bin/sh
# The witness-program sandbox (make test-sandbox; part of make test):
# hostile programs of the tests' own (tests/witness/hostile_program.c), each
# carried by a job (`submit --zkey K --program P --input I`) to a daemon at
# its defaults, beside a good job: each hostile job fails with what it
# managed named, the good job's proof verifies with snarkjs, no synthd or
# gpud is restarted, and nothing a hostile program started is left running.
#   setsid + fork   a daemonized grandchild: gone with its job
#   fork bomb       stopped by the box's process limit (64)
#   forked hog      8 children of 96 MiB under --witness-mem 256M: the tree
#                   is killed past the limit, naming it
#   file filler     /tmp fills at 64 MiB; /, /w and /usr are read-only
#   snoop           sees only its own box's 2 processes; opens none of
#                   /proc/PID/{mem,environ,fd/N} of serve, synthd, gpud
#                   (the slot pool's memfds), nor the daemon's socket or
#                   another job's witness file
# Then the refusal where the system lacks the namespaces (a user namespace
# whose user.max_user_namespaces is 0): serve with --witness-program and
# fullprove refuse to start, naming the feature; serve without one starts
# and refuses input jobs with the same reason.
set -u
cd "$(dirname "$0")/.." || exit 1
SUITE=sandbox
. tests/lib.sh
BIN=$ROOT/build/slotprove
FIX=$ROOT/tests/fixtures/bn128
KEY=$FIX/chain.zkey
CIN=$ROOT/tests/fixtures/circuits/chain.input.json
SNARKJS=$ROOT/tests/node_modules/.bin/snarkjs
SERVE_PID=""
suite_cleanup() {
    [ -n "$SERVE_PID" ] && kill -TERM "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
    pkill -KILL -x sp-hostile 2>/dev/null
}

H=$TMP/hostile
cc -O2 -o "$H" tests/witness/hostile_program.c 2>"$TMP/err" || { bad "cannot build tests/witness/hostile_program.c"; finish; }
# the good program: tests/witness/fault_program.c, writing the fixture's witness
G=$TMP/replay
cc -O2 -o "$G" tests/witness/fault_program.c 2>"$TMP/err" || { bad "cannot build tests/witness/fault_program.c"; finish; }
cp "$FIX/chain.wtns" "$G.dat"
for k in setsid bomb hog filler snoop; do
    cp "$H" "$H-$k"
    cp "$FIX/chain.wtns" "$H-$k.dat" # circom's .dat must be beside a native program
done

D=$TMP/d
mkdir -m 700 "$D"
SOCK=$D/s.sock
"$BIN" serve --socket "$SOCK" --witness-mem 256M --key chain="$KEY" \
    --witness-program chain="$G" 2>"$D/log" &
SERVE_PID=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$SOCK" ] || { bad "serve did not come up" "$D/log"; finish; }
kids_before=$(pgrep -P "$SERVE_PID" | sort | tr '\n' ' ')
sub() { "$BIN" submit --socket "$SOCK" "$@" 2>"$TMP/err"; }
# fails ID WANT(grep -E) WHAT: the job failed with a message matching WANT
fails() {
    if "$BIN" wait --socket "$SOCK" --proof "$D/x.json" --public "$D/xq.json" "$1" 2>"$TMP/err"; then
        bad "$3: the job succeeded"
    elif grep -Eq -- "$2" "$TMP/err"; then ok "$3: $(cat "$TMP/err")"
    else bad "$3: failed without '$2'"; fi
}
survivors() { pgrep -x sp-hostile | tr '\n' ' '; }
none_left() { [ -z "$(survivors)" ]; }
# poll SECONDS CMD...: until CMD succeeds or the deadline passes
poll() { _end=$(($(date +%s) + $1)); shift; while ! "$@"; do [ "$(date +%s)" -ge "$_end" ] && return 1; sleep 0.1; done; }

none_left || bad "sp-hostile processes before the test: $(survivors)"
# the good job, and a snoop whose targets are the daemon's processes and files
targets=$(echo "$SERVE_PID $(pgrep -P "$SERVE_PID" | tr '\n' ' ')" | tr -s ' ')
printf '{"pids": "%s", "paths": "%s %s %s /etc/passwd"}\n' "$targets" "$SOCK" "$FIX/chain.wtns" "$D/log" >"$TMP/snoop.json"
good=$(sub --key chain --input "$CIN")
setsid=$(sub --zkey "$KEY" --program "$H-setsid" --input "$CIN")
bomb=$(sub --zkey "$KEY" --program "$H-bomb" --input "$CIN")
hog=$(sub --zkey "$KEY" --program "$H-hog" --input "$CIN")
filler=$(sub --zkey "$KEY" --program "$H-filler" --input "$CIN")
snoop=$(sub --zkey "$KEY" --program "$H-snoop" --input "$TMP/snoop.json")

if "$BIN" wait --socket "$SOCK" --proof "$D/good.json" --public "$D/goodq.json" "$good" 2>"$TMP/err" &&
    "$SNARKJS" groth16 verify "$FIX/chain.vk.json" "$D/goodq.json" "$D/good.json" 2>&1 | grep -q 'OK!'; then
    ok "the good job beside them is proved; snarkjs verifies it"
else bad "the good job beside the hostile ones failed or does not verify"; fi

fails "$setsid" "hostile: left a daemonized child behind \(exit 1\)" "setsid + fork"
check "setsid + fork: its daemonized grandchild is gone with the job (left: $(survivors))" poll 10 none_left
fails "$bomb" "hostile: forked [0-9]+ before fork failed" "fork bomb"
n=$(sed -n 's/.*hostile: forked \([0-9]*\) before.*/\1/p' "$TMP/err")
check "fork bomb: at most 64 processes in its box (it forked ${n:-?})" [ "${n:-999}" -lt 64 ]
check "fork bomb: none of its processes is left ($(survivors))" poll 10 none_left
fails "$hog" "the witness program failed \(past its memory limit of 0.25 GiB: it and the processes it started held [0-9.]+ GiB\)" "forked memory hog"
check "forked memory hog: none of its processes is left ($(survivors))" poll 10 none_left
fills_before=$(find "${TMPDIR:-/tmp}" -maxdepth 3 -name 'fill-*' 2>/dev/null | wc -l)
fails "$filler" "hostile: wrote [0-9]+ KiB to /tmp \(then: No space left on device\); /fill: (Read-only file system|Permission denied) /w/fill: (Read-only file system|Permission denied) /usr/fill: (Read-only file system|Permission denied)" "file filler"
kib=$(sed -n 's/.*hostile: wrote \([0-9]*\) KiB.*/\1/p' "$TMP/err")
check "file filler: its /tmp held at most 64 MiB (${kib:-?} KiB)" [ "${kib:-99999999}" -le 65536 ]
check "file filler: nothing of it on the host's /tmp" [ "$(find "${TMPDIR:-/tmp}" -maxdepth 3 -name 'fill-*' 2>/dev/null | wc -l)" = "$fills_before" ]
fails "$snoop" "hostile: saw 2 processes; opened: none \(exit 1\)" "snoop of /proc/PID/{mem,environ,fd} of serve ($targets), the socket, another job's witness"

kids_after=$(pgrep -P "$SERVE_PID" | sort | tr '\n' ' ')
check "no synthd or gpud restarted by the hostile programs ($kids_before)" [ "$kids_before" = "$kids_after" ]
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
rc=$?
SERVE_PID=""
check "serve drains and exits 0 ($rc)" [ $rc = 0 ]

# ---- where the system does not allow the box ---------------------------------
# user.max_user_namespaces is per user namespace: 0 in one made for the test
if unshare -Ur true 2>/dev/null; then
    cat >"$TMP/nobox.sh" <<EOF
echo 0 >/proc/sys/user/max_user_namespaces || exit 9
"$BIN" fullprove "$CIN" "$G" "$KEY" "$TMP/np.json" "$TMP/nq.json" 2>"$TMP/nobox.fullprove"
echo \$? >"$TMP/nobox.fullprove.rc"
timeout 60 "$BIN" serve --socket "$TMP/nb/s.sock" --key chain="$KEY" \
    --witness-program chain="$G" 2>"$TMP/nobox.serve"
echo \$? >"$TMP/nobox.serve.rc"
"$BIN" serve --socket "$TMP/nb/s2.sock" --key chain="$KEY" 2>"$TMP/nobox.serve2" &
p=\$!
i=0
while [ ! -S "$TMP/nb/s2.sock" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
"$BIN" submit --socket "$TMP/nb/s2.sock" --key chain --input "$CIN" 2>"$TMP/nobox.submit"
echo \$? >"$TMP/nobox.submit.rc"
"$BIN" submit --socket "$TMP/nb/s2.sock" --key chain --witness "$FIX/chain.wtns" --wait \
    --proof "$TMP/nw.json" --public "$TMP/nwq.json" 2>"$TMP/nobox.witness"
echo \$? >"$TMP/nobox.witness.rc"
kill -TERM \$p
wait \$p
EOF
    mkdir -m 700 "$TMP/nb"
    unshare -Ur sh "$TMP/nobox.sh" >/dev/null
    want="witness programs need unprivileged user, PID and mount namespaces"
    check "no namespaces: fullprove refuses, naming the feature (exit $(cat "$TMP/nobox.fullprove.rc"): $(cat "$TMP/nobox.fullprove"))" \
        eval '[ "$(cat "$TMP/nobox.fullprove.rc")" = 1 ] && grep -q "$want" "$TMP/nobox.fullprove" && [ ! -e "$TMP/np.json" ]'
    check "no namespaces: serve --witness-program refuses to start (exit $(cat "$TMP/nobox.serve.rc"): $(tail -1 "$TMP/nobox.serve"))" \
        eval '[ "$(cat "$TMP/nobox.serve.rc")" = 1 ] && grep -q "$want" "$TMP/nobox.serve"'
    check "no namespaces: serve without one refuses input jobs ($(cat "$TMP/nobox.submit"))" \
        eval '[ "$(cat "$TMP/nobox.submit.rc")" = 1 ] && grep -q "input jobs are refused on this host: $want" "$TMP/nobox.submit"'
    check "no namespaces: ... and proves witness jobs ($(cat "$TMP/nobox.witness.rc"))" \
        eval '[ "$(cat "$TMP/nobox.witness.rc")" = 0 ] && "$SNARKJS" groth16 verify "$FIX/chain.vk.json" "$TMP/nwq.json" "$TMP/nw.json" 2>&1 | grep -q "OK!"'
else
    skipped "no user namespace to turn namespaces off in (unshare -Ur failed): the refusal is not checked"
fi
finish
