"""test_access.py - who may do what: tokens, public reads, CORS.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_access.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    BIN,
    FINAL_TYPES,
    SMALL,
    Server,
    TmpMixin,
    main,
)


class AccessTest(TmpMixin, unittest.TestCase):
    TOKEN = "s3cret-token-for-tests"

    def setUp(self):
        self.make_tmp()
        self.token_file = os.path.join(self.tmp, "token")
        with open(self.token_file, "w") as f:
            f.write(self.TOKEN + "\n")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            if s.proc:
                self.assertEqual(s.stop(), 0, s.stderr())
        self.drop_tmp()

    def server(self, *args, listen="127.0.0.1:0"):
        s = Server(self.tmp, web=self.web, args=list(args),
                   name="s%d" % len(self.servers))
        self.servers.append(s)
        return s.start(listen)

    def auth(self, token=None):
        return {"Authorization": "Bearer %s" % (token or self.TOKEN)}

    def test_token(self):
        s = self.server("--token-file", self.token_file)
        status, doc, hdrs = s.post_run(SMALL)
        self.assertEqual(status, 401, doc)
        self.assertIn("bearer", hdrs["www-authenticate"].lower())
        status, doc, _ = s.post_run(SMALL, headers=self.auth("wrong"))
        self.assertEqual(status, 401)
        status, doc, _ = s.post_run(SMALL, headers=self.auth(self.TOKEN + "x"))
        self.assertEqual(status, 401)
        status, doc, _ = s.json("GET", "/api/runs")
        self.assertEqual(status, 401)
        status, doc, _ = s.post_run(SMALL, headers=self.auth())
        self.assertEqual(status, 202, doc)
        rid = doc["id"]
        status, _, _ = s.json("GET", "/api/runs/%d" % rid, headers=self.auth())
        self.assertEqual(status, 200)
        # EventSource cannot send headers: reads may carry the token in the URL
        status, evs, _ = s.events(rid, "?access_token=%s" % self.TOKEN)
        self.assertEqual(status, 200)
        self.assertIn(evs[-1][1], FINAL_TYPES)
        status, doc, _ = s.json("DELETE", "/api/runs/%d?access_token=%s"
                                % (rid, self.TOKEN))
        self.assertEqual(status, 401)
        # the page itself is not a secret
        status, _, _ = s.request("GET", "/")
        self.assertEqual(status, 200)

    def test_public_read(self):
        s = self.server("--token", self.TOKEN, "--public-read")
        status, doc, _ = s.json("GET", "/api/runs")
        self.assertEqual(status, 200)
        status, doc, _ = s.json("GET", "/api/experiments")
        self.assertEqual(status, 200)
        status, doc, _ = s.post_run(SMALL)
        self.assertEqual(status, 401)
        status, doc, _ = s.json("DELETE", "/api/runs/1")
        self.assertEqual(status, 401)

    def test_non_loopback_with_token(self):
        # (without one, tokens are generated: test_signin.py)
        s = self.server("--token-file", self.token_file, listen="0.0.0.0:0")
        self.assertEqual(s.host, "0.0.0.0")
        s.host = "127.0.0.1"
        status, _, _ = s.json("GET", "/api/experiments", headers=self.auth())
        self.assertEqual(status, 200)

    def test_token_file_crlf_for_serve_and_fleet(self):
        # one token file written on Windows works for both commands: the
        # server takes "T\r\n" as T, and so does the fleet that imports
        crlf = os.path.join(self.tmp, "token-crlf")
        with open(crlf, "wb") as f:
            f.write(self.TOKEN.encode() + b"\r\n")
        s = self.server("--token-file", crlf)
        status, doc, _ = s.post_run(SMALL, headers=self.auth())
        self.assertEqual(status, 202, doc)
        if not shutil.which("clush"):
            self.skipTest("SKIP the fleet half: no clush here to start a campaign")
        binary = os.path.abspath(BIN)
        p = subprocess.run(
            [binary, "fleet", "run", "atomic_increment", "threads=1",
             "increments=1000", "repeat=1", "warmup=0", "--engine", "clush",
             "--clush-worker", "exec", "--nodes", "lab01", "--numalab", binary,
             "--server", "http://127.0.0.1:%d" % s.port, "--token-file", crlf],
            cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("imported into", p.stdout)

    def test_bad_options(self):
        db = os.path.join(self.tmp, "o.db")
        for args in (["--listen", "nonsense"], ["--max-queue", "0"],
                     ["--bogus"], ["--token", ""],
                     ["--token-file", os.path.join(self.tmp, "missing")]):
            p = subprocess.run([BIN, "serve", "--db", db] + args,
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr, args)

    def test_cors(self):
        s = self.server("--cors", "http://lab.example")
        _, hdrs, _ = s.request("GET", "/api/experiments",
                               headers={"Origin": "http://lab.example"})
        self.assertEqual(hdrs["access-control-allow-origin"], "http://lab.example")
        _, hdrs, _ = s.request("GET", "/api/experiments",
                               headers={"Origin": "http://evil.example"})
        self.assertNotIn("access-control-allow-origin", hdrs)
        status, hdrs, _ = s.request(
            "OPTIONS", "/api/runs",
            headers={"Origin": "http://lab.example",
                     "Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "content-type"})
        self.assertEqual(status, 204)
        self.assertEqual(hdrs["access-control-allow-origin"], "http://lab.example")
        self.assertIn("POST", hdrs["access-control-allow-methods"])
        self.assertIn("Content-Type", hdrs["access-control-allow-headers"])
        plain = self.server()
        _, hdrs, _ = plain.request("GET", "/api/experiments",
                                   headers={"Origin": "http://lab.example"})
        self.assertNotIn("access-control-allow-origin", hdrs)

if __name__ == "__main__":
    main()
