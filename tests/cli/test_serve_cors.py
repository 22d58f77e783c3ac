#!/usr/bin/env python3
"""test_serve_cors.py - `numalab serve --cors`: '*' and anything that is not
an origin are refused with the reason and exit status 2; a named origin
without a token starts, with a warning that says what it allows.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab)."""

import os
import select
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")


class ServeCorsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-cors-")
        self.db = os.path.join(self.tmp, "c.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def refused(self, *args):
        p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", self.db,
                            *args], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        return p.stderr

    def started(self, *args):
        """Starts the server, waits for its address, stops it: its stderr."""
        err = open(os.path.join(self.tmp, "err"), "w+")
        p = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--db", self.db,
                              *args], stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            ready, _, _ = select.select([p.stdout], [], [], 60)
            self.assertTrue(ready, "the server printed nothing")
            self.assertTrue(p.stdout.readline().startswith("listening on http://"))
        finally:
            p.terminate()
            self.assertEqual(p.wait(60), 0)
            p.stdout.close()
        err.seek(0)
        text = err.read()
        err.close()
        return text

    def test_any_origin_is_refused(self):
        err = self.refused("--cors", "*")
        self.assertIn("refusing '--cors *'", err)
        self.assertIn("name the origin instead", err)

    def test_what_is_not_an_origin_is_refused(self):
        for bad in ("lab.example", "https://lab.example/page", "ftp://lab.example",
                    "https://", "http://user@lab.example", "null",
                    "http://[::1", "http://lab.example:70000"):
            err = self.refused("--cors", bad)
            self.assertIn("bad --cors '%s': " % bad, err)
            self.assertIn("(give http://HOST[:PORT]", err)

    def test_an_origin_without_a_token_is_warned_about(self):
        err = self.started("--cors", "https://lab.example:8443")
        self.assertIn("warning: '--cors https://lab.example:8443' without a token", err)

    def test_an_origin_with_a_token_is_not(self):
        token = os.path.join(self.tmp, "token")
        with open(token, "w") as f:
            f.write("cors-token-value\n")
        err = self.started("--cors", "https://lab.example", "--token-file", token)
        self.assertNotIn("--cors", err)
        self.assertNotIn("cors-token-value", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
