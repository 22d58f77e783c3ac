#!/usr/bin/env python3
"""test_output_lost.py - output that cannot be written is an error: every
command run with stdout on /dev/full says so on stderr and exits non-zero,
never 0 as if its table or document had been written.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab), the
worker is found beside it.
"""

import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
WORKER = os.path.join(os.path.dirname(os.path.realpath(BIN)), "numalab-worker")
TINY = ["false_sharing", "threads=1", "increments=1000", "repeat=1",
        "warmup=0", "budget=0"]


def to_full(prog, *args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([prog, *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    return p.returncode, p.stderr


@unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full here")
class OutputLost(unittest.TestCase):
    def assertSaid(self, prog, *args):
        rc, err = to_full(prog, *args)
        self.assertNotEqual(rc, 0, (args, err))
        self.assertIn("cannot write the output: No space left on device",
                      err, args)

    def test_every_command(self):
        for args in (("run", "--json", *TINY), ("run", *TINY),
                     ("run", "--ndjson", *TINY), ("list",), ("list", "--json"),
                     ("topology",), ("topology", "--json"),
                     ("estimate", "--json", "false_sharing", "threads=1"),
                     ("estimate", "false_sharing", "threads=1"),
                     ("run", "false_sharing", "--help"), ("--help",),
                     ("--version",)):
            with self.subTest(args=args):
                self.assertSaid(BIN, *args)

    def test_the_servers_worker(self):
        self.assertSaid(WORKER, "run", "--ndjson", *TINY)

    def test_a_failure_keeps_its_own_status(self):
        # a bad request is still a bad request (2), its output lost or not
        rc, err = to_full(BIN, "run", "--ndjson", "false_sharing", "threads=x")
        self.assertEqual(rc, 2, err)
        self.assertIn("cannot write the output", err)
        rc, err = to_full(BIN, "list", "--nope")
        self.assertEqual(rc, 2, err)
        self.assertNotIn("cannot write", err)

if __name__ == "__main__":
    unittest.main(verbosity=2)
