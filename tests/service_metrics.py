#!/usr/bin/env python3
"""service_metrics.py BIN SOCK PORT FIX: scrapes slotprove's /metrics during
load and checks it with prometheus_client's text parser against `status`.

Load: 10 jobs of 4 partitions submitted at once (slotprove submit --wait);
while they run, a hostile client holds half a request open and 20 idle
connections sit on the metrics port, and a scraper parses the page every
0.2 s. Afterwards (quiet, figures settled) the counters must equal status's.
Prints one "ok"/"FAIL" line per check; exit 1 on any FAIL."""
import json, socket, subprocess, sys, time, urllib.request
from prometheus_client.parser import text_string_to_metric_families

BIN, SOCK, PORT, FIX = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
URL = "http://127.0.0.1:%d/metrics" % PORT
fails = 0

def check(ok, msg):
    global fails
    print(("ok   - " if ok else "FAIL - ") + msg)
    fails += 0 if ok else 1

def scrape():
    with urllib.request.urlopen(URL, timeout=30) as r:
        ctype = r.headers.get("Content-Type", "")
        text = r.read().decode()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    return ctype, fams

def value(fams, name, **labels):
    for f in fams.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise KeyError(name)

def status():
    out = subprocess.run([BIN, "status", "--socket", SOCK, "--json"], capture_output=True,
                         text=True, timeout=60).stdout
    d = json.loads(out)
    return d.get("status", d)

# hostile clients on the metrics port: half a request, and idle connections
hostile = socket.create_connection(("127.0.0.1", PORT))
hostile.sendall(b"GET /metr")
idle = [socket.create_connection(("127.0.0.1", PORT)) for _ in range(20)]

w = FIX + "/bn128/chain.wtns"
jobs = [subprocess.Popen([BIN, "submit", "--socket", SOCK, "--zkey", FIX + "/bn128/chain.zkey",
                          "--witness", w, "--witness", w, "--witness", w, "--witness", w, "--wait", "--proof", "/dev/null",
                          "--public", "/dev/null"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE) for _ in range(10)]
scrapes, parse_errors, during = 0, [], []
st_during = None
while any(j.poll() is None for j in jobs):
    try:
        _, fams = scrape()
        scrapes += 1
        during.append(value(fams, "slotprove_proofs_total"))
    except Exception as e:  # a failed scrape or a parse error
        parse_errors.append(repr(e))
    if st_during is None:
        st_during = status()  # the supervisor answers while the hostile clients sit there
    time.sleep(0.2)
rcs = [j.wait() for j in jobs]
for s in idle:
    s.close()
check(all(rc == 0 for rc in rcs), "10 jobs of 4 partitions proved while scraped (exit codes %s)" % rcs)
check(not parse_errors, "%d scrapes during load parsed by prometheus_client (errors: %s)"
      % (scrapes, parse_errors[:2]))
check(during == sorted(during), "slotprove_proofs_total never goes down between scrapes")
check(st_during is not None, "status answered during load with a half-sent request and 20 idle "
      "connections held on the metrics port")
time.sleep(0.6)  # > METRICS_EVERY_MS: the page catches up
ctype, fams = scrape()
st = status()
check(ctype.startswith("text/plain; version=0.0.4"), "Content-Type %r" % ctype)
c = st["counters"]
got = {
    "slotprove_proofs_total": (value(fams, "slotprove_proofs_total"), c["proofs"]),
    "cuzk_proofs_completed_total": (value(fams, "cuzk_proofs_completed_total"), c["proofs"]),
    "slotprove_jobs_ended_total{done}": (value(fams, "slotprove_jobs_ended_total", state="done"),
                                         c["jobs_done"]),
    "slotprove_child_deaths_total{synthd}": (value(fams, "slotprove_child_deaths_total",
                                                   role="synthd"), c["synthd_deaths"]),
    "slotprove_child_deaths_total{gpud}": (value(fams, "slotprove_child_deaths_total", role="gpud"),
                                           c["gpud_deaths"]),
    "slotprove_rss_kills_total": (value(fams, "slotprove_rss_kills_total"), c["rss_kills"]),
    "slotprove_stall_kills_total": (value(fams, "slotprove_stall_kills_total"), c["stall_kills"]),
    "cuzk_queue_depth": (value(fams, "cuzk_queue_depth"), st["jobs"]["partitions_queued"]),
    "slotprove_job_latency_seconds_count": (value(fams, "slotprove_job_latency_seconds_count"),
                                            c["jobs_done"]),
}
for k, (m, s) in got.items():
    check(m == s, "%s = %s, status says %s" % (k, m, s))
check(c["proofs"] >= 40, "at least the 40 partitions counted (%d)" % c["proofs"])
slots = sum(value(fams, "slotprove_slots", state=k) for k in st["slots"]
            if isinstance(st["slots"][k], dict))
check(slots == st["slots"]["total"], "slotprove_slots by state sum to the pool's %d slots (%s)"
      % (st["slots"]["total"], slots))
for k in st["slots"]:
    if isinstance(st["slots"][k], dict):
        check(value(fams, "slotprove_slots", state=k) == st["slots"][k]["count"],
              "slotprove_slots{state=%s} = status's count" % k)
inf = value(fams, "slotprove_job_latency_seconds_bucket", le="+Inf")
check(inf == c["jobs_done"], "the latency histogram's +Inf bucket holds every done job")
check(value(fams, "slotprove_prove_seconds_total") > 0 and
      value(fams, "slotprove_synthesis_seconds_total") > 0, "prove and synthesis seconds counted")
for fam in ("slotprove_proofs_total", "slotprove_job_latency_seconds"):
    check(fam.replace("_total", "") in fams or fam in fams, "family %s present" % fam)
try:
    urllib.request.urlopen("http://127.0.0.1:%d/other" % PORT, timeout=30)
    check(False, "GET /other is 404")
except urllib.error.HTTPError as e:
    check(e.code == 404, "GET /other is 404 (%d)" % e.code)
hostile.close()
sys.exit(1 if fails else 0)
