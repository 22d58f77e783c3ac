"""test_schemafuzz.py - the whole API fuzzed from its own OpenAPI document for
about a minute: tests/api/schemafuzz.mjs sends every operation valid and
broken requests (bodies made by json-schema-faker and from real run
documents, then broken: wrong types, missing fields, deep nesting, huge
arrays, long strings, invalid UTF-8, duplicate keys...) and checks every
answer's status, Content-Type and body (ajv) against the document; the
server must answer throughout and exit cleanly at the end.

Runs use tests/api/fake_worker.py, so a run the pass starts ends at once.
Needs node and the devDependencies of package.json (npm ci); without them
the test says SKIP, loudly.
  SCHEMAFUZZ_SEED=N         another sequence of requests (default 1);
                            'random' for a new one each time (printed)
  SCHEMAFUZZ_SECONDS=S      how long to send requests (default 50)
Run: make test-api API_TESTS=test_schemafuzz
"""

import os
import random
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TmpMixin, Server, main  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(HERE, "schemafuzz.mjs")
MODULES = ("json-schema-faker", "ajv", "ajv-formats")
TOKEN = "schemafuzz-token"


def missing():
    """Why the pass cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    for m in MODULES:
        if not os.path.isdir(os.path.join(ROOT, "node_modules", m)):
            return "node module '%s' is missing (make all or npm ci installs it)" % m
    return None


class SchemaFuzzTest(TmpMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.why = missing()
        if cls.why:
            return
        cls.make_tmp()
        cls.mode = os.path.join(cls.tmp, "mode")
        with open(cls.mode, "w") as f:
            f.write("ok")
        # a token, so that asking without one is fuzzed too; an import
        # quota that lets most of a minute's imports through (the huge
        # bodies count) and still runs out near the end
        cls.srv = Server(
            cls.tmp, web=cls.web,
            args=["--worker", os.path.join(HERE, "fake_worker.py"),
                  "--token", TOKEN, "--import-quota", "1500",
                  "--import-quota-mib", "1024"],
            env={"FAKE_WORKER_MODE": cls.mode}).start()

    @classmethod
    def tearDownClass(cls):
        if cls.why:
            return
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s on SIGTERM\n%s" % (rc, err))

    def setUp(self):
        if self.why:
            print("\nSKIP %s: %s" % (self.id(), self.why), flush=True)
            self.skipTest(self.why)

    def test_answers_follow_the_document(self):
        seed = os.environ.get("SCHEMAFUZZ_SEED", "1")
        if seed == "random":
            seed = str(random.randrange(1 << 32))
        seconds = int(os.environ.get("SCHEMAFUZZ_SECONDS", "50"))
        url = "http://%s:%d" % (self.srv.host, self.srv.port)
        cmd = ["node", SCRIPT, url, seed, "--seconds", str(seconds),
               "--token", TOKEN]
        print("\n  " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=seconds + 120)
        out = p.stdout.decode(errors="replace")
        print(out, flush=True)
        self.assertIsNone(self.srv.proc.poll(),
                          "the server died\n%s" % self.srv.stderr())
        self.assertNotIn("ERROR: AddressSanitizer", self.srv.stderr())
        self.assertNotIn("runtime error:", self.srv.stderr())
        # the mismatches again in the failure itself, so that a log cut to
        # its last lines still says what they were
        found = out[out.find("distinct mismatches"):] if p.returncode else ""
        self.assertEqual(p.returncode, 0,
                         "schemafuzz found mismatches with the OpenAPI "
                         "document (seed %s):\n%s" % (seed, found[:6000]))


if __name__ == "__main__":
    main()
