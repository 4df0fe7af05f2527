#!/usr/bin/env python3
"""service_sd.py BIN DIR FIX: slotprove serve under systemd-socket-activate
with a NOTIFY_SOCKET listener here (the sd_notify protocol: one datagram of
KEY=VALUE lines per notification).

Checks: nothing is started before the first connection; READY=1 arrives,
and at that moment status shows every synthd and gpud up; STATUS= lines;
WATCHDOG=1 pings (WATCHDOG_USEC=1 s); a job through the activated socket
proves; SIGTERM gives STOPPING=1, exit 0, and the socket file stays.
Prints "ok"/"FAIL" lines; exit 1 on any FAIL."""
import json, os, signal, socket, subprocess, sys, time

BIN, DIR, FIX = sys.argv[1:4]
SOCK = os.path.join(DIR, "act.sock")
NOTIFY = os.path.join(DIR, "notify.sock")
fails = 0

def check(ok, msg):
    global fails
    print(("ok   - " if ok else "FAIL - ") + msg, flush=True)
    fails += 0 if ok else 1

n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
n.bind(NOTIFY)
n.settimeout(60)
msgs = []

def wait_for(key, limit=60):
    """datagrams until one holds a line starting with key; True if seen"""
    end = time.time() + limit
    for m in msgs:
        if any(l.startswith(key) for l in m):
            return True
    while time.time() < end:
        try:
            m = n.recv(4096).decode().split("\n")
        except socket.timeout:
            return False
        msgs.append(m)
        if any(l.startswith(key) for l in m):
            return True
    return False

def status():
    r = subprocess.run([BIN, "status", "--socket", SOCK, "--json"], capture_output=True, text=True,
                       timeout=120)
    d = json.loads(r.stdout)
    return d.get("status", d)

act = subprocess.Popen(["systemd-socket-activate", "-l", SOCK, "-E", "NOTIFY_SOCKET=" + NOTIFY,
                        "-E", "WATCHDOG_USEC=1000000", "-E", "PATH", BIN, "serve", "--slot-bytes",
                        "8M", "--synth", "1"], stderr=open(os.path.join(DIR, "log"), "w"))
deadline = time.time() + 30
while not os.path.exists(SOCK) and time.time() < deadline:
    time.sleep(0.05)
check(os.path.exists(SOCK), "systemd-socket-activate listens on the socket")
n.settimeout(0.5)
try:
    early = n.recv(4096)
except socket.timeout:
    early = None
check(early is None, "no notification before the first connection (nothing started)")
n.settimeout(60)
# the first client starts the daemon; its request waits in the backlog
first = status()
check(any(p["role"] == "supervisor" for p in first["processes"]),
      "the first connection starts the daemon, which answers it")
check(wait_for("READY=1"), "READY=1 sent")
ready = [m for m in msgs if "READY=1" in m][0]
st = status()
kids = [p for p in st["processes"] if p["role"] != "supervisor"]
check(all(p["pid"] and p["state"] in ("idle", "busy") for p in kids) and len(kids) == 2,
      "after READY=1 status shows 1 synthd and 1 gpud up (hello said)")
check(any(l.startswith("STATUS=ready") for l in ready), "READY=1 comes with STATUS=ready: %s" % ready)
sup = [p for p in st["processes"] if p["role"] == "supervisor"][0]["pid"]
pings = 0
end = time.time() + 60
while pings < 2 and time.time() < end:
    m = n.recv(4096).decode().split("\n")
    msgs.append(m)
    pings += "WATCHDOG=1" in m
check(pings >= 2, "WATCHDOG=1 pings with WATCHDOG_USEC=1000000 (%d seen)" % pings)
w = FIX + "/bn128/chain.wtns"
r = subprocess.run([BIN, "submit", "--socket", SOCK, "--zkey", FIX + "/bn128/chain.zkey",
                    "--witness", w, "--wait", "--proof", os.path.join(DIR, "p.json"),
                    "--public", os.path.join(DIR, "pub.json")], capture_output=True, text=True,
                   timeout=300)
check(r.returncode == 0, "a job through the activated socket is proved (%s)" % r.stderr.strip())
check(wait_for("STATUS=0 jobs running", 10) or wait_for("STATUS=", 10),
      "STATUS= lines while serving")
os.kill(sup, signal.SIGTERM)
check(wait_for("STOPPING=1"), "SIGTERM: STOPPING=1 sent")
rc = act.wait(timeout=120)
check(rc == 0, "the daemon exited 0 (%d)" % rc)
check(os.path.exists(SOCK), "the activated socket's file is left for systemd")
print("# notifications: " + " | ".join(";".join(l for l in m if l) for m in msgs[:6]))
sys.exit(1 if fails else 0)
