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


if __name__ == "__main__":
    unittest.main(verbosity=2)
