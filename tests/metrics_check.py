"""metrics_check.py: what tests/service_metrics.py and tests/service_cuzk.py
share: ok/FAIL lines with a failure count, a scrape of serve's /metrics
parsed by prometheus_client, and one sample's value by name and labels."""
import urllib.request
from prometheus_client.parser import text_string_to_metric_families

fails = 0

def check(ok, msg):
    """Prints "ok   - msg" or "FAIL - msg"; a FAIL is counted in fails."""
    global fails
    print(("ok   - " if ok else "FAIL - ") + msg)
    fails += 0 if ok else 1

def scrape(port):
    """(Content-Type, {family name: family}) of http://127.0.0.1:port/metrics."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as r:
        ctype = r.headers.get("Content-Type", "")
        text = r.read().decode()
    return ctype, {f.name: f for f in text_string_to_metric_families(text)}

def value(fams, name, **labels):
    """The value of the first sample called name with these labels; KeyError if none."""
    for f in fams.values():
        for s in f.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise KeyError(name)
