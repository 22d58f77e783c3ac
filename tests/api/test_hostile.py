"""test_hostile.py - documents and request heads from elsewhere: nothing a client sends takes the server down.

Deep or huge JSON in every free-form field, malformed request heads, and
an import quota that protects without punishing. Against the real binary:
NUMALAB_BIN=build/numalab python3 tests/api/test_hostile.py (or
make test-api API_TESTS=test_hostile).
"""

import copy
import json
import os
import shutil
import socket
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SMALL, Server, SharedServerTest, main  # noqa: E402

DEPTH = 32  # lib/jsonlimit.h JSONLIMIT_DEPTH
VALUES = 1024 * 1024  # JSONLIMIT_VALUES
# server/http/http.c: a 4 KiB pool less 1 KiB kept for the answer's head
HEAD_MAX = 4 * 1024 - 1024
ENTRY_COST = 64


def deep(levels, inner=1):
    """inner nested in `levels` arrays: [[[...1...]]]"""
    v = inner
    for _ in range(levels):
        v = [v]
    return v


def deep_text(levels):
    """The same as text, for depths json.dumps would refuse to recurse to."""
    return "[" * levels + "1" + "]" * levels


def raw(srv, data, timeout=30):
    """Sends bytes as they are; everything read until the server closes."""
    s = socket.create_connection((srv.host, srv.port), timeout)
    try:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                raise AssertionError("no answer, connection held: %r" % out[:300])
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def head(path=b"/api/experiments", extra=b""):
    return (b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra +
            b"Connection: close\r\n\r\n")


def head_cost(data):
    """What server/http/http.c counts for a head: its bytes and 64 for each header,
    query argument and cookie (and the Cookie header once more)."""
    lines = data.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    target = lines[0].split(b" ")[1]
    n = len(lines) - 1
    query = target.partition(b"?")[2]
    if query:
        n += len(query.split(b"&"))
    extra = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.lower() == b"cookie":
            value = value.strip()
            n += len(value.split(b";"))
            extra += (len(value) + 1 + 15) // 16 * 16
    return len(data) + n * ENTRY_COST + extra


class DeepDocumentsTest(SharedServerTest):
    """Every free-form field of every JSON body, nested past the limit."""

    done_run = True

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        status, doc, _ = cls.srv.json("GET", "/api/runs/%d?format=json" % cls.done_id)
        assert status == 200, doc
        cls.doc = doc

    def post_text(self, path, text):
        status, _, data = self.srv.request("POST", path, text,
                                           {"Content-Type": "application/json"})
        try:
            return status, json.loads(data)
        except ValueError:
            return status, data

    def assertStillUp(self):
        status, _, _ = self.srv.json("GET", "/api/experiments")
        self.assertEqual(status, 200)
        self.assertIsNone(self.srv.proc.poll(), "the server is gone")

    def assertTooDeep(self, path, text, field):
        status, doc = self.post_text(path, text)
        self.assertError(status, doc, 400, field,
                         "nested deeper than %d levels (allowed: at most %d)"
                         % (DEPTH, DEPTH))
        self.assertStillUp()

    def run_doc_with(self, setter, levels):
        """The finished run's document with one field made deep, as text."""
        doc = copy.deepcopy(self.doc)
        mark = "\u0000MARK\u0000"
        setter(doc, mark)
        return json.dumps(doc).replace(json.dumps(mark), deep_text(levels))

    def test_a_small_body_names_the_field_at_fault(self):
        for method, path, body, field, words in (
                ("POST", "/api/class/run", {"run": "1"}, "run", "must be a run id"),
                ("POST", "/api/class/run", {"run": 1, "extra": 1}, "extra",
                 "unknown field 'extra' (allowed: run, teacher_guess)"),
                ("POST", "/api/class/run", {"run": 0}, "run", "from 1 (got 0)"),
                ("POST", "/api/class/run", {}, "run", "missing field 'run'"),
                ("POST", "/api/class/run", {"run": 1, "teacher_guess": "x"},
                 "teacher_guess", "a number or null"),
                ("PATCH", "/api/session", {"name": "a", "x": 1}, "x", "unknown field 'x'"),
                ("POST", "/api/session", {"token": 1}, "token", "'token' must be"),
                ("PUT", "/api/class/question", {"experiment": 1, "lesson": "x"},
                 "experiment", "'experiment' must be")):
            with self.subTest(path=path, body=body):
                status, doc, _ = self.srv.json(method, path, body)
                self.assertEqual(status, 400, doc)
                self.assertEqual(doc.get("field"), field, doc)
                self.assertIn(words, doc["error"])

    def test_a_request_that_takes_no_body(self):
        # a cancel, a sign-out, a reveal: {} or nothing, never a body ignored
        run = "/api/runs/%d" % self.done_id
        for method, path in (("DELETE", run), ("DELETE", "/api/session"),
                             ("DELETE", "/api/campaigns/nope"),
                             ("POST", "/api/class/reveal")):
            for body, field in (('{"why": 1}', "why"), ("not json", None), ("[]", None)):
                with self.subTest(path=path, body=body):
                    status, _, data = self.srv.request(
                        method, path, body, {"Content-Type": "application/json"})
                    doc = json.loads(data)
                    self.assertEqual(status, 400, doc)
                    self.assertEqual(doc.get("field"), field, doc)
            for body in ("", "{}", " { } \n"):
                with self.subTest(path=path, body=body):
                    status, _, data = self.srv.request(
                        method, path, body, {"Content-Type": "application/json"})
                    self.assertNotEqual(status, 400, data)

    def test_every_field_of_an_import(self):
        def top(name):
            return lambda d, v: d.__setitem__(name, v)

        def extra(d, v):
            d["samples"][0]["extra"] = v

        cases = [(name, top(name), name) for name in
                 ("request", "machine", "imported", "params", "summary")]
        cases.append(("extra", extra, "samples"))
        for name, setter, field in cases:
            for levels in (DEPTH + 1, 1700):
                with self.subTest(field=name, levels=levels):
                    text = self.run_doc_with(setter, levels)
                    self.assertTooDeep("/api/runs/import", text, field)

    def test_depth_at_the_limit_is_parsed(self):
        # 32 levels in all pass the parser; the import's own checks judge it
        doc = copy.deepcopy(self.doc)
        doc["machine"] = {"x": deep(DEPTH - 3)}
        status, got = self.post_text("/api/runs/import", json.dumps(doc))
        self.assertNotIn("nested deeper", json.dumps(got))
        self.assertStillUp()

    def test_a_campaign(self):
        base = {"id": "20261203-000000-0001", "engine": "slurm",
                "experiment": "false_sharing", "created_at": "2026-12-03T00:00:00Z"}
        for name, field in (("params", "params"), ("node", "nodes")):
            with self.subTest(field=name):
                c = dict(base)
                c["params"] = "MARK" if name == "params" else {}
                if name == "node":
                    c["nodes"] = [{"node": "MARK", "state": "done"}]
                text = json.dumps(c).replace('"MARK"', deep_text(1700))
                self.assertTooDeep("/api/campaigns", text, field)

    def test_a_run_and_its_check(self):
        for path in ("/api/runs", "/api/runs/check"):
            with self.subTest(path=path):
                text = ('{"experiment": "false_sharing", "params": %s}'
                        % deep_text(1700))
                self.assertTooDeep(path, text, "params")
                # a whole body that is one deep array names no field
                status, doc = self.post_text(path, deep_text(DEPTH + 1))
                self.assertError(status, doc, 400, None, "nested deeper")
                self.assertStillUp()

    def test_too_many_values(self):
        text = "[" + "0," * VALUES + "0]"
        status, doc = self.post_text("/api/runs/import", text)
        self.assertError(status, doc, 400, None,
                         "more than %d values (allowed: at most %d)" % (VALUES, VALUES))
        doc = copy.deepcopy(self.doc)
        doc["summary"] = "MARK"
        text = json.dumps(doc).replace('"MARK"', "[" + "0," * VALUES + "0]")
        status, got = self.post_text("/api/runs/import", text)
        self.assertError(status, got, 400, "summary", "more than")
        self.assertStillUp()

    def test_a_body_past_the_size_limit(self):
        # a Content-Length past the import's 8 MiB: 413 before any of it
        reply = raw(self.srv, b"POST /api/runs/import HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n" % (9 * 1024 * 1024))
        self.assertTrue(reply.startswith(b"HTTP/1.1 413 "), reply[:200])
        self.assertIn(b"application/json", reply)
        status, doc = self.post_text("/api/runs", "[" + " " * (80 * 1024) + "]")
        self.assertEqual(status, 413, doc)
        self.assertStillUp()


class HeadTest(SharedServerTest):
    """Malformed or heavy request heads each get a JSON answer."""

    def assertJson(self, reply, want):
        self.assertTrue(reply, "no answer at all")
        status = int(reply.split(b" ", 2)[1])
        hdrs, _, body = reply.partition(b"\r\n\r\n")
        self.assertEqual(status, want, reply[:400])
        self.assertIn(b"content-type: application/json", hdrs.lower())
        self.assertIn(b"x-content-type-options: nosniff", hdrs.lower())
        doc = json.loads(body)
        if status >= 400:
            self.assertIn("error", doc)
        return doc

    def test_path_not_utf8(self):
        for path in (b"/api/%ff%fe", b"/api/runs/\xc3(", b"/%c0%af", b"/api/\xed\xa0\x80"):
            with self.subTest(path=path):
                doc = self.assertJson(raw(self.srv, head(path)), 400)
                self.assertIn("UTF-8", doc["error"])

    def test_an_escaped_nul(self):
        # decoded, the path or value would end at the NUL: run 1, a limit of 1
        for path in (b"/api/runs/1%00", b"/api/runs?limit=1%00x", b"/app.js%00.txt"):
            with self.subTest(path=path):
                doc = self.assertJson(raw(self.srv, head(path)), 400)
                self.assertIn("%00", doc["error"])
        # a raw NUL byte: libmicrohttpd would end the URI there
        for path in (b"/api/runs/1\x00x", b"/api/runs?limit=1\x00x"):
            with self.subTest(path=path):
                doc = self.assertJson(raw(self.srv, head(path)), 400)
                self.assertIn("NUL", doc["error"])
        # the same characters escaped are only text
        self.assertJson(raw(self.srv, head(b"/api/runs?limit=1%2500")), 400)

    def test_a_path_a_route_names_is_not_an_id(self):
        # GET /api/runs/check is POST's path, not a run named "check"
        for path in (b"/api/runs/check", b"/api/runs/import"):
            with self.subTest(path=path):
                reply = raw(self.srv, head(path))
                self.assertJson(reply, 405)
                self.assertIn(b"allow: post\r\n", reply.lower())

    def test_error_quoting_bad_utf8_is_still_sent(self):
        # a valid path, and a Host that is not UTF-8: the 421 quotes it
        reply = raw(self.srv, b"GET /api/experiments HTTP/1.1\r\nHost: \xff\xfe.example\r\n"
                    b"Connection: close\r\n\r\n")
        doc = self.assertJson(reply, 421)
        self.assertIn("\\xff", doc["error"])

    def test_two_hosts(self):
        for second in (b"Host: evil.example\r\n", b"host: 127.0.0.1\r\n"):
            with self.subTest(second=second):
                doc = self.assertJson(raw(self.srv, head(extra=second)), 400)
                self.assertIn("Host", doc["error"])

    def test_two_content_types_or_lengths(self):
        body = b'{"experiment":"false_sharing","params":{"threads":"1"}}'
        for extra, what in ((b"Content-Type: application/json\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\n" % len(body), "content type"),
                            (b"Content-Type: application/json\r\nContent-Length: %d\r\n"
                             b"Content-Length: %d\r\n" % (len(body), len(body)), "length")):
            with self.subTest(what=what):
                req = (b"POST /api/runs/check HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra +
                       b"Connection: close\r\n\r\n" + body)
                doc = self.assertJson(raw(self.srv, req), 400)
                self.assertIn(what + " 2 times", doc["error"])

    def test_cookies_a_browser_sends(self):
        # 0.6 KB of other programs' cookies for the same host name (each
        # cookie is counted twice, and a record: see HEAD_MAX)
        cookies = "; ".join("app%02d_session=%s" % (i, "v" * 64) for i in range(8))
        self.assertGreater(len(cookies), 600)
        data = head(extra=b"Cookie: " + cookies.encode() + b"\r\n")
        self.assertLess(head_cost(data), HEAD_MAX)
        self.assertJson(raw(self.srv, data), 200)

    def test_query_arguments(self):
        # thirty fit: the head is read, and the first the route does not take is named
        path = b"/api/experiments?" + b"&".join(b"a%d=1" % i for i in range(30))
        doc = self.assertJson(raw(self.srv, head(path)), 400)
        self.assertIn("unknown query argument 'a0'", doc["error"])
        # more than the pool can keep records for: 414, not a closed door
        path = b"/api/experiments?" + b"&".join(b"a%d" % i for i in range(300))
        doc = self.assertJson(raw(self.srv, head(path)), 414)
        self.assertIn("300 arguments", doc["error"])

    def test_head_just_under_and_over_the_limit(self):
        def padded(cost):
            data = head(extra=b"X-Pad: \r\n")
            pad = cost - head_cost(data)
            return head(extra=b"X-Pad: " + b"a" * pad + b"\r\n")

        under = padded(HEAD_MAX)
        self.assertEqual(head_cost(under), HEAD_MAX)
        self.assertJson(raw(self.srv, under), 200)
        over = padded(HEAD_MAX + 1)
        doc = self.assertJson(raw(self.srv, over), 431)
        self.assertIn("%d" % HEAD_MAX, doc["error"])
        # many small headers are counted the same way
        n = 1
        while head_cost(head(extra=b"X-H0000: a\r\n" * n)) <= HEAD_MAX:
            n += 1
        many = head(extra=b"".join(b"X-H%04d: a\r\n" % i for i in range(n)))
        self.assertGreater(head_cost(many), HEAD_MAX)
        self.assertJson(raw(self.srv, many), 431)

    def test_a_content_length_past_64_bits(self):
        # libmicrohttpd answers these itself, before the server sees the
        # request (docs/guide/security.md): a 4xx and a closed connection,
        # whatever its body; then the server answers as before
        for length in (b"18446744073709551615", b"18446744073709551616",
                       b"1" + b"0" * 30, b"12x"):
            with self.subTest(length=length):
                reply = raw(self.srv, b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            b"Content-Type: application/json\r\n"
                            b"Content-Length: " + length + b"\r\n\r\n")
                self.assertRegex(reply[:13], rb"^HTTP/1\.1 4\d\d ", reply[:200])
                self.assertIsNone(self.srv.proc.poll(), "the server is gone")
                self.assertJson(raw(self.srv, head()), 200)

    def test_still_answering(self):
        status, _, _ = self.srv.json("GET", "/api/experiments")
        self.assertEqual(status, 200)


class QuotaTest(unittest.TestCase):
    """The import quota counts what is stored, per client, and not the lab's own."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-hostile-")
        self.srv = None

    def tearDown(self):
        if self.srv and self.srv.proc:
            rc = self.srv.stop()
            self.assertEqual(rc, 0, self.srv.stderr())
        shutil.rmtree(self.tmp, ignore_errors=True)

    def a_run(self, headers=None):
        rid = self.srv.start_run(SMALL)
        self.srv.wait_final(rid)
        status, doc, _ = self.srv.json("GET", "/api/runs/%d?format=json" % rid,
                                       headers=headers)
        self.assertEqual(status, 200, doc)
        return doc

    def test_refused_imports_do_not_count(self):
        self.srv = Server(self.tmp).start()  # the default quota: 60 an hour
        doc = self.a_run()
        for i in range(100):
            status, _, _ = self.srv.request("POST", "/api/runs/import", "{not json",
                                            {"Content-Type": "application/json"})
            self.assertEqual(status, 400)
        for i in range(20):
            status, _, _ = self.srv.json("POST", "/api/runs/import", {"id": "x"})
            self.assertEqual(status, 400)
            status, _, _ = self.srv.request("POST", "/api/runs/import",
                                            deep_text(1700),
                                            {"Content-Type": "application/json"})
            self.assertEqual(status, 400)
            status, _, _ = self.srv.request("POST", "/api/campaigns", "{}",
                                            {"Content-Type": "application/json"})
            self.assertEqual(status, 400)
        status, got, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertEqual(status, 201, got)

    def test_what_is_stored_counts(self):
        self.srv = Server(self.tmp, args=["--import-quota", "2"]).start()
        doc = self.a_run()
        codes = [self.srv.json("POST", "/api/runs/import", doc)[0] for _ in range(3)]
        self.assertEqual(codes, [201, 201, 429])

    def test_the_token_is_not_under_the_quota(self):
        self.srv = Server(self.tmp, args=["--token", "s3cret", "--import-quota", "2"])
        self.srv.start()
        auth = {"Authorization": "Bearer s3cret"}
        status, got, _ = self.srv.post_run(SMALL, headers=auth)
        self.assertEqual(status, 202, got)
        status, evs, _ = self.srv.events(got["id"], headers=auth)
        self.assertEqual(evs[-1][1], "done", evs[-1:])
        status, doc, _ = self.srv.json("GET", "/api/runs/%d?format=json" % got["id"],
                                       headers=auth)
        self.assertEqual(status, 200)
        # as a fleet delivering 70 nodes' runs and its campaign record would
        codes = [self.srv.json("POST", "/api/runs/import", doc, auth)[0]
                 for _ in range(70)]
        self.assertEqual(codes, [201] * 70)
        # without it, the request is refused for the token, not counted
        status, _, _ = self.srv.json("POST", "/api/runs/import", doc)
        self.assertEqual(status, 401)


if __name__ == "__main__":
    main()
