#!/usr/bin/env python3
"""test_table.py - what `numalab run` shows a person: the closing table
(one row per point, heatmaps as matrices, one line per thing this machine
cannot show, the verdict last), the article's figures beside the points, a
progress line only on a terminal, and `run NAME --help`'s param table.

Asserts layout and wording, never a time. Stdlib only; NUMALAB_BIN names
the binary (default build/numalab).
"""

import json
import os
import pty
import subprocess
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300


def table(name, *kv, stderr=subprocess.PIPE):
    p = subprocess.run([BIN, "run", name, *kv], stdout=subprocess.PIPE,
                       stderr=stderr, timeout=TIMEOUT)
    if p.returncode != 0:
        raise AssertionError("%s %s: exit %d\nstderr: %s" %
                             (name, " ".join(kv), p.returncode,
                              (p.stderr or b"")[-2000:]))
    return p.stdout.decode(), (p.stderr or b"").decode()


def run_json(name, *kv):
    p = subprocess.run([BIN, "run", "--json", name, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT, check=True)
    return json.loads(p.stdout)


def schema(name):
    out = subprocess.run([BIN, "list", "--json"], capture_output=True,
                         text=True, timeout=TIMEOUT, check=True).stdout
    exps = json.loads(out)
    exps = exps if isinstance(exps, list) else exps["experiments"]
    return [e for e in exps if e["name"] == name][0]


def skip_loudly(test, why):
    print("\nSKIP %s: %s" % (test.id().split(".")[-1], why), flush=True)
    raise unittest.SkipTest(why)


class ClosingTable(unittest.TestCase):
    def test_one_row_per_point_then_the_verdict(self):
        out, _ = table("false_sharing", "threads=1", "increments=10000",
                       "stride=4", "repeat=3", "warmup=0")
        lines = out.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["series"]]
        self.assertTrue(head, out)
        self.assertIn("median", lines[head[0]])
        self.assertIn("spread", lines[head[0]])
        self.assertIn("unit", lines[head[0]])
        rows = [l.split() for l in lines if l.startswith("  separate ") or
                l.startswith("  shared ")]
        # time: separate and shared; overhead: shared
        self.assertEqual(len(rows), 3, out)
        for r in rows:
            self.assertEqual(r[1], "1")
        verdict = [i for i, l in enumerate(lines) if l.startswith("verdict: ")]
        self.assertEqual(len(verdict), 1, out)
        self.assertGreater(verdict[0], head[-1])
        self.assertEqual(verdict[0], len(lines) - 1)

    def test_article_figures_beside_the_points(self):
        out, _ = table("false_sharing", "threads=1", "increments=10000",
                       "repeat=2", "warmup=0")
        art = [l for l in out.splitlines() if "article 2007" in l]
        self.assertEqual(len(art), 3, out)
        self.assertTrue(all("not measured here" in l for l in art))
        self.assertTrue(any(l.split()[-5:-4] == ["%"] or " 390 " in l
                            for l in art), art)

    def test_atomics_per_increment(self):
        out, _ = table("atomic_increment", "threads=1", "variants=cas",
                       "increments=1000", "repeat=1", "warmup=0")
        rows = [l for l in out.splitlines() if "article 2007: cas" in l]
        self.assertEqual(len(rows), 1, out)
        self.assertIn("per increment", rows[0])
        # 0.73 s / 4e6 = 182.5 ns, said in three digits as a person reads it
        self.assertIn(" 182 ", rows[0])
        self.assertIn("ns", rows[0].split())
        self.assertIn("0.73 s / 4000000 increments", rows[0])

    def test_matrix_as_matrix(self):
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            skip_loudly(self, "a matrix of round trips needs 2 cpus; this "
                        "process may use only %s" % cpus)
        use = cpus[:2]
        out, _ = table("core_to_core", "cpus=%d,%d" % tuple(use),
                       "samples=20", "round_trips=50", "warmup=0")
        lines = out.splitlines()
        i = [k for k, l in enumerate(lines) if l.startswith("  rows: ")][0]
        header, r0, r1 = lines[i + 1], lines[i + 2], lines[i + 3]
        self.assertIn("cpu%d" % use[0], header)
        self.assertIn("cpu%d" % use[1], header)
        self.assertTrue(r0.strip().startswith("cpu%d" % use[0]), out)
        self.assertTrue(r1.strip().startswith("cpu%d" % use[1]), out)
        # the diagonal has no value; the other cell has one
        self.assertEqual(r0.split()[-2:][0], "-", r0)
        self.assertEqual(r1.split()[-1], "-", r1)
        self.assertIn("-: same cpu", out)

    def test_what_one_node_cannot_show_is_one_line(self):
        if schema("remote_bandwidth").get("limited") is None:
            skip_loudly(self, "this machine has the nodes remote_bandwidth "
                        "needs: nothing to leave out")
        out, _ = table("remote_bandwidth", "size=2M", "ops=write,read",
                       "kinds=regular,nontemporal", "mixed=no", "repeat=1",
                       "warmup=0")
        needs = [l for l in out.splitlines()
                 if "needs 2 nodes" in l and not l.startswith("verdict: ")]
        self.assertEqual(len(needs), 1, out)
        self.assertIn("not shown on this machine", out)
        self.assertRegex(needs[0], r"\d+ cells left out \(write_regular, "
                         r"write_nontemporal, read\)")


class Progress(unittest.TestCase):
    def test_piped_stderr_gets_no_progress_line(self):
        _, err = table("false_sharing", "threads=1", "increments=1000",
                       "repeat=1", "warmup=0")
        self.assertNotIn("\r", err)

    def test_terminal_gets_one_line_drawn_again(self):
        master, slave = pty.openpty()
        try:
            table("false_sharing", "threads=1", "increments=1000",
                  "stride=4,8", "repeat=1", "warmup=0", stderr=slave)
            os.close(slave)
            slave = -1
            got = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the writer is gone
                    break
                if not chunk:
                    break
                got += chunk
        finally:
            if slave >= 0:
                os.close(slave)
            os.close(master)
        text = got.decode()
        self.assertIn("\r", text)
        self.assertIn("%]", text)
        # drawn in place: the progress never starts a new line
        self.assertNotIn("%]", "".join(l for l in text.split("\r")
                                       if "\n" in l))


class Help(unittest.TestCase):
    def test_whole_param_table(self):
        for name in ("false_sharing", "remote_bandwidth"):
            out = subprocess.run([BIN, "run", name, "--help"],
                                 capture_output=True, text=True,
                                 timeout=TIMEOUT, check=True).stdout
            self.assertRegex(out, r"name +type +default +allowed +unit")
            for p in schema(name)["params"]:
                # a row starts at column 2; help text at column 6
                row = [l.split() for l in out.splitlines()
                       if l.startswith("  %s " % p["name"])]
                self.assertEqual(len(row), 1, (name, p["name"], out))
                self.assertEqual(row[0][1], p["type"])
                self.assertEqual(row[0][2], p["default"] or "''")
                self.assertIn(p["help"].split()[0], out)
            self.assertIn("parameters every experiment takes", out)

    def test_params_by_part(self):
        # a part's own params (struct part .reads) stand under its name
        out = subprocess.run([BIN, "run", "remote_bandwidth", "--help"],
                             capture_output=True, text=True,
                             timeout=TIMEOUT, check=True).stdout
        tables = {t.split("\n")[0]: t for t in out.split("\n\n")}
        mixed = tables.get("parameters the part 'mixed' alone reads", "")
        self.assertRegex(mixed, r"\n  mixed +enum ", out)
        self.assertNotRegex(tables["parameters of remote_bandwidth"],
                            r"\n  mixed ")


class JsonReferences(unittest.TestCase):
    def test_references_on_comparable_terms(self):
        doc = run_json("atomic_increment", "threads=1", "variants=fetch_add",
                       "increments=1000", "repeat=1", "warmup=0")
        refs = doc["references"]
        for r in refs:
            self.assertEqual(set(r) - {"ops"}, {"chart", "series", "x",
                                                "x_label", "y", "unit",
                                                "normalised"})
        per = {r["series"]: r for r in refs if r["normalised"]}
        # the article's fetch_add (returns the old value): 0.21 s for
        # 1M increments by each of 4 threads
        r = per["article 2007: fetch_add (returns the old value), per increment"]
        self.assertEqual((r["chart"], r["x"], r["unit"]), ("ns", 4, "ns"))
        self.assertAlmostEqual(r["y"], 52.5)
        totals = [r for r in refs if "ops" in r]
        self.assertEqual(len(totals), 3)
        self.assertTrue(all(t["ops"] == 4e6 and t["chart"] == "time"
                            for t in totals))
        fs = run_json("false_sharing", "threads=1", "increments=1000",
                      "repeat=1", "warmup=0")["references"]
        self.assertEqual([(r["x"], r["y"]) for r in fs],
                         [(2, 390), (3, 734), (4, 1147)])


if __name__ == "__main__":
    unittest.main(verbosity=2)
