#!/usr/bin/env python3
"""test_readable.py - what `numalab` prints reads as an engineer reads it:
values in ns/µs/ms/s and MB/s or GB/s with three digits, summary keys by
their descriptor's words and unit, a table with one x pivoted into a column
per series, `list` aligned on the longest name, and the nearest experiment
or param named on a typo.

Asserts layout and wording, never a time. Stdlib only; NUMALAB_BIN names
the binary (default build/numalab).
"""

import json
import os
import re
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300
TIME_UNITS = ("ns", "µs", "ms", "s")
# two thread counts where this process may use two cpus
TWO = len(os.sched_getaffinity(0)) >= 2
THREADS = "threads=1-2" if TWO else "threads=1"


def numalab(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True,
                          timeout=TIMEOUT)


def table(name, *kv):
    p = numalab("run", name, *kv)
    if p.returncode != 0:
        raise AssertionError("%s %s: exit %d\nstderr: %s" %
                             (name, " ".join(kv), p.returncode,
                              p.stderr[-2000:]))
    return p.stdout


def block(out, title_start):
    """The lines of the table whose title starts with title_start."""
    lines = out.splitlines()
    i = [k for k, l in enumerate(lines) if l.startswith(title_start)]
    if not i:
        raise AssertionError("no table '%s' in:\n%s" % (title_start, out))
    rows = []
    for l in lines[i[0]:]:
        if not l.strip():
            break
        rows.append(l)
    return rows


def experiments():
    return json.loads(numalab("list", "--json").stdout)


class Units(unittest.TestCase):
    def test_times_in_a_readable_unit(self):
        out = table("false_sharing", THREADS, "increments=1000",
                    "stride=4", "repeat=1", "warmup=0")
        rows = block(out, "Time per round, while all threads ran")
        if TWO:
            # a column per series, the unit in the title
            unit = re.search(r"\[(.*?)\]", rows[0])
            self.assertTrue(unit, rows[0])
            self.assertIn(unit.group(1), TIME_UNITS, rows[0])
            cells = [c for r in rows[2:] for c in r.split()[1:]]
        else:
            # one thread count: a row per series, its unit last
            self.assertEqual(rows[1].split()[-1], "unit", rows)
            for r in rows[2:]:
                self.assertIn(r.split()[-1], TIME_UNITS, r)
            cells = [r.split()[2] for r in rows[2:]]
        self.assertTrue(cells, rows)
        for c in cells:
            # three digits and no exponent, never "0.0005731"
            self.assertNotIn("e", c, rows)
            self.assertLessEqual(len(c.replace(".", "").lstrip("0")), 4, c)

    def test_article_total_per_operation(self):
        out = table("atomic_increment", "threads=1", "variants=cas",
                    "increments=1000", "repeat=1", "warmup=0")
        art = [l for l in out.splitlines() if "article 2007: cas" in l]
        self.assertEqual(len(art), 1, out)
        # 0.73 s / 4e6 increments = 182.5 ns: three digits
        self.assertRegex(art[0], r"\b182\s+ns\b")

    def test_summary_words_and_units(self):
        out = table("false_sharing", THREADS, "increments=1000",
                    "stride=4", "repeat=1", "warmup=0")
        summary = block(out, "summary")[1:]
        text = "\n".join(summary)
        self.assertIn("slowdown with 1 thread ", text)
        if TWO:
            self.assertIn("slowdown with 2 threads ", text)
        self.assertIn("rounds kept", text)
        self.assertNotIn("slowdown_", text)
        self.assertNotIn("overlap_min", text)
        for l in summary:
            value = l.split("  (")[0]
            # every value has a unit after it
            self.assertRegex(value, r"\d [^\d\s]", l)
        # a marked value keeps the verdict's words after its own
        for l in summary:
            if "(not a valid measurement: " in l or "(at least" in l:
                self.assertTrue(l.startswith("  slowdown with "), l)
                self.assertRegex(l, r"×  \((not a valid measurement|at "
                                 r"least): \S", l)


class Pivot(unittest.TestCase):
    def setUp(self):
        if not TWO:
            self.skipTest("a column per series needs two thread counts, "
                          "and a second needs 2 cpus; this process may use "
                          "only %s" % sorted(os.sched_getaffinity(0)))

    def test_a_column_per_series(self):
        out = table("atomic_increment", "threads=1-2",
                    "variants=cas,fetch_add", "increments=1000",
                    "repeat=1", "warmup=0")
        rows = block(out, "Cost of one increment")
        self.assertIn("(medians)", rows[0])
        head = rows[1]
        self.assertTrue(head.split()[0] == "threads", head)
        # each series a column, by its words
        self.assertIn("compare-and-swap loop", head)
        self.assertIn("__atomic_fetch_add", head)
        body = [r for r in rows[2:] if not r.strip().startswith("article")]
        self.assertEqual([r.split()[0] for r in body], ["1", "2"], rows)
        for r in body:
            self.assertEqual(len(r.split()), 3, r)
        # the columns line up under their headers
        end = len(head.rstrip())
        for r in body:
            self.assertEqual(len(r.rstrip()), end, rows)

    def test_too_wide_shows_names_and_a_legend(self):
        out = table("atomic_increment", "threads=1-2", "increments=1000",
                    "repeat=1", "warmup=0")
        rows = block(out, "Cost of one increment")
        self.assertLessEqual(max(len(r) for r in rows[:4]), 100, rows)
        self.assertIn("c11_seq_cst", rows[1])
        self.assertIn("  c11_seq_cst: C11 atomic, seq_cst", out)
        self.assertEqual(out.count("c11_seq_cst: C11 atomic"), 1, out)

    def test_one_x_stays_a_list(self):
        out = table("false_sharing", "threads=1", "increments=1000",
                    "stride=4", "repeat=1", "warmup=0")
        self.assertNotIn("(medians)", out)
        self.assertTrue(any(l.split()[:1] == ["series"]
                            for l in out.splitlines()), out)


class List(unittest.TestCase):
    def test_columns_align_on_the_longest_name(self):
        out = numalab("list").stdout.splitlines()
        names = [e["name"] for e in experiments()]
        self.assertEqual(len(out), len(names))
        longest = max(len(n) for n in names)
        self.assertGreater(longest, 20, "the longest name here fits the "
                           "old fixed 20 columns: the test shows nothing")
        for l, n in zip(out, names):
            self.assertTrue(l.startswith(n + " "), l)
            # the section starts two columns after the longest name
            self.assertNotEqual(l[longest + 2], " ", l)
            self.assertEqual(l[longest:longest + 2], "  ", l)

    def test_usage_aligned(self):
        out = numalab("--help").stdout
        names = [e["name"] for e in experiments()]
        longest = max(len(n) for n in names)
        rows = [l for l in out.splitlines()
                if l[2:].split(" ")[:1] and l[2:].split(" ")[0] in names]
        self.assertEqual(len(rows), len(names), out)
        for l in rows:
            self.assertEqual(l[2 + longest:4 + longest], "  ", l)
            self.assertNotEqual(l[4 + longest], " ", l)


class Suggestions(unittest.TestCase):
    def test_experiment_typo(self):
        p = numalab("run", "false_shring")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown experiment 'false_shring': did you mean "
                      "'false_sharing'?", p.stderr)
        p = numalab("estimate", "atomic_incremnt")
        self.assertEqual(p.returncode, 2)
        self.assertIn("did you mean 'atomic_increment'?", p.stderr)

    def test_param_typo(self):
        p = numalab("run", "false_sharing", "thraeds=2")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown parameter 'thraeds': did you mean "
                      "'threads'?", p.stderr)
        # the common params are searched too
        p = numalab("run", "false_sharing", "repet=2")
        self.assertIn("did you mean 'repeat'?", p.stderr)

    def test_nothing_near_says_no_guess(self):
        p = numalab("run", "zzzz")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown experiment 'zzzz'", p.stderr)
        self.assertNotIn("did you mean", p.stderr)
        p = numalab("run", "false_sharing", "colour=red")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown parameter 'colour'", p.stderr)
        self.assertNotIn("did you mean", p.stderr)

    def test_a_choice_twice_is_no_typo(self):
        # a choice the param has is never guessed at: no "did you mean
        # 'cas'?" cut into the middle of the message
        for name, kv, word in (("atomic_increment", "variants=cas,cas", "cas"),
                               ("remote_bandwidth", "ops=read,read", "read")):
            p = numalab("estimate", name, kv)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("'%s' is listed twice\n" % word, p.stderr)
            self.assertNotIn("did you mean", p.stderr)
        # a typo of one still gets its guess
        p = numalab("estimate", "atomic_increment", "variants=cas,cs")
        self.assertIn("unknown variants 'cs': did you mean 'cas'?", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
