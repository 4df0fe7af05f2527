#!/usr/bin/env python3
"""service_slowloris.py PORT SECONDS: slow and silent connections against
serve's --metrics endpoint on 127.0.0.1:PORT while a scraper scrapes it
(issue 36 item 5). Prints one "ok"/"FAIL" line per check and "#" figures;
exit 1 on any FAIL.

1. Deadline: one connection sends a request header one byte every 0.25 s
   (the header would take 100 s). The server must close it before the
   header is complete: bytes must not reset its deadline. Waited for up to
   60 s (the documented deadline is 5 s from accept).
2. Slowloris: 100 connections, each sending one byte of a request header
   every second and opening a new connection when the server closes one,
   for SECONDS; meanwhile a scraper (its own process: the attacker runs in
   a child process, so neither waits on the other's interpreter) scrapes
   every 0.5 s with a 10 s timeout. Every scrape must succeed and parse
   with prometheus_client, and the server must have closed at least 84
   of the attacker's connections (it keeps 16).
3. The same with 100 connections that connect and send nothing.

The attacker is this file run as `service_slowloris.py --attack MODE PORT
N SECONDS`: at most N connections open at once, and it stops by itself
after SECONDS, closing them all; the parent also kills it 30 s past that."""
import os, socket, subprocess, sys, time, urllib.request
from prometheus_client.parser import text_string_to_metric_families

# never complete: a request line, then header lines that go on
HEADER = (b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
          b"".join(b"X-Slow-%d: %s\r\n" % (i, b"a" * 20) for i in range(100)))


def connect(port):
    """A connection to the endpoint, in blocking mode (a socket with a
    timeout would make recv(MSG_DONTWAIT) wait)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.settimeout(None)
    return s


def closed_by_peer(s):
    """True when the server closed s (EOF or reset); never blocks."""
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) == b""  # data: a response, also an end
    except BlockingIOError:
        return False
    except OSError:
        return True


def attack(mode, port, n, seconds):
    """N connections that each act once a second, for SECONDS: 'slow' sends
    the next byte of HEADER, 'silent' sends nothing; a connection the
    server closed is replaced by a new one. Prints the counts."""
    end = time.monotonic() + seconds
    conns = [None] * n
    sent = [0] * n
    due = [time.monotonic() + i / n for i in range(n)]  # spread over the first second
    opened = closed = refused = 0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        i = min(range(n), key=due.__getitem__)
        if due[i] > now:
            time.sleep(min(due[i], end) - now)
            continue
        due[i] += 1.0
        s = conns[i]
        if s is not None and closed_by_peer(s):
            s.close()
            s = conns[i] = None
            closed += 1
        if s is None:
            try:
                s = connect(port)
            except OSError:
                refused += 1
                continue
            conns[i], sent[i] = s, 0
            opened += 1
        if mode == "slow":
            try:
                s.send(HEADER[sent[i] % len(HEADER):][:1])
                sent[i] += 1
            except OSError:
                pass  # counted as closed on its next turn
    still = sum(c is not None and not closed_by_peer(c) for c in conns)
    for c in conns:
        if c is not None:
            c.close()
    print("opened %d closed_by_server %d connect_failed %d open_at_end %d" % (opened, closed, refused, still))


if sys.argv[1] == "--attack":
    attack(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    sys.exit(0)

PORT, SECONDS = int(sys.argv[1]), float(sys.argv[2])
URL = "http://127.0.0.1:%d/metrics" % PORT
fails = 0


def check(ok, msg):
    global fails
    print(("ok   - " if ok else "FAIL - ") + msg, flush=True)
    fails += 0 if ok else 1


def scrape():
    """One scrape: the page parsed by prometheus_client; its uptime."""
    with urllib.request.urlopen(URL, timeout=10) as r:
        text = r.read().decode()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    return fams["slotprove_uptime_seconds"].samples[0].value


# 1. a slow header alone: closed by the server although bytes keep coming
s = connect(PORT)
t0 = time.monotonic()
n, gone = 0, False
while n < len(HEADER) and time.monotonic() - t0 < 60:
    if closed_by_peer(s):
        gone = True
        break
    try:
        s.send(HEADER[n:n + 1])
        n += 1
    except OSError:
        gone = True
        break
    time.sleep(0.25)
held = time.monotonic() - t0
s.close()
check(gone and n < len(HEADER), "a connection sending a header byte every 0.25 s is closed by the "
      "server before its header is complete (after %d of %d bytes, %.1f s): bytes do not reset "
      "its deadline" % (n, len(HEADER), held))

# 2 and 3: a scraper during each attack
for mode, what in (("slow", "100 connections sending one header byte a second"),
                   ("silent", "100 connections that send nothing")):
    att = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--attack", mode, str(PORT),
                            "100", str(SECONDS)], stdout=subprocess.PIPE, text=True)
    time.sleep(1.5)  # every attacker connection is open (they open within the first second)
    good, errors, slowest = 0, [], 0.0
    while att.poll() is None:
        t = time.monotonic()
        try:
            up = scrape()
            good += 1 if up > 0 else 0
        except Exception as e:  # a timeout, a refused or reset connection, a parse error
            errors.append(repr(e)[:120])
        slowest = max(slowest, time.monotonic() - t)
        time.sleep(0.5)
    try:
        out, _ = att.communicate(timeout=SECONDS + 30)
    except subprocess.TimeoutExpired:
        att.kill()
        out, _ = att.communicate()
    print("# %s: attacker %s; scrapes %d good, %d failed, slowest %.2f s"
          % (mode, out.strip(), good, len(errors), slowest), flush=True)
    check(good >= 5 and not errors, "%s for %.0f s: all %d scrapes during the attack succeeded and "
          "parsed (failed: %d %s)" % (what, SECONDS, good + len(errors), len(errors), errors[:2]))
    counts = dict(zip(out.split()[::2], out.split()[1::2]))
    closed = int(counts.get("closed_by_server", 0))
    check(closed >= 100 - 16, "%s: the server closed %d attacker connections (of 100 open at once "
          "at least 84 must go: it keeps 16)" % (mode, closed))
    try:
        scrape()
        check(True, "%s: a scrape after the attack succeeds" % mode)
    except Exception as e:
        check(False, "%s: a scrape after the attack (%r)" % (mode, e))
sys.exit(1 if fails else 0)
