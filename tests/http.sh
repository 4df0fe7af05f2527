#!/bin/sh
# serve --http (make test-http; part of make test; issue 39 item 7): real
# curl against a real `slotprove serve` on 127.0.0.1 at a free port, with
# the bundled chain circuit's native witness program (circom --c, compiled
# as tests/witness.sh compiles it, into the same cache):
#   - rapidsnark proverServer's own request sequence (its tools/request.js:
#     POST /input/CIRCUIT with the input, then GET /status while "busy")
#     gives a proof and public signals that `snarkjs groth16 verify` accepts;
#   - a missing and a wrong bearer token get 401 and start nothing; serve
#     refuses to start without a token off loopback, and a token file
#     others can read;
#   - a body of exactly the limit (16 MiB) is proved, one byte more is 413;
#   - slow clients: a header and a body trickled byte by byte are closed at
#     their deadline; during 300 slow and silent connections a proof is
#     still served over HTTP and `slotprove status` still answers;
#   - an input that makes the witness program abort fails its own job with
#     the program's message; a good one sent beside it is proved;
#   - 200 concurrent POST /jobs, each with its own x0: every job succeeds,
#     its public signals carry its own x0, and snarkjs verifies all 200;
#     behind them, POST /cancel and POST /jobs/ID/cancel end queued jobs as
#     "aborted"; an unknown job or circuit is 404.
cd "$(dirname "$0")/.."
SUITE=http
. tests/lib.sh
BIN=$ROOT/build/slotprove
SNARKJS=$ROOT/tests/node_modules/.bin/snarkjs
CIRCOM=$ROOT/tests/node_modules/.bin/circom2
FIX=$ROOT/tests/fixtures
D=$ROOT/build/witness-programs/bn128
PROG=$D/chain_cpp/chain
VK=$FIX/bn128/chain.vk.json
SERVE_PID=""
suite_cleanup() { [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null; }

# the chain circuit's programs, as tests/witness.sh makes them (same cache)
if ! { [ -x "$PROG" ] && cmp -s "$FIX/circuits/chain.circom" "$D/chain.circom" &&
       [ -f "$D/chain_js/chain.wasm" ]; }; then
    rm -rf "$D/chain_cpp" "$D/chain_js" "$D/chain.circom"
    mkdir -p "$D"
    if nice "$CIRCOM" "$FIX/circuits/chain.circom" --c --wasm --O1 -p bn128 -l tests/node_modules \
           -o "$D" >"$TMP/err" 2>&1 && nice make -C "$D/chain_cpp" -j2 >"$TMP/err" 2>&1; then
        cp "$FIX/circuits/chain.circom" "$D/chain.circom"
    else
        bad "building the chain circuit's native witness program failed"; finish
    fi
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$TMP/token"
chmod 600 "$TMP/token"
TOKEN=$(cat "$TMP/token")
AUTH="Authorization: Bearer $TOKEN"
"$BIN" serve --socket "$TMP/d/s.sock" --key chain="$FIX/bn128/chain.zkey" \
    --witness-program chain="$PROG" --http "127.0.0.1:$PORT" --http-token-file "$TMP/token" \
    2>"$TMP/serve.log" &
SERVE_PID=$!
up() { [ "$(curl -s -o /dev/null -w '%{http_code}' -H "$AUTH" "$URL/status")" = 200 ]; }
if ! poll 120 up; then
    bad "serve --http did not come up" "$TMP/serve.log"; finish
fi
ok "serve --http 127.0.0.1:$PORT --http-token-file answers GET /status"

# ---- proverServer's request sequence (tools/request.js) ---------------------
code=$(curl -s -o "$TMP/input.out" -w '%{http_code}' -X POST -H 'Accept: application/json' \
    -H 'Content-Type: application/json' -H "$AUTH" --data-binary @"$FIX/circuits/chain.input.json" \
    "$URL/input/chain")
[ "$code" = 200 ] && ok "POST /input/chain: 200" || bad "POST /input/chain: $code" "$TMP/input.out"
not_busy() { curl -s -H 'Accept: application/json' -H "$AUTH" "$URL/status" >"$TMP/status.json" &&
             ! grep -q '"status":"busy"' "$TMP/status.json"; }
poll 120 not_busy
# proverServer sends proof and pubData as JSON text inside strings
if python3 - "$TMP/status.json" "$TMP/p1" <<'EOF' 2>"$TMP/err"
import json, sys
st = json.load(open(sys.argv[1]))
assert st["status"] == "success", st
json.dump(json.loads(st["proof"]), open(sys.argv[2] + ".proof.json", "w"))
json.dump(json.loads(st["pubData"]), open(sys.argv[2] + ".public.json", "w"))
EOF
then ok "GET /status until not busy: {\"status\":\"success\"} with proof and pubData strings"
else bad "GET /status: $(head -c 300 "$TMP/status.json")"; fi
if "$SNARKJS" groth16 verify "$VK" "$TMP/p1.public.json" "$TMP/p1.proof.json" >"$TMP/err" 2>&1 &&
    grep -q 'OK!' "$TMP/err"; then ok "snarkjs groth16 verify accepts GET /status's proof"
else bad "snarkjs rejects GET /status's proof"; fi
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
    "$TMP/p1.public.json" "$FIX/bn128/chain.public.json" &&
    ok "its pubData equals snarkjs's public.json of the same input" || bad "pubData differs from the fixture's public.json"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$AUTH" "$URL/cancel")
curl -s -H "$AUTH" "$URL/status" >"$TMP/status2.json"
[ "$code" = 200 ] && grep -q '"status":"success"' "$TMP/status2.json" &&
    ok "POST /cancel after the proof: 200, and the proof stays" || bad "POST /cancel: $code, then $(cat "$TMP/status2.json")"

for r in "POST /start" "POST /stop" "GET /config" "POST /config"; do
    code=$(curl -s -o "$TMP/noop" -w '%{http_code}' -X "${r% *}" -H "$AUTH" "$URL${r#* }")
    [ "$code" = 200 ] && [ ! -s "$TMP/noop" ] || { bad "$r: $code"; continue; }
    ok "$r: 200, empty, as proverServer answers it"
done

# ---- the token ----------------------------------------------------------------
code=$(curl -s -o "$TMP/401" -w '%{http_code}' "$URL/status")
[ "$code" = 401 ] && grep -q 'Bearer' "$TMP/401" && ok "no token: 401 naming the bearer token" || bad "no token: $code" "$TMP/401"
code=$(curl -s -o "$TMP/401" -w '%{http_code}' -H "Authorization: Bearer x$TOKEN" "$URL/status")
[ "$code" = 401 ] && ok "a wrong token: 401" || bad "a wrong token: $code" "$TMP/401"
code=$(curl -s -o "$TMP/401" -w '%{http_code}' -X POST -H "Authorization: Bearer ${TOKEN%?}" \
    --data-binary @"$FIX/circuits/chain.input.json" "$URL/input/chain")
curl -s -H "$AUTH" "$URL/status" >"$TMP/status3.json"
[ "$code" = 401 ] && cmp -s "$TMP/status2.json" "$TMP/status3.json" &&
    ok "POST /input with a token one byte short: 401, and no proof started" ||
    bad "POST /input with a short token: $code, then $(head -c 200 "$TMP/status3.json")"
"$BIN" serve --socket "$TMP/d2/s.sock" --http "0.0.0.0:$(free_port)" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q 'http-token-file' "$TMP/err" && ok "--http 0.0.0.0 without a token: refused (exit 2), naming --http-token-file" ||
    bad "--http 0.0.0.0 without a token: exit $rc"
cp "$TMP/token" "$TMP/token.o"; chmod 604 "$TMP/token.o"
"$BIN" serve --socket "$TMP/d2/s.sock" --http "127.0.0.1:$(free_port)" --http-token-file "$TMP/token.o" \
    >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q 'token.o: mode 0604' "$TMP/err" && ok "a token file others can read: refused (exit 2), naming it and its mode" ||
    bad "a world-readable token file: exit $rc"

# ---- the body limit: 16 MiB --------------------------------------------------
LIMIT=16777216
python3 - "$FIX/circuits/chain.input.json" "$TMP/at" $LIMIT <<'EOF'
import sys
body = open(sys.argv[1], "rb").read().rstrip()
n = int(sys.argv[3])
open(sys.argv[2], "wb").write(body + b" " * (n - len(body)))        # valid JSON: spaces after it
open(sys.argv[2] + "1", "wb").write(body + b" " * (n + 1 - len(body)))
EOF
mkdir "$TMP/lim"
code=$(curl -s -o "$TMP/lim/1.post" -w '%{http_code}' -X POST -H "$AUTH" --data-binary @"$TMP/at" "$URL/jobs?circuit=chain")
[ "$code" = 202 ] && [ "$(stat -c %s "$TMP/at")" = $LIMIT ] && ok "a body of exactly $LIMIT bytes: 202" || bad "a $LIMIT-byte body: $code" "$TMP/lim/1.post"
# its x0 is 3: http_jobs.py expects public[1] == the file's name
mv "$TMP/lim/1.post" "$TMP/lim/3.post"
if python3 tests/http_jobs.py "$PORT" "$TOKEN" "$TMP/lim" 120 >"$TMP/err" 2>&1 &&
    "$SNARKJS" groth16 verify "$VK" "$TMP/lim/3.public.json" "$TMP/lim/3.proof.json" >"$TMP/err" 2>&1 &&
    grep -q 'OK!' "$TMP/err"; then ok "the $LIMIT-byte input is proved; snarkjs verifies it"
else bad "the $LIMIT-byte input's job"; fi
code=$(curl -s -o "$TMP/413" -w '%{http_code}' -X POST -H "$AUTH" --data-binary @"$TMP/at1" "$URL/jobs?circuit=chain")
[ "$code" = 413 ] && grep -q "$LIMIT bytes" "$TMP/413" && ok "a body of $LIMIT + 1 bytes: 413 naming the limit" || bad "a $LIMIT + 1-byte body: $code" "$TMP/413"
code=$(curl -s -o "$TMP/413" -w '%{http_code}' -X POST -H "$AUTH" -H 'Transfer-Encoding: chunked' \
    --data-binary @"$TMP/at1" "$URL/input/chain")
[ "$code" = 413 ] && ok "the same body chunked, without Content-Length: 413" || bad "a chunked $LIMIT + 1-byte body: $code" "$TMP/413"

# ---- slow clients -----------------------------------------------------------
timeout 300 python3 tests/http_slow.py deadline "$PORT" "$TOKEN" >"$TMP/slow" 2>&1; rc=$?
[ $rc = 0 ] && ok "slow clients closed at their deadline: $(grep -c '^ok' "$TMP/slow") of 2" || bad "slow clients (exit $rc)" "$TMP/slow"
timeout 300 python3 tests/http_slow.py attack "$PORT" 300 40 >"$TMP/attack" 2>&1 &
ATTACK=$!
poll 30 sh -c "[ \$(ss -Htn state established '( dport = :$PORT )' | wc -l) -ge 250 ]" ||
    note "the attack did not reach 250 connections within 30 s"
code=$(curl -s -o "$TMP/input.out" -w '%{http_code}' --max-time 30 -X POST -H "$AUTH" \
    --data-binary @"$FIX/circuits/chain.input.json" "$URL/input/chain")
poll 120 not_busy
grep -q '"status":"success"' "$TMP/status.json" && [ "$code" = 200 ] &&
    ok "during 300 slow and silent connections: POST /input and GET /status give a proof" ||
    bad "during the attack: POST /input $code, then $(head -c 200 "$TMP/status.json")"
"$BIN" status --socket "$TMP/d/s.sock" >"$TMP/err" 2>&1 && ok "during the attack: slotprove status answers" ||
    bad "slotprove status during the attack"
wait $ATTACK
note "$(cat "$TMP/attack")"

# ---- crash isolation: a witness program that aborts, beside a good input -----
mkdir "$TMP/iso"
curl -s -o "$TMP/iso/bad.post" -X POST -H "$AUTH" --data-binary '{"x0": "5"}' "$URL/jobs?circuit=chain" &
p1=$!
curl -s -o "$TMP/iso/5.post" -X POST -H "$AUTH" --data-binary '{"x0": "5", "k": "7"}' "$URL/jobs?circuit=chain" &
wait $p1 $!
bid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/iso/bad.post" 2>/dev/null)
mv "$TMP/iso/bad.post" "$TMP/bad.post"
bad_ended() { curl -s -H "$AUTH" "$URL/jobs/$bid" >"$TMP/iso.bad" && ! grep -q '"status":"busy"' "$TMP/iso.bad"; }
poll 120 bad_ended
grep -q '"status":"failed"' "$TMP/iso.bad" && grep -q 'Not all inputs have been set' "$TMP/iso.bad" &&
    grep -q 'killed by signal 6' "$TMP/iso.bad" &&
    ok "an input missing k: its job fails with the witness program's own message (it aborted)" ||
    bad "the aborting input's job: $(head -c 300 "$TMP/iso.bad")"
python3 tests/http_jobs.py "$PORT" "$TOKEN" "$TMP/iso" 120 >"$TMP/err" 2>&1 &&
    "$SNARKJS" groth16 verify "$VK" "$TMP/iso/5.public.json" "$TMP/iso/5.proof.json" >"$TMP/err" 2>&1 &&
    grep -q 'OK!' "$TMP/err" && ok "the good input sent beside it is proved; snarkjs verifies it" ||
    bad "the good input beside the aborting one"

# ---- 200 at once ------------------------------------------------------------
mkdir "$TMP/many"
pids=""
i=1
while [ $i -le 200 ]; do
    curl -s -o "$TMP/many/$i.post" -X POST -H "$AUTH" -H 'Content-Type: application/json' \
        --data-binary "{\"x0\": \"$i\", \"k\": \"7\"}" "$URL/jobs?circuit=chain" &
    pids="$pids $!"
    i=$((i + 1))
done
wait $pids
# behind those 200 (16 reach the daemon at a time), these wait in serve's
# table: cancels that end them as proverServer's "aborted"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$AUTH" --data-binary @"$FIX/circuits/chain.input.json" "$URL/input/chain")
curl -s -H "$AUTH" "$URL/status" >"$TMP/st.busy"
code2=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$AUTH" "$URL/cancel")
curl -s -H "$AUTH" "$URL/status" >"$TMP/st.aborted"
[ "$code $code2" = "200 200" ] && grep -q '"status":"busy"' "$TMP/st.busy" && grep -q '^{"status":"aborted"}$' "$TMP/st.aborted" &&
    ok "POST /input behind 200 jobs: GET /status says busy; POST /cancel: {\"status\":\"aborted\"}" ||
    bad "POST /input then /cancel: $code $code2, $(cat "$TMP/st.busy") then $(cat "$TMP/st.aborted")"
curl -s -X POST -H "$AUTH" --data-binary @"$FIX/circuits/chain.input.json" "$URL/jobs?circuit=chain" >"$TMP/last.post"
id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$TMP/last.post" 2>/dev/null)
curl -s -X POST -H "$AUTH" "$URL/jobs/$id/cancel" >"$TMP/last.cancel"
curl -s -H "$AUTH" "$URL/jobs/$id" >"$TMP/last.get"
grep -q '"status":"aborted"' "$TMP/last.cancel" && grep -q "\"id\":\"$id\",\"status\":\"aborted\"" "$TMP/last.get" &&
    ok "POST /jobs/ID/cancel of a queued job: aborted, and GET /jobs/ID says so" ||
    bad "POST /jobs/ID/cancel: $(cat "$TMP/last.cancel") then $(cat "$TMP/last.get")"
code=$(curl -s -o "$TMP/404" -w '%{http_code}' -H "$AUTH" "$URL/jobs/0123456789abcdef0123456789abcdef")
[ "$code" = 404 ] && ok "GET /jobs/ID of no job: 404" || bad "GET /jobs/unknown: $code" "$TMP/404"
code=$(curl -s -o "$TMP/404" -w '%{http_code}' -X POST -H "$AUTH" --data-binary @"$FIX/circuits/chain.input.json" "$URL/input/nochain")
[ "$code" = 404 ] && grep -qF 'no circuit \"nochain\"' "$TMP/404" && ok "POST /input/nochain: 404 naming the circuit" || bad "POST /input/nochain: $code" "$TMP/404"
if python3 tests/http_jobs.py "$PORT" "$TOKEN" "$TMP/many" 900 >"$TMP/err" 2>&1; then
    ok "200 concurrent POST /jobs: every job succeeded with its own x0 ($(tail -1 "$TMP/err"))"
else bad "200 concurrent POST /jobs"; fi
args=""
for f in "$TMP"/many/*.proof.json; do args="$args $VK $f ${f%.proof.json}.public.json"; done
if [ -n "$args" ] && node tests/fleet_verify.mjs $args >"$TMP/err" 2>&1 && grep -q '^verified 200,' "$TMP/err"; then
    ok "snarkjs verifies all 200 proofs ($(tail -1 "$TMP/err"))"
else bad "snarkjs on the 200 proofs"; fi

kill "$SERVE_PID"; wait "$SERVE_PID"; rc=$?; SERVE_PID=""
[ $rc = 0 ] && ok "serve with --http drains and exits 0 on SIGTERM" || bad "serve exit $rc" "$TMP/serve.log"
finish
