#!/usr/bin/env python3
"""service_metrics.py BIN SOCK PORT FIX: scrapes slotprove's /metrics during
load and checks it with prometheus_client's text parser against `status`.

Load: 10 jobs of 4 partitions submitted at once (slotprove submit --wait),
and 3 that fail on their input (a witness of another circuit); while they
run, a hostile client holds half a request open and 20 idle connections sit
on the metrics port, and a scraper parses the page every 0.2 s. Afterwards
(quiet: scraped with status until they agree, 30 s at most) the counters
must equal status's; the failures by
cause the count of failed submits; the proof-duration histogram status's
proofs and prover busy time; the uptime the supervisor's age from /proc;
slotprove_build_info `slotprove --version`'s; and no cuzk_* series (serve
runs without --metrics-cuzk-aliases). service_cuzk.py checks those.
Prints one "ok"/"FAIL" line per check; exit 1 on any FAIL."""
import json, os, socket, subprocess, sys, time, urllib.request
import metrics_check

BIN, SOCK, PORT, FIX = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
check, value = metrics_check.check, metrics_check.value

def scrape():
    return metrics_check.scrape(PORT)

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
# failing jobs: a witness of another circuit (its header does not match the key)
bad_jobs = [subprocess.Popen([BIN, "submit", "--socket", SOCK, "--zkey", FIX + "/bn128/chain.zkey",
                              "--witness", FIX + "/bn128/allpub.wtns", "--wait", "--proof", "/dev/null",
                              "--public", "/dev/null"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(3)]
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
bad_failed = sum(j.wait() != 0 for j in bad_jobs)
for s in idle:
    s.close()
check(all(rc == 0 for rc in rcs), "10 jobs of 4 partitions proved while scraped (exit codes %s)" % rcs)
check(not parse_errors, "%d scrapes during load parsed by prometheus_client (errors: %s)"
      % (scrapes, parse_errors[:2]))
check(during == sorted(during), "slotprove_proofs_total never goes down between scrapes")
check(st_during is not None, "status answered during load with a half-sent request and 20 idle "
      "connections held on the metrics port")


def pairs(fams, st):
    """(name, the page's value, status's value) for every figure both show."""
    c = st["counters"]
    out = [
        ("slotprove_proofs_total", value(fams, "slotprove_proofs_total"), c["proofs"]),
        ("slotprove_jobs_ended_total{done}",
         value(fams, "slotprove_jobs_ended_total", state="done"), c["jobs_done"]),
        ("slotprove_child_deaths_total{synthd}",
         value(fams, "slotprove_child_deaths_total", role="synthd"), c["synthd_deaths"]),
        ("slotprove_child_deaths_total{gpud}",
         value(fams, "slotprove_child_deaths_total", role="gpud"), c["gpud_deaths"]),
        ("slotprove_rss_kills_total", value(fams, "slotprove_rss_kills_total"), c["rss_kills"]),
        ("slotprove_stall_kills_total", value(fams, "slotprove_stall_kills_total"), c["stall_kills"]),
        ("slotprove_queue_partitions", value(fams, "slotprove_queue_partitions"),
         st["jobs"]["partitions_queued"]),
        ("slotprove_job_latency_seconds_count",
         value(fams, "slotprove_job_latency_seconds_count"), c["jobs_done"]),
    ]
    for k in st["slots"]:
        if isinstance(st["slots"][k], dict):
            out.append(("slotprove_slots{state=%s}" % k, value(fams, "slotprove_slots", state=k),
                        st["slots"][k]["count"]))
    for cause, n in c["jobs_failed_by_cause"].items():
        out.append(("slotprove_jobs_failed_total{cause=%s}" % cause,
                    value(fams, "slotprove_jobs_failed_total", cause=cause), n))
    return out


# the page is redrawn every METRICS_EVERY_MS: scrape and ask status until
# they agree, the proof time included, with nothing taken (30 s deadline),
# then check the last pair
deadline = time.time() + 30
while True:
    ctype, fams = scrape()
    st = status()
    busy = st["pipeline"]["prover_busy_ns"] / 1e9
    if (all(m == s for _, m, s in pairs(fams, st)) and
            abs(value(fams, "slotprove_proof_duration_seconds_sum") - busy) <= 1e-6 * max(busy, 1) and
            value(fams, "slotprove_partitions", state="taken") == 0) or time.time() > deadline:
        break
    time.sleep(0.1)
check(ctype.startswith("text/plain; version=0.0.4"), "Content-Type %r" % ctype)
c = st["counters"]
for k, m, s in pairs(fams, st):
    check(m == s, "%s = %s, status says %s" % (k, m, s))
check(c["proofs"] >= 40, "at least the 40 partitions counted (%d)" % c["proofs"])
slots = sum(value(fams, "slotprove_slots", state=k) for k in st["slots"]
            if isinstance(st["slots"][k], dict))
check(slots == st["slots"]["total"], "slotprove_slots by state sum to the pool's %d slots (%s)"
      % (st["slots"]["total"], slots))
check(bad_failed == 3, "the 3 jobs with another circuit's witness failed (%d)" % bad_failed)
by = c["jobs_failed_by_cause"]
check(by.get("input") == bad_failed and sum(by.values()) == c["jobs_failed"],
      "failures by cause: input %s = the %d failed submits; the causes sum to jobs_failed %s"
      % (by.get("input"), bad_failed, c["jobs_failed"]))
busy_s = st["pipeline"]["prover_busy_ns"] / 1e9
pcount = value(fams, "slotprove_proof_duration_seconds_count")
psum = value(fams, "slotprove_proof_duration_seconds_sum")
check(pcount == c["proofs"] and abs(psum - busy_s) <= 1e-6 * max(busy_s, 1),
      "proof-duration histogram: count %s = proofs %s, sum %.6f s = status prover_busy_ns %.6f s"
      % (pcount, c["proofs"], psum, busy_s))
check(value(fams, "slotprove_proof_duration_seconds_bucket", le="+Inf") == pcount,
      "its +Inf bucket agrees")
gpuds = [p for p in st["processes"] if p["role"] == "gpud" and p.get("state") != "stuck"]
gsum = 0.0
for g in gpuds:
    gb = value(fams, "slotprove_gpud_busy_seconds_total", index=str(g["index"]))
    gsum += gb
    check(abs(gb - g["busy_ns"] / 1e9) <= 1e-9 * max(gb, 1),
          "gpud %d busy %.6f s = status busy_ns" % (g["index"], gb))
    for kind in ("budget", "held"):
        name = "slotprove_gpud_device_memory_%s_bytes" % kind
        if "device_memory" in g:
            check(value(fams, name, index=str(g["index"])) == g["device_memory"][kind + "_bytes"],
                  "%s{index=%d} = status's" % (name, g["index"]))
        else:  # a CPU gpud has no device memory: no series
            try:
                value(fams, name, index=str(g["index"]))
                check(False, "%s{index=%d} present, status has no device memory" % (name, g["index"]))
            except KeyError:
                check(True, "%s{index=%d} absent, as status has no device memory (%s)"
                      % (name, g["index"], g.get("backend", "")[:40]))
check(abs(gsum - busy_s) <= 1e-6 * max(busy_s, 1), "per-gpud busy seconds sum to prover_busy_ns")
check(value(fams, "slotprove_gpuds") == len(gpuds), "slotprove_gpuds = %d gpuds" % len(gpuds))
cuzk = sorted(n for n in fams if n.startswith("cuzk_"))
check(not cuzk, "no cuzk_* series without --metrics-cuzk-aliases (%s)" % cuzk)
ver = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.split()
info = [s for s in fams["slotprove_build_info"].samples]
check(len(ver) == 4 and len(info) == 1 and info[0].value == 1 and
      info[0].labels == {"version": ver[1], "commit": ver[3].rstrip(")")},
      "slotprove_build_info %s = 1, as `slotprove --version` says (%s)" % (info[0].labels if info else None, " ".join(ver)))
sup = [p for p in st["processes"] if p["role"] == "supervisor"][0]
with open("/proc/%d/stat" % sup["pid"]) as f:
    start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
with open("/proc/uptime") as f:
    age = float(f.read().split()[0]) - start_ticks / os.sysconf("SC_CLK_TCK")
up = value(fams, "slotprove_uptime_seconds")
check(up == int(up) and 0 < up <= age + 0.5,
      "uptime %s s, whole seconds, within the supervisor's age from /proc %.2f s" % (up, age))
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
sys.exit(1 if metrics_check.fails else 0)
