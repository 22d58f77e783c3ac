"""test_signin.py - the lab room's sign-in: the printed links, session
cookies for the teacher and the class, roles on every route, expiry,
sign-out, cross-origin cookies, and the display name.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_signin.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import ssl
import subprocess
import sys
import time
import unittest
from http.cookies import SimpleCookie

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (BIN, FINAL_TYPES, SMALL, Server, TmpMixin, cookie_name,  # noqa: E402
                     main, read_links, signed_headers)
from test_https import OPENSSL, make_cert  # noqa: E402

TOKEN = "teacher-token-for-tests"
CLASS = "class-token-for-tests"


def links(srv):
    """The first teacher's and class's links the server printed after its
    listening line: {"teacher": url, "class": url, "join": url, "code"}."""
    got = read_links(srv)
    return {"teacher": got["teacher"][0], "class": got["class"][0],
            "join": got["join"], "code": got["code"]}


def token_of(url):
    return url.partition("?token=")[2]


class SignInTest(TmpMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, web=cls.web, args=[
            "--token", TOKEN, "--class-token", CLASS]).start()
        cls.links = links(cls.srv)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.drop_tmp()

    def sign_in(self, token, name=None, srv=None):
        """(status, doc, the headers a signed-in page sends or None)."""
        body = {"token": token}
        if name is not None:
            body["name"] = name
        status, doc, hdrs = (srv or self.srv).json("POST", "/api/session", body)
        return status, doc, signed_headers(srv or self.srv, doc, hdrs)

    def wait_final(self, rid):
        status, evs, _ = self.srv.events(rid, "?access_token=" + TOKEN)
        self.assertEqual(status, 200)
        self.assertIn(evs[-1][1], FINAL_TYPES)

    def as_cookie(self, cookie, extra=None):
        h = dict(cookie) if isinstance(cookie, dict) else {"Cookie": cookie}
        h.update(extra or {})
        return h

    def test_printed_links(self):
        base = "http://127.0.0.1:%d/" % self.srv.port
        self.assertEqual(self.links["teacher"], base + "?token=" + TOKEN)
        self.assertEqual(self.links["class"], base + "?token=" + CLASS)

    def test_teacher_cookie(self):
        status, doc, cookie = self.sign_in(TOKEN)
        self.assertEqual(status, 200, doc)
        self.assertEqual(doc["role"], "teacher")
        _, _, hdrs = self.srv.json("POST", "/api/session", {"token": TOKEN})
        sc = hdrs["set-cookie"]
        for attr in ("HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"):
            self.assertIn(attr, sc)
        self.assertNotIn("Secure", sc)  # plain HTTP here; test_https has TLS
        status, doc, _ = self.srv.json("GET", "/api/session",
                                       headers=self.as_cookie(cookie))
        self.assertEqual((status, doc["role"]), (200, "teacher"))
        status, doc, _ = self.srv.post_run(SMALL, headers=self.as_cookie(cookie))
        self.assertEqual(status, 202, doc)
        self.wait_final(doc["id"])

    def test_class_link_goes_to_the_teacher_alone(self):
        # the projector's QR code: the class's link with its token, on the
        # host the teacher's browser named
        want = "http://127.0.0.1:%d/?token=%s" % (self.srv.port, CLASS)
        _, _, teacher = self.sign_in(TOKEN)
        for h in (self.as_cookie(teacher), {"Authorization": "Bearer " + TOKEN}):
            status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
            self.assertEqual((status, doc["role"]), (200, "teacher"))
            self.assertEqual(doc["class_link"], want)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=self.as_cookie(
            teacher, {"Host": "lab-room.local:%d" % self.srv.port}))
        # a name the server was not told it is: refused before any answer
        self.assertEqual(status, 421, doc)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=self.as_cookie(
            teacher, {"Host": "192.0.2.10:8080"}))
        self.assertEqual(doc["class_link"], "http://192.0.2.10:8080/?token=" + CLASS)
        # a student, by cookie or bearer, and a signed-out browser: neither token
        _, _, student = self.sign_in(CLASS, name="Ada")
        for who, h in (("class cookie", self.as_cookie(student)),
                       ("class bearer", {"Authorization": "Bearer " + CLASS}),
                       ("anonymous", {})):
            status, _, raw = self.srv.request("GET", "/api/session", headers=h)
            self.assertEqual(status, 200, who)
            self.assertNotIn(b"class_link", raw, who)
            self.assertNotIn(CLASS.encode(), raw, who)
            self.assertNotIn(TOKEN.encode(), raw, who)

    def test_wrong_token(self):
        status, doc, cookie = self.sign_in("not-the-token")
        self.assertEqual(status, 401)
        self.assertEqual(doc["field"], "token")
        self.assertIsNone(cookie)
        status, doc, _ = self.srv.json("GET", "/api/session")
        self.assertEqual(doc, {"role": "none", "name": "", "sign_in": True})
        status, doc, _ = self.srv.json("GET", "/api/runs",
                                       headers=self.as_cookie(cookie_name(self.srv) + "=" + "0" * 32))
        self.assertEqual(status, 401)
        self.assertIn("sign in", doc["error"])

    def test_class_roles(self):
        status, doc, cookie = self.sign_in(CLASS)
        self.assertEqual((status, doc["role"]), (200, "class"))
        h = self.as_cookie(cookie)
        for path in ("/api/experiments", "/api/topology", "/api/runs",
                     "/api/campaigns", "/api/openapi.json"):
            status, _, _ = self.srv.request("GET", path, headers=h)
            self.assertEqual(status, 200, path)
        refused = [
            ("POST", "/api/runs", {"experiment": "false_sharing", "params": SMALL}),
            ("POST", "/api/runs/import", {"run": {}}),
            ("POST", "/api/runs/check", {"experiment": "false_sharing", "params": SMALL}),
            ("DELETE", "/api/runs/1", None),
            ("POST", "/api/campaigns", {"name": "x"}),
            ("POST", "/api/campaigns/start", {"name": "x"}),
        ]
        for method, path, body in refused:
            status, doc, _ = self.srv.json(method, path, body, headers=h)
            self.assertEqual(status, 403, (method, path, doc))
            self.assertIn("teacher", doc["error"])
            self.assertIn("may not start, cancel, delete or import runs", doc["error"])

    def test_class_refused_every_mutating_route_of_the_document(self):
        # every change the API document lists, not a list kept here: only
        # signing in or out and a guess are a student's
        _, _, cookie = self.sign_in(CLASS)
        h = self.as_cookie(cookie)
        status, doc, _ = self.srv.json("GET", "/api/openapi.json", headers=h)
        self.assertEqual(status, 200)
        mine = {("post", "/api/session"), ("delete", "/api/session"),
                ("patch", "/api/session"), ("post", "/api/class/guesses")}
        tried = 0
        for path, ops in doc["paths"].items():
            for method in ops:
                if method not in ("post", "put", "delete", "patch") or (method, path) in mine:
                    continue
                url = path.replace("{id}", "1")
                status, err, _ = self.srv.json(method.upper(), url, {}, headers=h)
                self.assertEqual(status, 403, (method, path, err))
                self.assertIn("needs the teacher's sign-in", err["error"])
                tried += 1
        self.assertGreaterEqual(tried, 9)

    def test_class_reads_a_run_and_its_stream(self):
        status, doc, _ = self.srv.post_run(
            SMALL, headers={"Authorization": "Bearer " + TOKEN})
        self.assertEqual(status, 202, doc)
        rid = doc["id"]
        _, _, cookie = self.sign_in(CLASS)
        status, evs, _ = self.srv.events(rid, headers=self.as_cookie(cookie))
        self.assertEqual(status, 200)
        self.assertTrue(evs)
        status, doc, _ = self.srv.json("GET", "/api/runs/%d" % rid,
                                       headers=self.as_cookie(cookie))
        self.assertEqual((status, doc["id"]), (200, rid))

    def test_sign_out(self):
        _, _, cookie = self.sign_in(TOKEN)
        h = self.as_cookie(cookie)
        status, doc, hdrs = self.srv.json("DELETE", "/api/session", headers=h)
        self.assertEqual((status, doc["role"]), (200, "none"))
        self.assertIn("Max-Age=0", hdrs["set-cookie"])
        status, doc, _ = self.srv.json("GET", "/api/runs", headers=h)
        self.assertEqual(status, 401)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
        self.assertEqual(doc["role"], "none")

    def test_signing_in_again_forgets_the_session_before(self):
        _, _, student = self.sign_in(CLASS)
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"token": TOKEN},
                                          headers=self.as_cookie(student))
        self.assertEqual((status, doc["role"]), (200, "teacher"))
        status, doc, _ = self.srv.json("GET", "/api/session",
                                       headers=self.as_cookie(student))
        self.assertEqual(doc["role"], "none")

    def test_cross_origin_cookie_refused(self):
        _, _, cookie = self.sign_in(TOKEN)
        for extra in ({"Origin": "http://evil.example"},
                      {"Sec-Fetch-Site": "cross-site"}):
            status, doc, _ = self.srv.json("GET", "/api/runs",
                                           headers=self.as_cookie(cookie, extra))
            self.assertEqual(status, 403, extra)
            self.assertIn("cross-origin", doc["error"])
            status, doc, _ = self.srv.post_run(SMALL, headers=self.as_cookie(cookie, extra))
            self.assertEqual(status, 403, extra)
        # a sign-in from another site's page is refused too
        status, doc, _ = self.srv.json("POST", "/api/session", {"token": TOKEN},
                                       headers={"Origin": "http://evil.example"})
        self.assertEqual(status, 403)
        same = {"Origin": "http://127.0.0.1:%d" % self.srv.port}
        status, _, _ = self.srv.json("GET", "/api/runs", headers=self.as_cookie(cookie, same))
        self.assertEqual(status, 200)

    def test_bearer_still_works(self):
        h = {"Authorization": "Bearer " + TOKEN}
        status, doc, _ = self.srv.post_run(SMALL, headers=h)
        self.assertEqual(status, 202, doc)
        self.wait_final(doc["id"])
        status, _, _ = self.srv.json("GET", "/api/runs", headers=h)
        self.assertEqual(status, 200)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
        self.assertEqual(doc["role"], "teacher")
        # the class's token as a bearer reads, and is refused the rest
        h = {"Authorization": "Bearer " + CLASS}
        status, _, _ = self.srv.json("GET", "/api/runs", headers=h)
        self.assertEqual(status, 200)
        status, doc, _ = self.srv.post_run(SMALL, headers=h)
        self.assertEqual(status, 403)
        status, doc, _ = self.srv.json("GET", "/api/runs",
                                       headers={"Authorization": "Bearer nope"})
        self.assertEqual((status, doc["error"]), (401, "wrong bearer token"))

    def test_display_name(self):
        name = "Zoë <b>&amp;</b> \"x\""
        status, doc, cookie = self.sign_in(CLASS, name)
        self.assertEqual((status, doc["name"]), (200, name))
        status, doc, _ = self.srv.json("GET", "/api/session",
                                       headers=self.as_cookie(cookie))
        self.assertEqual(doc["name"], name)  # as given: escaped where shown
        status, doc, _ = self.sign_in(CLASS, "é" * 24)  # 48 bytes
        self.assertEqual(status, 200, doc)
        for bad, why in (("é" * 24 + "x", "at most 48 bytes"),
                         ("a\nb", "control character"),
                         ("a\x7fb", "control character"),
                         ("a\u0085b", "control character")):
            status, doc, cookie = self.sign_in(CLASS, bad)
            self.assertEqual(status, 400, repr(bad))
            self.assertEqual(doc["field"], "name")
            self.assertIn(why, doc["error"])
            self.assertIsNone(cookie)
        # a NUL never gets as far: the body is refused as JSON
        status, doc, hdrs = self.srv.json("POST", "/api/session",
                                          {"token": CLASS, "name": "a\x00b"})
        self.assertEqual(status, 400)
        self.assertNotIn("set-cookie", hdrs)
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"token": CLASS, "name": 7})
        self.assertEqual(status, 400)
        self.assertNotIn("set-cookie", hdrs)


    # names a class is shown must read as they are: no blank one, no
    # space at an end, nothing invisible and nothing that turns the text
    HIDDEN = ("\u202e", "\u202a", "\u202d", "\u200e", "\u200f", "\u2066",
              "\u2069", "\u200b", "\u200c", "\u200d", "\ufeff", "\u061c")

    def assertNameRefused(self, status, doc, why):
        self.assertEqual(status, 400, doc)
        self.assertEqual(doc["field"], "name", doc)
        self.assertIn(why, doc["error"])

    def test_display_name_is_visible_text(self):
        for bad, why in ((" ", "name is only spaces (give at least one letter, "
                               "digit or punctuation mark)"),
                         ("   ", "only spaces"),
                         ("\u00a0\u3000", "only spaces"),
                         (" Ada", "name starts with a space (U+0020): spaces "
                                  "are allowed between words, not at either end"),
                         ("Ada ", "name ends with a space (U+0020)"),
                         ("Ada\u00a0", "name ends with a space (U+00A0)")):
            status, doc, cookie = self.sign_in(CLASS, bad)
            self.assertNameRefused(status, doc, why)
            self.assertIsNone(cookie)
        for ch in self.HIDDEN:
            status, doc, cookie = self.sign_in(CLASS, "Ada" + ch + "Bob")
            self.assertNameRefused(status, doc, "U+%04X) at byte 3 (letters, digits, "
                                   "spaces and punctuation are allowed)" % ord(ch))
            self.assertIsNone(cookie)
        status, doc, _ = self.sign_in(CLASS, "abc\u202edcba")
        self.assertIn("name has a text-direction control (U+202E)", doc["error"])
        status, doc, _ = self.sign_in(CLASS, "a\u200bb")
        self.assertIn("name has an invisible character (U+200B)", doc["error"])
        # kept as written: spaces inside, a right-to-left script, no name
        for good in ("Ada  Lovelace", "\u05e9\u05dc\u05d5\u05dd", ""):
            status, doc, cookie = self.sign_in(CLASS, good)
            self.assertEqual((status, doc["name"]), (200, good), doc)

    def test_rename_is_held_to_the_same_rules(self):
        status, doc, h = self.sign_in(CLASS, "Ada")
        self.assertEqual(status, 200, doc)
        for bad, why in (("", "name is empty (give at least one letter"),
                         ("  ", "only spaces"), ("Ada ", "ends with a space"),
                         ("\u202eadA", "text-direction control (U+202E) at byte 0"),
                         ("A\u2068da", "text-direction control (U+2068)"),
                         ("A\ufeffda", "invisible character (U+FEFF)"),
                         ("a\tb", "control character at byte 1")):
            status, doc, _ = self.srv.json("PATCH", "/api/session", {"name": bad}, h)
            self.assertNameRefused(status, doc, why)
        # nothing was changed by a refusal
        status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
        self.assertEqual(doc["name"], "Ada")
        status, doc, _ = self.srv.json("PATCH", "/api/session", {"name": "Ada B."}, h)
        self.assertEqual((status, doc["name"]), (200, "Ada B."), doc)


class NeighbourTest(TmpMixin, unittest.TestCase):
    """What a cookie that reached another server on the same host is worth:
    nothing without the key the page keeps."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, web=cls.web, args=[
            "--token", TOKEN, "--class-token", CLASS]).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        cls.drop_tmp()

    def sign_in(self, token, srv=None):
        srv = srv or self.srv
        status, doc, hdrs = srv.json("POST", "/api/session", {"token": token})
        self.assertEqual(status, 200, doc)
        self.assertRegex(doc["key"], "^[0-9a-f]{32}$")
        return signed_headers(srv, doc, hdrs)

    def test_replayed_cookie_alone_is_refused_on_every_route(self):
        teacher = self.sign_in(TOKEN)
        cookie_only = {"Cookie": teacher["Cookie"]}
        wrong_key = dict(teacher, **{"X-Numalab-Key": "0" * 32})
        status, doc, _ = self.srv.json("GET", "/api/openapi.json", headers=teacher)
        self.assertEqual(status, 200)
        tried = 0
        for path, ops in doc["paths"].items():
            for method in ops:
                if method not in ("get", "post", "put", "delete", "patch"):
                    continue
                url = path.replace("{id}", "1")
                for h in (cookie_only, wrong_key):
                    status, _, got = self.srv.request(method.upper(), url, {}, headers=h)
                    if path == "/api/session" and method in ("get", "post", "delete"):
                        # open to all: who one is (none), sign-in, sign-out
                        if method == "get":
                            self.assertIn(b'"role":"none"', got, (method, path))
                        continue
                    self.assertIn(status, (401, 403), (method, path, h, got[:200]))
                    tried += 1
        self.assertGreaterEqual(tried, 30)
        # the cookie alone did not sign the teacher out either
        status, doc, _ = self.srv.json("DELETE", "/api/session", headers=cookie_only)
        self.assertEqual(status, 200)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=teacher)
        self.assertEqual(doc["role"], "teacher")
        # and the cookie, with the key, still works from curl: it is the key
        # a neighbour lacks, not the Origin
        status, _, _ = self.srv.json("GET", "/api/runs", headers=teacher)
        self.assertEqual(status, 200)

    def test_cookie_names_carry_the_port(self):
        other = Server(self.tmp, web=self.web, name="other", db=os.path.join(self.tmp, "o.db"),
                       args=["--token", TOKEN]).start()
        try:
            a, b = self.sign_in(TOKEN), self.sign_in(TOKEN, other)
            self.assertIn("numalab_session_%d=" % self.srv.port, a["Cookie"])
            self.assertIn("numalab_session_%d=" % other.port, b["Cookie"])
            # a browser sends both servers both cookies (ports are ignored):
            # each server reads its own, and both sign-ins hold
            both = a["Cookie"] + "; " + b["Cookie"]
            for srv, h in ((self.srv, a), (other, b)):
                status, doc, _ = srv.json("GET", "/api/session",
                                          headers=dict(h, Cookie=both))
                self.assertEqual(doc["role"], "teacher")
            # one server's cookie and key are nothing to the other
            status, _, _ = other.json("GET", "/api/runs", headers=a)
            self.assertEqual(status, 401)
        finally:
            other.stop()

    def test_join_code_and_name_step(self):
        j = Server(self.tmp, web=self.web, name="j", db=os.path.join(self.tmp, "j.db"),
                   args=["--token", TOKEN]).start()
        try:
            got = read_links(j)
        finally:
            j.stop()
        self.assertRegex(got["code"], "^[0-9]{6}$")
        self.assertTrue(got["join"].endswith("/join"), got)
        # the code of this server, from the teacher's who-am-I
        status, doc, _ = self.srv.json("GET", "/api/session",
                                       headers={"Authorization": "Bearer " + TOKEN})
        code = doc["join_code"]
        self.assertTrue(doc["join_link"].endswith(":%d/join" % self.srv.port), doc)
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"code": code},
                                          source="127.3.0.1")
        self.assertEqual((status, doc["role"], doc["name"]), (200, "class", ""), doc)
        h = signed_headers(self.srv, doc, hdrs)
        status, doc, _ = self.srv.json("PATCH", "/api/session", {"name": "Grace <i>"}, h)
        self.assertEqual((status, doc["name"]), (200, "Grace <i>"), doc)
        status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
        self.assertEqual((doc["role"], doc["name"]), ("class", "Grace <i>"))
        self.assertNotIn("join_code", doc)
        for bad, status_want in (("12345", 400), ("1234567", 400), ("abcdef", 400)):
            status, doc, _ = self.srv.json("POST", "/api/session", {"code": bad},
                                           source="127.3.0.2")
            self.assertEqual((status, doc["field"]), (status_want, "code"), doc)
        wrong = "%06d" % ((int(code) + 1) % 1000000)
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"code": wrong},
                                          source="127.3.0.2")
        self.assertEqual(status, 401, doc)
        self.assertNotIn("set-cookie", hdrs)

    def test_sign_ins_per_address(self):
        # ten at once from an address, then it waits (127.0.0.1, where a
        # proxy on the lab machine brings the whole class, is not limited)
        got = [self.srv.json("POST", "/api/session", {"token": CLASS},
                             source="127.7.0.1")[0] for _ in range(12)]
        self.assertEqual(got[:10], [200] * 10)
        self.assertEqual(got[10:], [429, 429])
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"token": CLASS},
                                          source="127.7.0.1")
        self.assertIn("too many sign-ins from this address", doc["error"])
        self.assertTrue(hdrs.get("retry-after"))
        self.assertEqual(self.srv.json("POST", "/api/session", {"token": CLASS},
                                       source="127.7.0.2")[0], 200)
        for _ in range(12):
            self.assertEqual(self.srv.json("POST", "/api/session", {"token": CLASS})[0], 200)

    def test_wrong_tokens_are_slowed_and_logged(self):
        srv = Server(self.tmp, web=self.web, name="slow", db=os.path.join(self.tmp, "w.db"),
                     args=["--token", TOKEN]).start()
        try:
            got = []
            for k in range(40):
                status, _, hdrs = srv.json("GET", "/api/runs",
                                           headers={"Authorization": "Bearer nope%d" % k},
                                           source="127.4.0.1")
                got.append((status, hdrs.get("retry-after")))
            self.assertEqual(got[0], (401, None))
            self.assertIn(429, [g[0] for g in got])
            self.assertTrue(all(g[1] for g in got if g[0] == 429))
            # even the right token is not read from that address for now
            status, doc, _ = srv.json("POST", "/api/session", {"token": TOKEN},
                                      source="127.4.0.1")
            self.assertEqual(status, 429, doc)
            self.assertIn("too many wrong tokens", doc["error"])
            # another address is not slowed by it
            status, _, _ = srv.json("GET", "/api/runs",
                                    headers={"Authorization": "Bearer " + TOKEN},
                                    source="127.4.0.2")
            self.assertEqual(status, 200)
            log = srv.stderr()
            self.assertRegex(log, r"\b1 wrong token or join code since"
                                  r"|\b\d+ wrong tokens or join codes since")
            self.assertNotIn("127.4.0.1", log)
            self.assertNotIn("nope", log)
        finally:
            srv.stop()


class JoinBudgetTest(TmpMixin, unittest.TestCase):
    """The join code whatever the number of addresses: a server-wide budget
    of wrong codes makes it anew and pauses joining by code, and each
    question the teacher opens makes it anew."""

    TEACHER = {"Authorization": "Bearer " + TOKEN}

    def setUp(self):
        self.make_tmp()
        self.srv = Server(self.tmp, web=self.web, args=["--token", TOKEN]).start()

    def tearDown(self):
        self.srv.stop()
        self.drop_tmp()

    def join(self, code, source):
        return self.srv.json("POST", "/api/session", {"code": code}, source=source)

    def projector_code(self):
        status, st, _ = self.srv.json("GET", "/api/class", headers=self.TEACHER)
        self.assertEqual(status, 200, st)
        self.assertTrue(st["join"]["link"].endswith(":%d/join" % self.srv.port), st)
        return st["join"]["code"]

    def test_new_code_per_question_and_wrong_codes_budget(self):
        first = self.srv.json("GET", "/api/session", headers=self.TEACHER)[1]["join_code"]
        self.assertEqual(self.projector_code(), first)
        self.assertEqual(self.join(first, "127.9.0.1")[0], 200)
        # the teacher opens a question: a new code, the old one expired
        _, exps, _ = self.srv.json("GET", "/api/experiments", headers=self.TEACHER)
        fs = [e for e in exps if e["name"] == "false_sharing"][0]
        status, doc, _ = self.srv.json("PUT", "/api/class/question",
                                       {"experiment": "false_sharing",
                                        "lesson": fs["lessons"][0]["id"]}, self.TEACHER)
        self.assertEqual(status, 200, doc)
        code = self.projector_code()
        self.assertRegex(code, "^[0-9]{6}$")
        self.assertNotEqual(code, first)
        status, doc, hdrs = self.join(first, "127.9.0.2")
        self.assertEqual((status, doc["field"]), (401, "code"), doc)
        self.assertIn("expired", doc["error"])
        self.assertNotIn("set-cookie", hdrs)
        # an honest student with the code now
        status, doc, _ = self.join(code, "127.9.0.3")
        self.assertEqual((status, doc["role"]), (200, "class"), doc)
        # wrong codes, one from each of many addresses (no address is
        # slowed on its own): the server-wide budget trips all the same
        wrong = [c for c in ("%06d" % ((int(code) + k) % 1000000) for k in range(1, 60))]
        got = []
        for k, w in enumerate(wrong):
            status, doc, hdrs = self.join(w, "127.9.%d.1" % (k + 10))
            got.append(status)
            if status == 429:
                break
        self.assertEqual(got[-1], 429, got)
        self.assertLessEqual(len(got), 20, got)
        self.assertEqual(set(got[:-1]), {401}, got)
        self.assertIn("paused", doc["error"])
        self.assertTrue(hdrs.get("retry-after"))
        # the code was made anew: the projector shows it, the old one is
        # refused (paused) from a fresh address, even the new one waits
        rotated = self.projector_code()
        self.assertNotEqual(rotated, code)
        for c in (code, rotated):
            status, doc, _ = self.join(c, "127.9.200.1")
            self.assertEqual(status, 429, doc)
        # the class link still signs a phone in meanwhile, and the student
        # who joined before is still signed in
        status, doc, _ = self.srv.json("GET", "/api/session", headers=self.TEACHER)
        status, doc, _ = self.srv.json("POST", "/api/session",
                                       {"token": token_of(doc["class_link"])},
                                       source="127.9.201.1")
        self.assertEqual((status, doc["role"]), (200, "class"), doc)
        self.assertIn("too many wrong join codes", self.join(rotated, "127.9.202.1")[1]["error"])


class ExpiryTest(TmpMixin, unittest.TestCase):
    def setUp(self):
        self.make_tmp()
        self.srv = Server(self.tmp, web=self.web, args=[
            "--token", TOKEN, "--session-seconds", "1"]).start()

    def tearDown(self):
        self.srv.stop()
        self.drop_tmp()

    def test_expired_session_is_refused(self):
        status, doc, hdrs = self.srv.json("POST", "/api/session", {"token": TOKEN})
        self.assertEqual((status, doc["expires_in"]), (200, 1))
        self.assertIn("Max-Age=1", hdrs["set-cookie"])
        h = signed_headers(self.srv, doc, hdrs)
        # a session lives whole seconds: past two it has expired
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status, doc, _ = self.srv.json("GET", "/api/session", headers=h)
            if doc["role"] == "none":
                break
            time.sleep(0.5)
        self.assertEqual(doc["role"], "none")
        status, _, _ = self.srv.json("GET", "/api/runs", headers=h)
        self.assertEqual(status, 401)


@unittest.skipUnless(OPENSSL, "SKIP: no 'openssl' to make a test certificate")
class SecureCookieTest(TmpMixin, unittest.TestCase):
    def test_secure_under_https(self):
        self.make_tmp()
        try:
            cert, key = make_cert(self.tmp, "lab")
            srv = Server(self.tmp, web=self.web, args=[
                "--tls-cert", cert, "--tls-key", key, "--token", TOKEN,
                "--class-token", CLASS]).start()
            srv.ssl_context = ssl.create_default_context(cafile=cert)
            try:
                got = links(srv)
                self.assertTrue(got["class"].startswith("https://127.0.0.1:"))
                status, doc, hdrs = srv.json("POST", "/api/session", {"token": CLASS})
                self.assertEqual((status, doc["role"]), (200, "class"))
                self.assertIn("; Secure", hdrs["set-cookie"])
                self.assertIn("HttpOnly", hdrs["set-cookie"])
            finally:
                srv.stop()
        finally:
            self.drop_tmp()


class StartTest(TmpMixin, unittest.TestCase):
    def setUp(self):
        self.make_tmp()
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
        self.drop_tmp()

    def start(self, *args, listen="127.0.0.1:0"):
        s = Server(self.tmp, web=self.web, args=list(args),
                   name="s%d" % len(self.servers))
        self.servers.append(s)
        return s.start(listen)

    def test_off_loopback_generates_both_tokens(self):
        # serve_is_loopback in cli/serve_net.c: 127.0.0.0/8 and ::1; 0.0.0.0 is not
        s = self.start(listen="0.0.0.0:0")
        got = links(s)
        teacher, klass = token_of(got["teacher"]), token_of(got["class"])
        self.assertRegex(teacher, "^[0-9a-f]{32}$")
        self.assertRegex(klass, "^[0-9a-f]{32}$")
        self.assertNotEqual(teacher, klass)
        self.assertIn(":%d/?token=" % s.port, got["teacher"])
        s.host = "127.0.0.1"
        status, _, _ = s.json("GET", "/api/runs")
        self.assertEqual(status, 401)
        status, _, _ = s.json("GET", "/api/runs",
                              headers={"Authorization": "Bearer " + teacher})
        self.assertEqual(status, 200)
        status, doc, _ = s.json("POST", "/api/session", {"token": klass})
        self.assertEqual((status, doc["role"]), (200, "class"))
        # the teacher on the lab machine itself: the class link is the
        # printed one, on the name other machines reach
        status, doc, _ = s.json("GET", "/api/session",
                                headers={"Authorization": "Bearer " + teacher})
        self.assertEqual(doc["class_link"], got["class"])
        # the tokens are printed once, as links, and never to the log
        self.assertNotIn(teacher, s.stderr())
        self.assertNotIn(klass, s.stderr())

    def test_public_url(self):
        url = "https://lab.example.org"
        s = self.start("--token", TOKEN, "--class-token", CLASS, "--public-url", url + "/")
        got = read_links(s)
        self.assertEqual(got["teacher"], [url + "/?token=" + TOKEN])
        self.assertEqual(got["class"], [url + "/?token=" + CLASS])
        self.assertEqual(got["join"], url + "/join")
        # its host is answered, its origin is the server's own, and the cookie
        # is Secure (the proxy in front speaks https)
        h = {"Host": "lab.example.org", "Origin": url}
        status, doc, hdrs = s.json("POST", "/api/session", {"token": TOKEN}, headers=h)
        self.assertEqual(status, 200, doc)
        self.assertIn("; Secure", hdrs["set-cookie"])
        signed = dict(signed_headers(s, doc, hdrs), **h)
        status, doc, _ = s.json("GET", "/api/session", headers=signed)
        self.assertEqual(doc["class_link"], url + "/?token=" + CLASS)
        self.assertEqual(doc["join_link"], url + "/join")
        status, doc, _ = s.json("GET", "/api/runs", headers=dict(signed, Origin="https://evil.example"))
        self.assertEqual(status, 403, doc)
        for bad in ("lab.example.org", "ftp://lab", "https://lab/x", "https://",
                    "http://[::1", "http://lab:0"):
            p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db",
                                os.path.join(self.tmp, "p.db"), "--public-url", bad],
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("bad --public-url '%s': " % bad, p.stderr.decode())

    def test_short_token_is_warned_about(self):
        s = self.start("--token", "short")
        read_links(s)
        self.assertIn("warning: the token is 5 characters", s.stderr())

    def test_token_without_class_token_generates_one(self):
        s = self.start("--token", TOKEN)
        got = links(s)
        self.assertEqual(token_of(got["teacher"]), TOKEN)
        self.assertRegex(token_of(got["class"]), "^[0-9a-f]{32}$")

    def test_loopback_without_token_prints_no_links(self):
        s = self.start()
        status, doc, _ = s.json("GET", "/api/session")
        self.assertEqual(doc, {"role": "teacher", "name": "", "sign_in": False})
        status, doc, _ = s.json("POST", "/api/session", {"token": "x"})
        self.assertEqual(status, 409)

    def test_bad_options(self):
        db = os.path.join(self.tmp, "o.db")
        for args, why in ((["--class-token", "c"], "needs '--token'"),
                          (["--token", "t", "--class-token", "t"], "is the teacher's"),
                          (["--token", "t", "--class-token", ""], "class token is empty"),
                          (["--session-seconds", "0"], "allowed 1-604800")):
            p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", db] + args,
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(why, p.stderr.decode(), args)


if __name__ == "__main__":
    main()
