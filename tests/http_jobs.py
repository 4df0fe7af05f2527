#!/usr/bin/env python3
"""http_jobs.py PORT TOKEN DIR SECONDS: for each DIR/N.post (the answer of
a POST /jobs, whose input had x0 = N), polls GET /jobs/ID until the job is
no longer "busy" (at most SECONDS in all), writes DIR/N.proof.json and
DIR/N.public.json, and checks that the job succeeded and that its public
signals carry its own x0 (public[1] == N: each answer went to its own
request). Prints "ok"/"FAIL" lines; exit 1 on any FAIL."""
import json, os, sys, time, urllib.request

port, token, d, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
jobs = {}
bad = 0
for f in sorted(os.listdir(d)):
    if not f.endswith(".post"):
        continue
    n = f[:-5]
    try:
        jobs[n] = json.load(open(os.path.join(d, f)))["id"]
    except (ValueError, KeyError) as e:
        print("FAIL - request %s: POST /jobs answered %r" % (n, open(os.path.join(d, f)).read()[:200]))
        bad += 1
end = time.monotonic() + seconds
left = dict(jobs)
while left and time.monotonic() < end:
    for n, jid in list(left.items()):
        req = urllib.request.Request("http://127.0.0.1:%d/jobs/%s" % (port, jid),
                                     headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(req, timeout=30) as r:
            st = json.load(r)
        if st["status"] == "busy":
            continue
        del left[n]
        if st["status"] != "success":
            print("FAIL - job %s (x0 = %s): %s" % (jid, n, json.dumps(st)[:300]))
            bad += 1
            continue
        if st["public"][1] != n:
            print("FAIL - job %s: public %r, but its input had x0 = %s" % (jid, st["public"], n))
            bad += 1
        json.dump(st["proof"], open(os.path.join(d, n + ".proof.json"), "w"))
        json.dump(st["public"], open(os.path.join(d, n + ".public.json"), "w"))
    time.sleep(0.2)
for n in left:
    print("FAIL - job %s (x0 = %s) still busy after %.0f s" % (left[n], n, seconds))
    bad += 1
print("# %d jobs, %d ended, %d failures" % (len(jobs), len(jobs) - len(left), bad))
sys.exit(1 if bad or not jobs else 0)
