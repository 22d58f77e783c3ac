#!/usr/bin/env python3
"""test_fit.py - what a person typing at a terminal meets: a guess for a
mistyped command or value, tables and notes fitted to the terminal's width
(COLUMNS), a run's header without empty or other-mode parameters.

Stdlib only; NUMALAB_BIN names the binary.
"""

import os
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300


def numalab(*args, columns=None):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


class Suggestions(unittest.TestCase):
    def test_command(self):
        p = numalab("serv")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown command 'serv': did you mean 'serve'?",
                      p.stderr)
        self.assertIn("commands: serve, run, list", p.stderr)
        # nothing near: no guess, the list still
        p = numalab("xyzzy")
        self.assertNotIn("did you mean", p.stderr)
        self.assertIn("commands: serve", p.stderr)

    def test_enum_value(self):
        p = numalab("run", "memory_latency", "mode=node")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("unknown mode 'node': did you mean 'nodes'? "
                      "(allowed: nodes, sizes, loaded)", p.stderr)
        p = numalab("estimate", "memory_latency", "mode=size")
        self.assertIn("did you mean 'sizes'?", p.stderr)

    def test_set_value(self):
        p = numalab("run", "atomic_increment", "variants=fetch_ad")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("did you mean 'fetch_add'?", p.stderr)


class Width(unittest.TestCase):
    def test_list_fits_columns(self):
        for cols in (60, 80, 120):
            out = numalab("list", columns=cols).stdout
            lines = out.splitlines()
            self.assertTrue(lines, out)
            self.assertTrue(all(len(l) <= cols for l in lines),
                            "\n".join(l for l in lines if len(l) > cols))
        # every experiment still starts its own line
        names = [l.split()[0] for l in numalab("list", columns=80)
                 .stdout.splitlines() if l and not l.startswith(" ")]
        self.assertIn("false_sharing", names)
        self.assertIn("memory_latency", names)

    def test_pipe_gets_whole_lines(self):
        out = numalab("list").stdout.splitlines()
        self.assertFalse(any(l.startswith(" ") for l in out), out)

    def test_run_notes_fit(self):
        p = numalab("run", "memory_latency", "mode=nodes", "size=2M",
                    "loads=4096", "repeat=1", "warmup=0", "budget=0",
                    columns=72)
        self.assertEqual(p.returncode, 0, p.stderr)
        notes = p.stdout.split("\nnotes\n")[1].split("\nverdict")[0]
        self.assertTrue(all(len(l) <= 72 for l in notes.splitlines()),
                        notes)


class Header(unittest.TestCase):
    def test_no_empty_or_other_mode_params(self):
        p = numalab("run", "memory_latency", "mode=sizes", "size=1M",
                    "loads=4096", "repeat=1", "warmup=0", "budget=0")
        self.assertEqual(p.returncode, 0, p.stderr)
        head = p.stdout.splitlines()[1]
        self.assertIn("mode=sizes", head)
        self.assertNotRegex(head, r"\w= ", head)
        for other in ("nodes=", "cells=", "loaders=", "load="):
            self.assertNotIn(" " + other, " " + head, head)


if __name__ == "__main__":
    unittest.main()
