#!/usr/bin/env python3
"""test_experiments.py - false_sharing, atomic_increment, core_to_core and
cache_sharing through `numalab run --json`, with small params.

Checks what the runs must show on any machine: lost updates only where
the increment is not atomic, one matrix cell per ordered pair of CPUs,
placements that hold what they promise, or the run's data saying which
were skipped and why (cache_sharing on captured shapes, tests/data). No
test asserts a time. Tests that need 2 CPUs say SKIP, loudly, on 1.
Stdlib only; NUMALAB_BIN names the binary (default build/numalab).
"""

import json
import os
import subprocess
import sys
import unittest

BIN = os.environ.get("NUMALAB_BIN", "build/numalab")
TIMEOUT = 300  # a hung run fails instead of hanging the lane
ATOMIC = ["add_fetch", "fetch_add", "cas", "c11_relaxed", "c11_seq_cst",
          "lock_skip", "per_thread"]


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def run(name, *kv, expect=0):
    p = subprocess.run([BIN, "run", "--json", name, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT)
    if p.returncode != expect:
        raise AssertionError("%s %s: exit %d, want %d\nstderr: %s" %
                             (name, " ".join(kv), p.returncode, expect,
                              p.stderr[-2000:]))
    return json.loads(p.stdout) if expect == 0 else p


def samples(doc, chart, series=None):
    return [s for s in doc["samples"] if s["chart"] == chart and
            (series is None or s["series"] == series)]


def notes(doc, level=None):
    return [n["text"] for n in doc["notes"]
            if level is None or n["level"] == level]


def skip_loudly(test, why):
    print("\nSKIP %s: %s" % (test.id().split(".")[-1], why), flush=True)
    raise unittest.SkipTest(why)


class AtomicIncrement(unittest.TestCase):
    def test_plain_loses_updates_and_atomics_do_not(self):
        if len(allowed_cpus()) < 2:
            skip_loudly(self, "lost updates need 2 cpus running at once; "
                        "this process may use only %s" % allowed_cpus())
        # 2 x 2M increments overlap for milliseconds: enough for two cores
        # to collide many times; a busy machine gets two more tries, longer
        for incs in (2000000, 8000000, 32000000):
            doc = run("atomic_increment", "threads=2", "increments=%d" % incs,
                      "repeat=3", "warmup=0")
            plain = samples(doc, "lost", "plain")
            self.assertEqual(len(plain), 1)
            if max(plain[0]["samples"]) > 0:
                break
        self.assertEqual(doc["status"], "done")
        expected = 2 * incs
        extra = samples(doc, "ns", "plain")[0]["extra"]
        if max(plain[0]["samples"]) == 0 and extra["overlap"] < 0.5:
            skip_loudly(self, "the 2 threads never ran at the same time "
                        "(overlap %.0f%%: other processes hold the cpus), so "
                        "plain could not lose updates" %
                        (100 * extra["overlap"]))
        self.assertGreater(max(plain[0]["samples"]), 0,
                           "plain lost no update in 3 rounds of 2 x %d" % incs)
        self.assertEqual(extra["expected"], expected)
        self.assertGreater(extra["lost_updates_max"], 0)
        self.assertEqual(extra["lost_updates_max"], max(plain[0]["samples"]))
        self.assertTrue(any("plain, 2 threads" in t and "lost" in t
                            for t in notes(doc)))
        arch_note = [t for t in notes(doc, "warn")
                     if "not available on this architecture" in t]
        for v in ATOMIC:
            got = samples(doc, "lost", v)
            if v == "lock_skip" and arch_note:
                self.assertEqual(got, [])
                self.assertIn("not available on this architecture",
                              arch_note[0])
                continue
            self.assertEqual(len(got), 1, v)
            # repeat is the least rounds: more may follow (budget)
            self.assertGreaterEqual(len(got[0]["samples"]), 3, v)
            self.assertEqual(set(got[0]["samples"]), {0.0}, v)
            self.assertEqual(got[0]["extra"]["final"], expected, v)
        cas = samples(doc, "ns", "cas")[0]
        self.assertIn("cas_retries", cas["extra"])
        self.assertIn("cas_over_fetch_add_2_threads", doc["summary"])
        self.assertIn("cas", doc["headline"])

    def test_each_threads_share_of_the_increments(self):
        if len(allowed_cpus()) < 2:
            skip_loudly(self, "a share between threads needs 2 cpus; this "
                        "process may use only %s" % allowed_cpus())
        # 2 x 2M increments: 122 chunks of 16384 a thread, enough for
        # the stretch all were in their loops to hold each one's share
        doc = run("atomic_increment", "threads=1-2",
                  "variants=fetch_add,per_thread", "increments=2000000",
                  "repeat=3", "warmup=0")
        for v in ("fetch_add", "per_thread"):
            one = [s for s in samples(doc, "ns", v) if s["x"] == 1][0]
            self.assertNotIn("share_most", one["extra"], v)
            two = [s for s in samples(doc, "ns", v) if s["x"] == 2][0]
            extra = two["extra"]
            if "share_most" not in extra:
                skip_loudly(self, "%s's 2 threads were never in their loops "
                            "together long enough to share (overlap %.0f%%:"
                            " other processes hold the cpus)" %
                            (v, 100 * extra["overlap"]))
            most, least = extra["share_most"], extra["share_least"]
            self.assertTrue(0 <= least <= 0.5 <= most <= 1, extra)
            # medians over the same rounds of a two-thread team
            self.assertAlmostEqual(most + least, 1, delta=0.05)
        # too few increments to tell a share from the chunks' ends
        doc = run("atomic_increment", "threads=2", "variants=fetch_add",
                  "increments=1000", "repeat=2", "warmup=0")
        self.assertNotIn("share_most", samples(doc, "ns")[0]["extra"])

    def test_one_thread_loses_nothing(self):
        doc = run("atomic_increment", "threads=1", "variants=plain,cas",
                  "increments=100000", "repeat=2", "warmup=0")
        for v in ("plain", "cas"):
            got = samples(doc, "lost", v)[0]["samples"]
            self.assertGreaterEqual(len(got), 2, v)
            self.assertEqual(set(got), {0.0}, v)
        self.assertEqual(samples(doc, "ns", "cas")[0]["extra"]["cas_retries"], 0)

    def test_a_short_loop_never_gets_more_than_a_cpu(self):
        # loops of microseconds (once "324% of a cpu"): a share of a cpu
        # is a number from 0 to 1, or left out where the clocks cannot
        # tell; no note says more than all of a cpu
        import re
        threads = "1-2" if len(allowed_cpus()) >= 2 else "1"
        for incs in ("1", "1000"):
            doc = run("atomic_increment", "threads=" + threads,
                      "increments=" + incs,
                      "variants=fetch_add,cas,plain", "repeat=3", "warmup=0",
                      "budget=0")
            for s in samples(doc, "ns"):
                share = s["extra"].get("cpu_share")
                if share is not None:
                    self.assertTrue(0 <= share <= 1, (incs, s))
            for text in notes(doc):
                for pct in re.findall(r"(\d+(?:\.\d+)?)% of a cpu", text) + \
                        re.findall(r"kept its cpu \((\d+(?:\.\d+)?)%", text):
                    self.assertLessEqual(float(pct), 100, text)

    def test_ratio_carries_its_interval(self):
        # one thread needs no second cpu: cas and fetch_add in turns, and
        # the verdict's interval of their ratio beside it in the summary
        # and the table
        kv = ("atomic_increment", "threads=1", "variants=fetch_add,cas",
              "increments=100000", "repeat=3", "warmup=0")
        doc = run(*kv)
        s = doc["summary"]["cas_over_fetch_add_1_threads"]
        self.assertLessEqual(s["lo"], s["value"])
        self.assertLessEqual(s["value"], s["hi"])
        # a value the verdict states no interval for carries none
        self.assertNotIn("lo", doc["summary"]["ns_per_increment_cas_1_threads"])
        p = subprocess.run([BIN, "run", *kv], capture_output=True, text=True,
                           timeout=TIMEOUT, check=True)
        line = [l for l in p.stdout.splitlines()
                if l.strip().startswith("CAS over fetch-and-add, 1 thread")]
        self.assertEqual(len(line), 1, p.stdout)
        # the interval, then any mark of the verdict's (on one cpu: the
        # contention it stands for could not be shown)
        self.assertRegex(line[0], r" × \([0-9.]+–[0-9.]+\)(  \(.+\))?$")

    def test_article_reference_is_labelled(self):
        out = subprocess.run([BIN, "list", "--json"], capture_output=True,
                             text=True, timeout=TIMEOUT, check=True).stdout
        exps = json.loads(out)
        exps = exps if isinstance(exps, list) else exps["experiments"]
        exp = [e for e in exps if e["name"] == "atomic_increment"][0]
        ref = {r["series"]: (r["chart"], r["x"], r["y"]) for r in exp["references"]}
        # figure 6.12 numbers add_fetch 1 and fetch_add 2, the table lists
        # 0.23 | 0.21 | 0.73 in that order, and the text says returning the
        # old value is a little faster: fetch_add 0.21 s, add_fetch 0.23 s
        self.assertEqual(ref, {
            "article 2007: fetch_add (returns the old value)": ("time", 4, 0.21),
            "article 2007: add_fetch (returns the new value)": ("time", 4, 0.23),
            "article 2007: cas": ("time", 4, 0.73)})
        doc = run("atomic_increment", "threads=1", "variants=fetch_add",
                  "increments=1000", "repeat=1", "warmup=0")
        # the note takes the article's words from the references
        self.assertTrue(any(t.startswith("reference, from the article (not measured "
                                         "here): fetch_add 0.21 s")
                            and "cas 0.73 s: cas 3.5× the fetch_add" in t
                            for t in notes(doc, "info")), notes(doc, "info"))
        # the machine's own points never carry the article's label
        for s in doc["samples"]:
            self.assertNotIn("article", s["series"])

    def test_bad_params(self):
        p = run("atomic_increment", "variants=plain,bogus", expect=2)
        self.assertIn("unknown variants 'bogus'", p.stderr)
        p = run("atomic_increment", "threads=%d" % (len(allowed_cpus()) + 1),
                expect=2)
        self.assertRegex(p.stderr, r"(cpu is|cpus are) available")


class CoreToCore(unittest.TestCase):
    def test_a_sample_past_the_matrix_says_so(self):
        if len(allowed_cpus()) < 2:
            skip_loudly(self, "a pair needs 2 cpus; this process may use only %s" % allowed_cpus())
        use = allowed_cpus()[:2]
        doc = run("core_to_core", "cpus=%d,%d" % tuple(use), "pairs=sample:100",
                  "round_trips=100", "samples=3")
        self.assertTrue(any("pairs=sample:100 asked for more pairs than the 2 ordered pairs"
                            in n.get("text", "") for n in doc["notes"]), doc["notes"])
        p = run("core_to_core", "pairs=sample:2147483648", expect=2)
        self.assertIn("from 1 to 2147483647", p.stderr)

    def test_one_cell_per_ordered_pair(self):
        cpus = allowed_cpus()
        if len(cpus) < 2:
            skip_loudly(self, "a round trip needs 2 cpus; this process may "
                        "use only %s" % cpus)
        use = cpus[:3]  # at most 9 cells, whatever the machine
        doc = run("core_to_core", "cpus=" + ",".join(map(str, use)),
                  "samples=5", "round_trips=200", "warmup=0")
        self.assertEqual(doc["status"], "done")
        cells = doc["cells"]
        n = len(use)
        self.assertEqual(len(cells), n * n)
        self.assertEqual(sorted((c["row"], c["col"]) for c in cells),
                         [(r, c) for r in range(n) for c in range(n)])
        for c in cells:
            self.assertEqual(c["chart"], "latency")
            self.assertTrue(c["row_label"].startswith("cpu%d · core " % use[c["row"]]),
                            c["row_label"])
            if c["row"] == c["col"]:
                self.assertIsNone(c["value"])
                self.assertEqual(c["note"], "same cpu")
            else:
                self.assertGreater(c["value"], 0)
                self.assertEqual(len(c["samples"]), 5)
        self.assertTrue(doc["headline"])
        self.assertTrue(any(k.startswith("round_trip_ns_") for k in doc["summary"]))

    def test_pairs_plans(self):
        cpus = allowed_cpus()
        if len(cpus) < 2:
            skip_loudly(self, "a round trip needs 2 cpus; this process may "
                        "use only %s" % cpus)
        use = cpus[:3]
        n = len(use)
        # the default is resolved from the machine and recorded
        doc = run("core_to_core", "cpus=" + ",".join(map(str, use)),
                  "samples=3", "round_trips=100", "warmup=0")
        self.assertEqual(doc["params"]["pairs"],
                         "all" if len(cpus) <= 16 else "by_relation")
        # sample:1 measures one pair; every other cell but the diagonal is absent
        doc = run("core_to_core", "cpus=" + ",".join(map(str, use)),
                  "pairs=sample:01", "samples=3", "round_trips=100", "warmup=0")
        self.assertEqual(doc["params"]["pairs"], "sample:1")
        valued = [c for c in doc["cells"] if c["value"] is not None]
        self.assertEqual(len(valued), 1)
        self.assertEqual(len(doc["cells"]), n + 1)
        self.assertTrue(all(c["note"] == "same cpu" for c in doc["cells"]
                            if c["value"] is None))
        # by_relation: a bar per relation, its median, least and most
        doc = run("core_to_core", "cpus=" + ",".join(map(str, use)),
                  "pairs=by_relation", "samples=3", "round_trips=100",
                  "warmup=0")
        bars = samples(doc, "by_relation")
        self.assertTrue(bars)
        for b in bars:
            self.assertLessEqual(len(b["samples"]), 3)
        keys = [k for k in doc["summary"] if k.startswith("round_trip_ns_")]
        medians = [k for k in keys if not k.endswith(("_min", "_max"))]
        self.assertEqual(len(medians), len(bars))
        for k in medians:
            self.assertLessEqual(doc["summary"][k + "_min"]["value"],
                                 doc["summary"][k]["value"])
            self.assertGreaterEqual(doc["summary"][k + "_max"]["value"],
                                    doc["summary"][k]["value"])
        p = run("core_to_core", "pairs=sample:0", expect=2)
        self.assertIn("'sample:0' is not a pair count", p.stderr)
        p = run("core_to_core", "pairs=some", expect=2)
        self.assertIn("unknown pairs 'some' (allowed: all, by_relation, "
                      "sample:N)", p.stderr)

    def test_needs_two_cpus(self):
        p = run("core_to_core", "cpus=%d" % allowed_cpus()[0], expect=2)
        self.assertIn("needs 2 cpus", p.stderr)
        if len(allowed_cpus()) < 2:
            doc = run("core_to_core", "samples=2", "round_trips=10")
            self.assertTrue(any("needs 2 cpus" in t for t in notes(doc, "warn")))


DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
PLACEMENTS = ("shared", "split", "os", "separate_data")


def run_on(shape, name, *kv):
    """A run on a captured topology (tests/data/SHAPE.xml), pinned to its
    cpus: the shapes used here have cpus 0 and 1 only."""
    env = dict(os.environ, HWLOC_XMLFILE=os.path.join(DATA, shape + ".xml"))
    p = subprocess.run([BIN, "run", "--json", name, *kv], capture_output=True,
                       text=True, timeout=TIMEOUT, env=env)
    if p.returncode != 0:
        raise AssertionError("%s on %s: exit %d\nstderr: %s" %
                             (name, shape, p.returncode, p.stderr[-2000:]))
    return json.loads(p.stdout)


def skipped(doc):
    """What the run says it did not run, and why: data, not its sentences."""
    return {n["skipped"]: n["why"] for n in doc["notes"] if "skipped" in n}


def need_cpus_0_1(test):
    if not {0, 1} <= set(allowed_cpus()):
        skip_loudly(test, "the captured 2-cpu shapes pin to cpus 0 and 1; "
                    "this process may use only %s" % allowed_cpus())


class CacheSharing(unittest.TestCase):
    # shape -> (placements that run, placements skipped): the fallback of a
    # machine with one L3 for both cpus (this VM's shape) and of one with an
    # L3 per core (the shape numalab was first written on)
    SHAPES = {
        "shared_l3": ({"shared", "os", "separate_data"}, {"split"}),
        "l3_per_core": ({"split", "os"}, {"shared", "separate_data"}),
    }

    def check_ran_and_skipped(self, doc, ran, skip):
        self.assertEqual(doc["status"], "done")
        placed = {p["label"] for p in doc["placement"]}
        measured = {s["x_label"] for s in samples(doc, "time")}
        said = skipped(doc)
        self.assertEqual(placed, {"placement=" + p for p in ran})
        self.assertEqual(measured, ran)
        self.assertEqual(set(said), {"placement=" + p for p in skip})
        for label, why in said.items():
            self.assertTrue(why.strip(), "%s skipped without a reason" % label)
        # everything asked for either ran or was skipped, never both
        self.assertEqual(ran | skip, set(PLACEMENTS))
        self.assertFalse(ran & skip)

    def test_placements_or_fallback(self):
        need_cpus_0_1(self)
        for shape, (ran, skip) in self.SHAPES.items():
            with self.subTest(shape=shape):
                doc = run_on(shape, "cache_sharing", "working_set=256K",
                             "passes=2", "repeat=2", "warmup=0")
                self.check_ran_and_skipped(doc, ran, skip)
                places = {p["label"]: p["threads"] for p in doc["placement"]}
                if "shared" in ran:
                    for k in range(0, len(places["placement=shared"]), 2):
                        a, b = places["placement=shared"][k:k + 2]
                        self.assertTrue(a["l3"] == b["l3"] != -1 or
                                        a["l2"] == b["l2"] != -1)
                    self.assertIn("separate_over_shared", doc["summary"])
                if "split" in ran:
                    for k in range(0, len(places["placement=split"]), 2):
                        a, b = places["placement=split"][k:k + 2]
                        self.assertNotEqual((a["l2"], a["l3"]),
                                            (b["l2"], b["l3"]))
                self.assertEqual(doc["summary"]["working_set"]["value"],
                                 256 * 1024)

    def test_one_cpu_skips_every_placement(self):
        doc = run_on("one_cpu", "cache_sharing", "passes=1", "repeat=1",
                     "warmup=0")
        self.assertEqual(doc["placement"], [])
        self.assertEqual(set(skipped(doc)),
                         {"placement=" + p for p in PLACEMENTS})

    def test_working_set_from_topology(self):
        need_cpus_0_1(self)
        # 3/4 of the one 32 MiB L3 a pair shares; no shared cache: 8 MiB
        for shape, ws in (("shared_l3", 24 << 20), ("l3_per_core", 8 << 20)):
            with self.subTest(shape=shape):
                doc = run_on(shape, "cache_sharing", "placements=os",
                             "passes=1", "repeat=1", "warmup=0")
                self.assertEqual(doc["summary"]["working_set"]["value"], ws)
                self.assertEqual(doc["params"]["working_set"], "0")

    def test_bad_working_set(self):
        p = run("cache_sharing", "working_set=100", expect=2)
        self.assertIn("working_set 100 is too small", p.stderr)


class FalseSharing(unittest.TestCase):
    def test_each_threads_share_of_the_increments(self):
        if len(allowed_cpus()) < 2:
            skip_loudly(self, "shares need 2 threads on 2 cpus; this "
                        "process may use only %s" % allowed_cpus())
        # rounds of milliseconds: the partner is in the round long before
        # thread 0 is through, so the window of a round is not empty
        doc = run("false_sharing", "threads=1-2", "increments=20000000",
                  "repeat=3", "warmup=0")
        two = [s for s in samples(doc, "time") if s["x"] == 2]
        self.assertEqual(len(two), 2, two)
        shared = [s for s in two if "share_thread_0" in s["extra"]]
        self.assertTrue(shared, two)
        for s in shared:
            got = [s["extra"]["share_thread_%d" % t] for t in range(2)]
            self.assertTrue(all(0 <= x <= 1 for x in got), got)
            self.assertAlmostEqual(sum(got), 1, delta=0.02)
        # one thread has no one to share with
        one = [s for s in samples(doc, "time") if s["x"] == 1]
        self.assertFalse(any("share_thread_0" in s["extra"] for s in one))

    def test_thread_i_takes_the_i_th_cpu_listed(self):
        cpus = allowed_cpus()
        if len(cpus) < 2:
            skip_loudly(self, "two cpus to list; this process may use only %s" % cpus)
        order = [cpus[1], cpus[0]]
        doc = run("false_sharing", "threads=2", "layout=separate",
                  "cpus=%d,%d" % tuple(order), "increments=1000", "repeat=1",
                  "warmup=0", "budget=0")
        self.assertEqual(doc["params"]["cpus"], "%d,%d" % tuple(order))
        placed = [t["cpu"] for t in doc["placement"][0]["threads"]]
        self.assertEqual(placed, order, doc["placement"][0])


class Listed(unittest.TestCase):
    def test_list(self):
        out = subprocess.run([BIN, "list"], capture_output=True, text=True,
                             timeout=TIMEOUT, check=True).stdout
        for name in ("atomic_increment", "core_to_core", "cache_sharing"):
            self.assertIn(name, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
