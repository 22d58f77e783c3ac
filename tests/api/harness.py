"""harness.py - a real numalab server on a loopback port for the API tests.

Starts `numalab serve --listen 127.0.0.1:0`, reads the port it prints, and
talks to it with http.client (which sends paths exactly as given, so the
traversal tests mean something). Also what the test_*.py files share: the
run sizes, a web folder with traps, a class with one server for a file's
tests, and the mark that puts a test in the TSan lane. Stdlib only.
"""

import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
# Generous ceilings so that a hung server fails a test instead of hanging
# the lane; no test asserts how long anything takes.
START_TIMEOUT = 60
REQUEST_TIMEOUT = 120
FINAL_TYPES = ("done", "failed", "cancelled", "interrupted")

# Small runs finish in well under a second; LONG runs take long enough
# per point (five rounds of 10^9 increments) to be cancelled or killed
# while they run, and still emit their first sample on the way.
SMALL = {"threads": "1-2", "increments": 100000, "repeat": 2, "warmup": 0}
# Estimated at about 100 s here: a tenth of that is still minutes longer
# than any test waits, and the estimate stays under the default
# --max-run-seconds of 600 where every increment is slower (TSan's build
# took 2.6x this estimate and was refused at 500,000,000).
LONG = {"threads": "1-2", "increments": 100000000, "repeat": 5, "warmup": 0}



def stop_strays(path):
    """Stops every process whose command line names path (a test's
    directory): the `numalab fleet run` a server started in the
    background outlives the server by design, to deliver later, and a
    test that removes its directory must not leave it retrying."""
    me = os.getpid()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if path.encode() in f.read():
                    pids.append(int(d))
        except OSError:
            pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.time() + 5
        while pids and time.time() < deadline:
            pids = [p for p in pids if _alive(p)]
            time.sleep(0.1)


def can_bind(addr):
    """Whether a socket can be bound to this (loopback) address here."""
    try:
        s = socket.socket()
        s.bind((addr, 0))
        s.close()
        return True
    except OSError:
        return False


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return not f.read().rsplit(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False

class Server:
    def __init__(self, tmp, db=None, web=None, args=(), name="server", env=None):
        self.tmp = tmp
        self.db = db or os.path.join(tmp, "x.db")
        self.web = web
        self.args = list(args)
        self.name = name
        self.proc = None
        self.port = None
        self.host = "127.0.0.1"
        self.scheme = "http"
        self.ssl_context = None  # for a server started with --tls-cert
        self.starts = 0
        self.env = dict(os.environ, **(env or {}))

    def command(self, listen="127.0.0.1:0"):
        """serve with the harness's --listen, --db and --web, each left out
        when the test's own args give it: serve refuses an option twice."""
        given = {a.partition("=")[0] for a in self.args if a.startswith("--")}
        cmd = [BIN, "serve"]
        for name, value in (("--listen", listen), ("--db", self.db),
                            ("--web", self.web)):
            if value is not None and name not in given:
                cmd += [name, value]
        return cmd + self.args

    @property
    def stderr_path(self):
        return os.path.join(self.tmp, "%s.%d.stderr" % (self.name, self.starts))

    def start(self, listen="127.0.0.1:0"):
        self.starts += 1
        self.errfile = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            self.command(listen), stdout=subprocess.PIPE, stderr=self.errfile,
            env=self.env
        )
        line = self._read_line(START_TIMEOUT)
        scheme = line[len("listening on "):].partition("://")[0]
        if not line.startswith("listening on ") or scheme not in ("http", "https"):
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(
                "server did not start: %r\n%s" % (line, self.stderr())
            )
        self.scheme = scheme
        hostport = line[len("listening on %s://" % scheme):].rstrip("/")
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        return self

    def _read_line(self, timeout):
        deadline = time.monotonic() + timeout
        buf = b""
        fd = self.proc.stdout.fileno()
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                break
            chunk = os.read(fd, 1)
            if not chunk:
                break
            buf += chunk
        return buf.decode(errors="replace").strip()

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM):
        """Signals the server and returns its exit status."""
        if not self.proc:
            return None
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(REQUEST_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            raise AssertionError("server did not stop on %s\n%s" % (sig, self.stderr()))
        finally:
            self.proc.stdout.close()
            self.errfile.close()
        self.proc = None
        return rc

    def kill9(self):
        return self.stop(signal.SIGKILL)

    def pid(self):
        return self.proc.pid

    # --- HTTP -----------------------------------------------------------

    def conn(self, timeout=REQUEST_TIMEOUT, source=None):
        """A connection; source: the local address to come from (any of
        127.0.0.0/8 reaches a server on 127.0.0.1: one per student)."""
        src = (source, 0) if source else None
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                               context=self.ssl_context,
                                               source_address=src)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout,
                                          source_address=src)

    def request(self, method, path, body=None, headers=None, source=None):
        """Returns (status, headers dict with lowercase names, body bytes)."""
        headers = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        if method == "DELETE":
            # a cancel changes a run: the server wants it to say JSON
            headers.setdefault("Content-Type", "application/json")
        c = self.conn(source=source)
        try:
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
            return r.status, hdrs, data
        finally:
            c.close()

    def json(self, method, path, body=None, headers=None, source=None):
        """Returns (status, parsed JSON or None, headers)."""
        status, hdrs, data = self.request(method, path, body, headers, source)
        try:
            doc = json.loads(data) if data else None
        except ValueError:
            raise AssertionError("not JSON from %s %s: %r" % (method, path, data[:200]))
        return status, doc, hdrs

    def post_run(self, params, experiment="false_sharing", headers=None):
        return self.json(
            "POST", "/api/runs", {"experiment": experiment, "params": params}, headers
        )

    def start_run(self, params, experiment="false_sharing"):
        status, doc, _ = self.post_run(params, experiment)
        if status != 202:
            raise AssertionError("run not accepted: %s %s" % (status, doc))
        return doc["id"]

    # --- event streams --------------------------------------------------

    def open_events(self, run_id, query="", headers=None, timeout=REQUEST_TIMEOUT):
        c = self.conn(timeout)
        c.request("GET", "/api/runs/%d/events%s" % (run_id, query), headers=headers or {})
        r = c.getresponse()
        return c, r

    def events(self, run_id, query="", headers=None, until=None):
        """Reads an SSE stream to its end (or until until(event) is true).

        Returns (status, list of (id, type, data dict), comments seen)."""
        c, r = self.open_events(run_id, query, headers)
        try:
            if r.status != 200:
                r.read()
                return r.status, [], []
            out, comments = [], []
            for ev in sse_events(r, comments):
                out.append(ev)
                if until and until(ev):
                    break
            return r.status, out, comments
        finally:
            c.close()

    def ndjson(self, run_id, query="?format=ndjson", headers=None):
        c, r = self.open_events(run_id, query, headers)
        try:
            lines = r.read().decode().split("\n")
            return r.status, r.getheader("Content-Type"), [
                json.loads(l) for l in lines if l.strip()
            ]
        finally:
            c.close()

    def wait_final(self, run_id):
        """Every event of the run, read live until its final one."""
        status, evs, _ = self.events(run_id)
        if status != 200 or not evs or evs[-1][1] not in FINAL_TYPES:
            raise AssertionError("no final event for run %d: %s %s" % (run_id, status, evs[-1:]))
        return evs

    def wait_event(self, run_id, type_):
        """Reads the stream until the first event of this type; returns it."""
        status, evs, _ = self.events(
            run_id, until=lambda e: e[1] == type_ or e[1] in FINAL_TYPES
        )
        if not evs or evs[-1][1] != type_:
            raise AssertionError(
                "run %d ended before a '%s' event: %s" % (run_id, type_, evs[-1:])
            )
        return evs


def cookie_name(srv):
    """The session cookie's name: it carries the server's port."""
    return "numalab_session_%d" % srv.port


def signed_headers(srv, doc, hdrs):
    """What a signed-in page sends after the sign-in answered doc with
    headers hdrs: its cookie and the key the answer gave (None when the
    answer set no cookie)."""
    from http.cookies import SimpleCookie
    sc = hdrs.get("set-cookie")
    if not sc:
        return None
    c = SimpleCookie()
    c.load(sc)
    return {"Cookie": "%s=%s" % (cookie_name(srv), c[cookie_name(srv)].value),
            "X-Numalab-Key": doc["key"]}


def read_links(srv, timeout=30):
    """The links the server printed after its listening line:
    {"teacher": [urls], "class": [urls], "join": url, "code": digits}."""
    out = {"teacher": [], "class": []}
    while True:
        line = srv._read_line(timeout)
        who, _, url = line.partition(": ")
        if who == "join":
            out["join"], _, out["code"] = url.partition(" code ")
            return out
        if who not in out:
            raise AssertionError("not a link line: %r" % line)
        out[who].append(url)


def sse_events(resp, comments=None):
    """Parses text/event-stream from an http.client response."""
    ev_id, ev_type, data = None, None, []
    while True:
        raw = resp.readline()
        if not raw:
            return
        line = raw.decode().rstrip("\r\n")
        if line == "":
            if data:
                yield (int(ev_id) if ev_id else None, ev_type or "message",
                       json.loads("\n".join(data)))
            ev_id, ev_type, data = None, None, []
        elif line.startswith(":"):
            if comments is not None:
                comments.append(line)
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                ev_id = value
            elif field == "event":
                ev_type = value
            elif field == "data":
                data.append(value)


def children_of(pid):
    """Pids whose parent is pid (scans /proc: works on every kernel)."""
    kids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            kids.append(int(name))
    return kids


def alive(pid):
    """True while pid runs (a zombie nobody reaped counts as dead)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def wait_gone(pid, ceiling=30):
    """Waits until pid is gone; False if it outlived the ceiling."""
    deadline = time.monotonic() + ceiling
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def wait_until(cond, ceiling=60):
    """Polls cond until it holds; False if it never did within the ceiling."""
    deadline = time.monotonic() + ceiling
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def make_web(root):
    """A web folder with one file of each kind, a subfolder, and traps."""
    web = os.path.join(root, "web")
    os.makedirs(os.path.join(web, "sub"))
    files = {
        "index.html": "<!doctype html><title>numalab test</title>",
        "app.js": "export const x = 1;\n",
        "style.css": "body { color: black }\n",
        "data.json": '{"ok": true}\n',
        "pic.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        "sub/inner.txt": "inner\n",
        ".hidden": "secret\n",
    }
    for name, text in files.items():
        with open(os.path.join(web, name), "w") as f:
            f.write(text)
    with open(os.path.join(root, "outside.txt"), "w") as f:
        f.write("outside the web folder\n")
    os.symlink(os.path.join(root, "outside.txt"), os.path.join(web, "escape.txt"))
    os.symlink("/etc", os.path.join(web, "etc"))
    os.symlink("app.js", os.path.join(web, "alias.js"))
    return web


def tsan(obj):
    """Puts a test, or a whole class of them, in the TSan lane (run.py
    --tsan): the tests that start, stream, cancel and kill runs, where the
    runner thread, the stream callbacks and the store meet."""
    obj.tsan = True
    return obj


class TmpMixin:
    @classmethod
    def make_tmp(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-api-")
        cls.web = make_web(cls.tmp)

    @classmethod
    def drop_tmp(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class SharedServerTest(TmpMixin, unittest.TestCase):
    """One server for the tests of a class that do not stop it; with
    done_run set, one finished run every test can read (done_id and
    done_events)."""

    done_run = False

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, web=cls.web).start()
        if cls.done_run:
            cls.done_id = cls.srv.start_run(SMALL)
            cls.done_events = cls.srv.wait_final(cls.done_id)

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s on SIGTERM\n%s" % (rc, err))

    def assertError(self, status, doc, want_status, field=None, contains=None):
        self.assertEqual(status, want_status, doc)
        self.assertIsInstance(doc, dict)
        self.assertIn("error", doc)
        msg = doc["error"]
        self.assertTrue(msg and msg[0].islower() or not msg[0].isalpha(), msg)
        self.assertFalse(msg.endswith("."), msg)
        if field is None:
            self.assertNotIn("field", doc)
        else:
            self.assertEqual(doc.get("field"), field, doc)
        if contains:
            self.assertIn(contains, msg)


def main():
    """What a test_*.py file runs when it is started by itself."""
    if not os.access(BIN, os.X_OK):
        print("SKIP: no numalab binary at '%s' (set NUMALAB_BIN)" % BIN)
        sys.exit(77)
    unittest.main(module="__main__", verbosity=2)
