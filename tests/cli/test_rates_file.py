#!/usr/bin/env python3
"""test_rates_file.py - `numalab rates` and estimates under a topology file.

A file's cpus are not this machine's: its rates are never measured on
them nor written over this machine's cache; this machine's rates stand in,
and the output and an estimate's basis say so. A folder at the cache's
path is never removed by --refresh. Stdlib only; NUMALAB_BIN names the
binary.
"""

import json
import os
import subprocess
import tempfile
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TIMEOUT = 120
FILE = os.path.join(DATA, "four_socket.xml")


class RatesUnderFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = os.path.join(self.tmp.name, "numalab", "rates")

    def tearDown(self):
        self.tmp.cleanup()

    def numalab(self, *args, xml=None, expect=0):
        env = dict(os.environ, XDG_CACHE_HOME=self.tmp.name)
        env.pop("HWLOC_SYNTHETIC", None)
        env.pop("HWLOC_XMLFILE", None)
        if xml:
            env["HWLOC_XMLFILE"] = xml
        p = subprocess.run([BIN, *args], capture_output=True, text=True,
                           timeout=TIMEOUT, env=env)
        self.assertEqual(p.returncode, expect, p.stderr[-2000:])
        return p

    def test_file_stands_in_and_writes_nothing(self):
        out = self.numalab("rates", xml=FILE).stdout
        self.assertIn("measured on this machine, standing in for "
                      "HWLOC_XMLFILE " + FILE, out)
        self.assertFalse(os.path.exists(self.cache))
        # this machine's own cache, then read (not overwritten) under a file
        self.numalab("rates")
        with open(self.cache) as f:
            before = f.read()
        out = self.numalab("rates", xml=FILE).stdout
        self.assertTrue(out.startswith("rates (cached)"), out)
        with open(self.cache) as f:
            self.assertEqual(f.read(), before)
        est = json.loads(self.numalab("estimate", "--json", "false_sharing",
                                      xml=FILE).stdout)
        self.assertTrue(est["basis"].startswith(
            "this machine's rates, not the topology's"), est["basis"])
        with open(self.cache) as f:
            self.assertEqual(f.read(), before)

    def test_refresh_under_file_refused(self):
        p = self.numalab("rates", "--refresh", xml=FILE, expect=2)
        self.assertIn("not this system", p.stderr)
        self.assertFalse(os.path.exists(self.cache))

    def test_refresh_leaves_a_folder(self):
        os.makedirs(self.cache)
        # keeping the rates is the command's work: not done, it fails
        p = self.numalab("rates", "--refresh", expect=1)
        self.assertIn("not saved", p.stdout)
        self.assertIn("not saved in %s: Is a directory" % self.cache, p.stderr)
        self.assertTrue(os.path.isdir(self.cache))

    def test_here_says_measured_here(self):
        est = json.loads(self.numalab("estimate", "--json",
                                      "false_sharing").stdout)
        self.assertTrue(est["basis"].startswith("the rates measured here"),
                        est["basis"])


if __name__ == "__main__":
    unittest.main()
