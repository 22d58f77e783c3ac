#!/usr/bin/env python3
"""test_echo.py - a bad argument's control characters never reach the terminal.

Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
# clears the screen, sets the title, rings, CSI as one UTF-8 character
NASTY = "\x1b[2J\x1b]0;owned\x07\u009b31m\x7f"


def stderr_of(*args):
    p = subprocess.run([BIN, *args], capture_output=True, timeout=60)
    return p.returncode, p.stderr.decode("utf-8", "replace")


class EchoTest(unittest.TestCase):
    def assertClean(self, rc, err):
        self.assertEqual(rc, 2, err)
        body = err.rstrip("\n")
        self.assertTrue(body, "no message at all")
        for ch in body:
            self.assertFalse(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f, repr(err))
        self.assertIn("\\x1b[2J", err)

    def test_bad_arguments_are_shown_not_run(self):
        for args in ((NASTY,), ("run", NASTY), ("run", "false_sharing", NASTY + "=1"),
                     ("run", "false_sharing", "threads=" + NASTY), ("run", "--" + NASTY),
                     ("list", "--" + NASTY), ("topology", "--" + NASTY),
                     ("serve", "--" + NASTY), ("serve", "--listen", NASTY),
                     ("serve", "--max-queue", NASTY),
                     ("fleet", "run", "false_sharing", "--engine", "clush",
                      "--nodes", "a", "--server", "http://" + NASTY)):
            self.assertClean(*stderr_of(*args))


if __name__ == "__main__":
    unittest.main(verbosity=2)
