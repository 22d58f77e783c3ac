"""served.py - what an installed numalab must answer, however it was installed.

The install, package and container lanes start numalab their own way and
run these checks against its address: the page and its vendored scripts,
the API, a false_sharing run, and a variable_layout run that found its TLS
objects (the ones `make install` puts in lib/numalab/).

    python3 tests/install/served.py URL [--token-file F] [--runs NAMES]

Prints one line per check; exit status 1 at the first that fails.
"""

import argparse
import json
import sys
import time
import urllib.error
import urllib.request

# small enough to take a few seconds on any machine
RUNS = {
    "false_sharing": {"threads": "1", "increments": "1000000",
                      "repeat": "1", "warmup": "0", "budget": "0"},
    "variable_layout": {"parts": "tls_access", "ops": "100000",
                        "repeat": "1", "warmup": "0", "budget": "0"},
}
FINAL = ("done", "failed", "cancelled", "interrupted")


class Client:
    def __init__(self, url, token):
        self.url = url.rstrip("/")
        self.token = token

    def get(self, path, body=None, method=None, timeout=30):
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, path, doc=None):
        body = json.dumps(doc).encode() if doc is not None else None
        status, data = self.get(path, body, "POST" if doc is not None else "GET")
        try:
            return status, json.loads(data)
        except ValueError:
            return status, None


def fail(what):
    print("FAIL " + what)
    sys.exit(1)


def check_page(c):
    status, body = c.get("/")
    if status != 200 or b"<html" not in body.lower():
        fail("GET / answered %d, not the page" % status)
    status, body = c.get("/vendor/chart.umd.min.js")
    if status != 200 or len(body) < 1000:
        fail("GET /vendor/chart.umd.min.js answered %d (%d bytes)" % (status, len(body)))
    print("ok   the page and its vendored scripts")


def check_api(c):
    status, doc = c.json("/api/experiments")
    names = [e.get("name") for e in doc] if isinstance(doc, list) else []
    if status != 200 or "false_sharing" not in names:
        fail("GET /api/experiments answered %d: %s" % (status, str(doc)[:200]))
    print("ok   the API lists %d experiments" % len(names))


def run(c, name, timeout):
    status, doc = c.json("/api/runs", {"experiment": name, "params": RUNS[name]})
    if status != 202 or not isinstance(doc, dict) or "id" not in doc:
        fail("POST /api/runs %s answered %d: %s" % (name, status, doc))
    run_id = doc["id"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, doc = c.json("/api/runs/%s" % run_id)
        if status == 200 and doc.get("status") in FINAL:
            break
        time.sleep(0.5)
    if doc.get("status") != "done":
        fail("the %s run ended %s: %s" % (name, doc.get("status"),
                                         json.dumps(doc.get("notes"))[:400]))
    if name == "variable_layout":
        found = (doc.get("summary") or {}).get("dso_found", {})
        if not isinstance(found, dict) or found.get("value") != 1:
            fail("variable_layout did not find its TLS objects: dso_found %s" % found)
    print("ok   a %s run is done" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--token-file")
    ap.add_argument("--runs", default="false_sharing,variable_layout")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    token = open(a.token_file).read().strip() if a.token_file else None
    c = Client(a.url, token)
    check_page(c)
    check_api(c)
    for name in filter(None, a.runs.split(",")):
        run(c, name, a.timeout)


if __name__ == "__main__":
    main()
