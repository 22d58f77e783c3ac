#!/usr/bin/env python3
"""test_usage.py - what each command's argv may hold: its options before or
after NAME, and a bad request named and refused with exit status 2, never
dropped or read as something else.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import json
import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")


def numalab(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=120)


class Estimate(unittest.TestCase):
    def test_an_unknown_option_is_named(self):
        for args in (("--ndjson", "false_sharing"),
                     ("false_sharing", "threads=1", "--ndjson")):
            p = numalab("estimate", *args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("numalab estimate: unknown option '--ndjson' "
                          "(options: --json, --help)", p.stderr)
            self.assertEqual(p.stdout, "")

    def test_options_after_name_as_run_takes_them(self):
        p = numalab("estimate", "false_sharing", "threads=1", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["experiment"], "false_sharing")
        p = numalab("estimate", "false_sharing", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("usage: numalab estimate "),
                        p.stdout)
        self.assertIn("--json  the estimate as a JSON object", p.stdout)

    def test_which_experiment(self):
        p = numalab("estimate")
        self.assertEqual(p.returncode, 2)
        self.assertIn("which experiment?", p.stderr)
        p = numalab("estimate", "--json")
        self.assertEqual(p.returncode, 2)
        self.assertIn("which experiment?", p.stderr)


class OnceEach(unittest.TestCase):
    """An option given twice, or two that exclude each other, is refused
    before anything runs: the last one never silently wins."""

    def assertRefused(self, args, said):
        p = numalab(*args)
        self.assertEqual(p.returncode, 2, (args, p.stderr))
        self.assertIn(said, p.stderr, args)
        self.assertEqual(p.stdout, "", args)

    def test_run(self):
        self.assertRefused(("run", "--json", "--ndjson", "false_sharing"),
                           "numalab run: give --json or --ndjson, not both")
        self.assertRefused(("run", "--ndjson", "false_sharing", "--json"),
                           "numalab run: give --ndjson or --json, not both")
        self.assertRefused(("run", "--max-seconds", "1", "--max-seconds=2",
                            "false_sharing"),
                           "numalab run: '--max-seconds' is given twice")
        self.assertRefused(("run", "--json", "false_sharing", "--json"),
                           "numalab run: '--json' is given twice")

    def test_estimate(self):
        self.assertRefused(("estimate", "--json", "false_sharing", "--json"),
                           "numalab estimate: '--json' is given twice")

    def test_fleet_run(self):
        self.assertRefused(("fleet", "run", "false_sharing", "--engine",
                            "slurm", "--engine", "clush"),
                           "numalab fleet: '--engine' is given twice")

    def test_serve(self):
        # refused before the store is opened: no file is made
        for args, name in ((("--db", "a.db", "--db", "b.db"), "--db"),
                           (("--listen=127.0.0.1:0", "--listen",
                             "127.0.0.1:1"), "--listen"),
                           (("--public-read", "--public-read"),
                            "--public-read"),
                           (("--fleet", "slurm", "--fleet=clush"),
                            "--fleet")):
            self.assertRefused(("serve", *args),
                               "numalab serve: '%s' is given twice" % name)
        self.assertFalse(os.path.exists("a.db") or os.path.exists("b.db"))
        # --allowed-host is the one serve takes again: the bad listen
        # address is what stops this one
        self.assertRefused(("serve", "--allowed-host", "a.example",
                            "--allowed-host=b.example", "--listen", "x"),
                           "numalab serve: bad listen address 'x'")

    def test_list_and_topology_take_no_word(self):
        for cmd in ("list", "topology"):
            self.assertRefused((cmd, "--json", "extra"),
                               "numalab %s: unexpected argument 'extra' "
                               "(options: --json)" % cmd)
            self.assertRefused((cmd, "extra"), "unexpected argument 'extra'")
            self.assertRefused((cmd, "--json", "--json"),
                               "numalab %s: '--json' is given twice" % cmd)
            self.assertRefused((cmd, "-x"),
                               "numalab %s: unknown option '-x'" % cmd)

    def test_once_each_still_runs(self):
        p = numalab("run", "--max-seconds", "5", "false_sharing", "--json",
                    "threads=1", "increments=1000", "repeat=1", "warmup=0",
                    "budget=0")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["status"], "done")
        for cmd in ("list", "topology"):
            p = numalab(cmd, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            json.loads(p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
