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
from harness import BIN, FINAL_TYPES, SMALL, Server, TmpMixin, main  # noqa: E402
from test_https import OPENSSL, make_cert  # noqa: E402

TOKEN = "teacher-token-for-tests"
CLASS = "class-token-for-tests"


def links(srv):
    """The teacher's and the class's links the server printed after its
    listening line: {"teacher": url, "class": url}."""
    out = {}
    for _ in range(2):
        who, _, url = srv._read_line(30).partition(": ")
        out[who] = url
    return out


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
        """(status, doc, cookie header value to send back or None)."""
        body = {"token": token}
        if name is not None:
            body["name"] = name
        status, doc, hdrs = (srv or self.srv).json("POST", "/api/session", body)
        sc = hdrs.get("set-cookie")
        if not sc:
            return status, doc, None
        c = SimpleCookie()
        c.load(sc)
        return status, doc, "numalab_session=" + c["numalab_session"].value

    def wait_final(self, rid):
        status, evs, _ = self.srv.events(rid, "?access_token=" + TOKEN)
        self.assertEqual(status, 200)
        self.assertIn(evs[-1][1], FINAL_TYPES)

    def as_cookie(self, cookie, extra=None):
        h = {"Cookie": cookie}
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
                                       headers=self.as_cookie("numalab_session=" + "0" * 32))
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
                ("post", "/api/class/guesses")}
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
        c = SimpleCookie()
        c.load(hdrs["set-cookie"])
        h = {"Cookie": "numalab_session=" + c["numalab_session"].value}
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
        # is_loopback in cli/serve.c: 127.0.0.0/8 and ::1; 0.0.0.0 is not
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
