#!/usr/bin/env python3
"""test_fleet_args.py - what `numalab fleet run` refuses before any job
starts: a parameter value no machine takes, one given twice, a campaign
directory that is a file or holds another campaign's files, a store that
cannot be opened (and then it leaves no directory behind). The clush
engine's exec worker runs the one node here. Stdlib only; NUMALAB_BIN
names the binary (default build/numalab)."""

import os
import shutil
import subprocess
import tempfile
import unittest

BIN = os.path.abspath(os.environ.get("NUMALAB_BIN", "build/numalab"))
TINY = ["threads=1", "increments=1000", "repeat=1", "warmup=0", "budget=0"]
HERE = ["--engine", "clush", "--clush-worker", "exec", "--nodes", "a",
        "--numalab", BIN]


class FleetArgsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-fleet-args-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fleet(self, *args):
        p = subprocess.run([BIN, "fleet", "run", "false_sharing", *args],
                           capture_output=True, text=True, timeout=120,
                           cwd=self.tmp)
        return p.returncode, p.stdout, p.stderr

    def test_values_no_machine_takes(self):
        for bad, why in (("threads=0", "out of range"),
                         ("threads=1-2:9x", "threads"),
                         ("layout=sideways", "layout")):
            with self.subTest(bad=bad):
                rc, out, err = self.fleet(bad, *HERE, "--plan")
                self.assertEqual(rc, 2, err)
                self.assertIn(why, err)
        rc, out, err = self.fleet("threads=1", "threads=2", *HERE, "--plan")
        self.assertEqual(rc, 2, err)
        self.assertIn("'threads' is given twice", err)
        # a value a node may take is the node's to judge
        rc, out, err = self.fleet("threads=512", *HERE, "--plan")
        self.assertEqual(rc, 0, err)

    def test_a_bad_server_url_is_refused_before_anything_starts(self):
        for url, why in (("http://[::1", "the IPv6 address's '[' is not closed"),
                         ("http://[::1]:0", "port 0 is out of range (1-65535)"),
                         ("http://lab:70000", "port 70000 is out of range (1-65535)"),
                         ("http://:8080", "no host"),
                         ("http://", "no host"),
                         ("ftp://lab", "its scheme 'ftp' is not http or https"),
                         ("http://lab:", "the port after ':' is empty"),
                         ("http://lab/x?y=1", "a query or fragment")):
            with self.subTest(url=url):
                d = os.path.join(self.tmp, "c")
                rc, out, err = self.fleet(*TINY, *HERE, "--dir", d, "--server", url)
                self.assertEqual(rc, 2, err)
                self.assertIn("numalab fleet: bad --server '%s': %s" % (url, why), err)
                self.assertIn("(give http://HOST[:PORT] or https://HOST[:PORT]", err)
                self.assertEqual(out, "")
                self.assertFalse(os.path.exists(d), "a campaign directory was made")
        for url in ("http://[::1]:8080", "https://lab.example.org:8443/numalab/",
                    "http://127.0.0.1", "http://lab-01"):
            with self.subTest(url=url):
                rc, out, err = self.fleet(*HERE, "--server", url, "--plan")
                self.assertEqual(rc, 0, err)
                self.assertIn("plan: false_sharing", out)

    def test_a_campaign_never_writes_over_files(self):
        afile = os.path.join(self.tmp, "afile")
        with open(afile, "w") as f:
            f.write("mine\n")
        full = os.path.join(self.tmp, "full")
        os.mkdir(full)
        with open(os.path.join(full, "campaign.json"), "w") as f:
            f.write("{}\n")
        for d in (afile, full):
            with self.subTest(dir=d):
                rc, out, err = self.fleet(*TINY, *HERE, "--dir", d)
                self.assertEqual(rc, 2, err)
                self.assertIn("not an empty directory", err)
                self.assertNotIn("campaign ", out)
        with open(afile) as f:
            self.assertEqual(f.read(), "mine\n")
        self.assertEqual(os.listdir(full), ["campaign.json"])
        # an empty one is taken
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        rc, out, err = self.fleet(*TINY, *HERE, "--dir", empty)
        self.assertEqual(rc, 0, err)
        self.assertIn("1 of 1 node done", out)
        self.assertIn("campaign.json", os.listdir(empty))

    def test_a_store_that_cannot_be_opened_leaves_nothing(self):
        afile = os.path.join(self.tmp, "not-a-db")
        with open(afile, "w") as f:
            f.write("mine\n")
        rc, out, err = self.fleet(*TINY, *HERE, "--db", afile)
        self.assertEqual(rc, 1, err)
        self.assertIn("not a SQLite file", err)
        self.assertEqual(out, "")
        self.assertEqual(os.listdir(os.path.join(self.tmp, "numalab-campaigns")), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
