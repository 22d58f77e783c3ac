#!/usr/bin/env python3
"""test_rates_cache.py - the rates' cache as the commands meet it: one that
cannot be saved is said to be (and fails `numalab rates`, whose work it
is), one holding a rate that is no positive finite number is said, never
used, and measured again.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")


def numalab(cache, *args):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=120, env=env)


class RatesCache(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-cli-rates-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_not_saved_is_said(self):
        # a cache folder that is a regular file
        cache = os.path.join(self.tmp, "file")
        open(cache, "w").close()
        path = os.path.join(cache, "numalab", "rates")
        p = numalab(cache, "rates")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("numalab rates: the rates were not saved in %s: "
                      "Not a directory" % path, p.stderr)
        self.assertIn("cache: %s (not saved)" % path, p.stdout)
        # an estimate stands on the rates it measured, and says the rest
        p = numalab(cache, "estimate", "--json", "false_sharing", "threads=1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("not saved in %s" % path, p.stderr)
        self.assertGreater(json.loads(p.stdout)["seconds"], 0)

    def test_a_bad_rate_is_never_used(self):
        path = os.path.join(self.tmp, "numalab", "rates")
        self.assertEqual(numalab(self.tmp, "rates").returncode, 0)
        for bad in ("inf", "nan", "0", "-1"):
            with open(path) as f:
                lines = [l for l in f if not l.startswith("inc_ns=")]
            with open(path, "w") as f:
                f.writelines(lines + ["inc_ns=%s\n" % bad])
            p = numalab(self.tmp, "estimate", "--json", "false_sharing",
                        "threads=1")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("held a rate that is not a positive finite "
                          "number: ignored, measured again", p.stderr, bad)
            doc = json.loads(p.stdout)
            self.assertEqual(doc["rates"], "calibrated", bad)
            self.assertGreater(doc["seconds"], 0)
            with open(path) as f:
                inc = [l for l in f if l.startswith("inc_ns=")]
            self.assertGreater(float(inc[0].split("=")[1]), 0, bad)
            p = numalab(self.tmp, "estimate", "false_sharing", "threads=1")
            self.assertEqual(p.stderr, "")
            self.assertNotIn("inf", p.stdout)
            self.assertIn("(rates: cached)", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
