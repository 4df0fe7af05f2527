#!/usr/bin/env python3
"""service_cuzk.py BIN SOCK PORT FIX: the cuzk_* series of
`serve --metrics-cuzk-aliases`, with cuzk's meanings (a cuzk request is a
slotprove job), parsed by prometheus_client.

serve runs with --slots 1 --synth 1 and SLOTPROVE_FAULT_DELAY_MS (gpud holds
each slot PROVING a while). One job of 3 partitions: on a page that shows 2
or more of its partitions in synthesis or proving, the job counts once in
cuzk_running_jobs and not in cuzk_queue_depth (counted in partitions, as
before, they would differ). Once it is done: cuzk_proofs_completed_total is 1 job (the page
counts 3 proofs), cuzk_proof_duration_seconds the job's latency (equal to
slotprove_job_latency_seconds), the uptime whole seconds.
Prints one "ok"/"FAIL" line per check; exit 1 on any FAIL."""
import json, subprocess, sys, time
import metrics_check

BIN, SOCK, PORT, FIX = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
check, value = metrics_check.check, metrics_check.value

def scrape():
    return metrics_check.scrape(PORT)[1]

def poll(seconds, cond):
    end = time.time() + seconds
    while time.time() < end:
        fams = scrape()
        if cond(fams):
            return fams
        time.sleep(0.05)
    return None

w = FIX + "/bn128/chain.wtns"
job = subprocess.Popen([BIN, "submit", "--socket", SOCK, "--zkey", FIX + "/bn128/chain.zkey",
                        "--witness", w, "--witness", w, "--witness", w, "--wait", "--proof", "/dev/null",
                        "--public", "/dev/null"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
started = lambda f: sum(value(f, "slotprove_partitions", state=s) for s in ("synth", "published", "taken"))
busy = poll(120, lambda f: started(f) >= 2)
if busy is None:
    check(False, "no page showed 2 partitions started within 120 s")
else:
    check(value(busy, "cuzk_running_jobs") == 1 and value(busy, "cuzk_queue_depth") == 0,
          "a page with %d partitions started (%d taken, %d queued): cuzk_running_jobs %s (1 job), "
          "cuzk_queue_depth %s (0)" % (started(busy), value(busy, "slotprove_partitions", state="taken"),
                                       value(busy, "slotprove_partitions", state="queued"),
                                       value(busy, "cuzk_running_jobs"), value(busy, "cuzk_queue_depth")))
check(job.wait() == 0, "the 3-partition job proved")
st = json.loads(subprocess.run([BIN, "status", "--socket", SOCK, "--json"], capture_output=True,
                               text=True, timeout=60).stdout)
st = st.get("status", st)
c = st["counters"]
quiet = poll(30, lambda f: value(f, "slotprove_proofs_total") == c["proofs"] and
             value(f, "cuzk_proofs_completed_total") == c["jobs_done"])
check(quiet is not None, "the page caught up with status (proofs %d, jobs_done %d)" % (c["proofs"], c["jobs_done"]))
f = quiet or scrape()
check(value(f, "cuzk_proofs_completed_total") == 1 == c["jobs_done"] and value(f, "slotprove_proofs_total") == 3,
      "cuzk_proofs_completed_total %s = jobs done, while slotprove_proofs_total is %s partitions"
      % (value(f, "cuzk_proofs_completed_total"), value(f, "slotprove_proofs_total")))
check(value(f, "cuzk_proofs_failed_total") == c["jobs_failed"] == 0, "cuzk_proofs_failed_total = jobs_failed (0)")
check(value(f, "cuzk_running_jobs") == 0 and value(f, "cuzk_queue_depth") == 0, "quiet: no job running or queued")
check(value(f, "cuzk_proof_duration_seconds_count") == value(f, "slotprove_job_latency_seconds_count") == 1 and
      value(f, "cuzk_proof_duration_seconds_sum") == value(f, "slotprove_job_latency_seconds_sum") > 0,
      "cuzk_proof_duration_seconds is the job's latency (%.3f s)" % value(f, "cuzk_proof_duration_seconds_sum"))
check(f["cuzk_proof_duration_seconds"].type == "summary", "cuzk_proof_duration_seconds is a summary, as cuzk's")
gpuds = [p for p in st["processes"] if p["role"] == "gpud"]
check(value(f, "cuzk_gpu_workers") == len(gpuds), "cuzk_gpu_workers = %d gpuds" % len(gpuds))
up = value(f, "cuzk_uptime_seconds")
check(up == int(up) == value(f, "slotprove_uptime_seconds"),
      "cuzk_uptime_seconds %s = slotprove_uptime_seconds, whole seconds" % up)
sys.exit(1 if metrics_check.fails else 0)
