#!/usr/bin/env python3
"""test_messages.py - what a refusal or a usage line says: what was wrong,
what is allowed, in the words of what the program does.

Stdlib only; NUMALAB_BIN names the binary.
"""

import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 60


def numalab(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT)


class Refusals(unittest.TestCase):
    def test_thread_count_says_the_machine(self):
        n = len(os.sched_getaffinity(0))
        p = numalab("run", "false_sharing", "threads=0")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("0 is out of range (allowed 1-1024)", p.stderr)
        self.assertIn("; this process may use %d cpu%s here (" %
                      (n, "" if n == 1 else "s"), p.stderr)


class Usage(unittest.TestCase):
    def test_fleet_names_deliver(self):
        for args, rc in ((("fleet",), 2), (("fleet", "--help"), 0)):
            p = numalab(*args)
            self.assertEqual(p.returncode, rc, p.stderr)
            out = p.stdout + p.stderr
            self.assertIn("numalab fleet deliver DIR", out.split("\n\n")[0])
        self.assertIn("fleet deliver DIR", numalab().stderr +
                      numalab("--help").stdout)

    def test_run_help_names_max_seconds(self):
        p = numalab("run", "false_sharing", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith(
            "usage: numalab run [--json|--ndjson] [--max-seconds N] "
            "false_sharing [k=v ...]\n"), p.stdout[:200])


if __name__ == "__main__":
    unittest.main(verbosity=2)
