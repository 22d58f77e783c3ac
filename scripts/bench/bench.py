#!/usr/bin/env python3
"""bench.py - `make bench`: numalab side by side with the tools people use today.

Each comparison alternates its sides (A B A B ...): at least BENCH_MIN_PAIRS
pairs (3; bandwidth 2), more only while the per-pair ratios spread over
more than half the gap to the line being judged, up to BENCH_MAX_PAIRS (8),
and never past the section's time budget (common.py BUDGET_S; a row left
without time is printed as 'skip'). A figure is the median over the pairs
with its [min-max], a ratio the median of the per-pair ratios (bandwidth,
harness overhead and the pointer chase: the best run of each side, one
more than 25% past the side's next best passed over, and A/B best over
best, with the per-pair ratios' [min-max] as its spread). Prints
a progress line per row on stderr, then the machine, one table and the
notes; writes the whole run (every raw value) as JSON under the output
folder. Exits 1 only when a comparison could not be run; a row whose
counterpart does not exist here (no AVX-512, one node) says why and is not
a failure.

usage: bench.py --build DIR --out DIR [SECTION ...]
sections: bandwidth overhead latency chase throughput fanout phones c2c scale estimate (default: all)
environment: BENCH_QUICK (1: fewer rows, smaller sizes, fewer pairs, under
2 minutes), BENCH_MIN_PAIRS, BENCH_MAX_PAIRS, BENCH_BUDGET_<SECTION> (s),
BENCH_WRK_SECONDS (2), BENCH_LATENCY_SAMPLES (6000), BENCH_FANOUT
(1,100,1000,10000: subscriber counts), BENCH_BW_ROWS (bandwidth rows whose
name contains one of these ';'-separated texts; all)
"""

import argparse
import asyncio
import contextlib
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import machine  # noqa: E402
import sse  # noqa: E402
from common import Failure, Unavailable, summary, ratios, sh  # noqa: E402

from common import MIN_PAIRS, MAX_PAIRS  # noqa: E402

NOISY = 1.3
SECTIONS = ["bandwidth", "overhead", "latency", "chase", "throughput", "fanout", "phones", "c2c",
            "scale", "estimate"]
TITLES = {
    "bandwidth": ("1 bandwidth: A = numalab's kernels (bw_kernel through bw_measure), B = likwid-bench, "
                  "both over their threads' time on their cpus; GB/s"),
    "overhead": "2 harness overhead: the kernel's own figure through the CLI and the server (A) vs the kernel alone (B)",
    "latency": "3 latency to the browser: a sample written by the worker -> read by a loopback SSE client (A), or straight from the worker's pipe (B, the floor); ms",
    "chase": "3b pointer chase: numalab memory_latency (A) vs a multichase-style chase in tests/bench (B); ns per load",
    "throughput": "4 server throughput: wrk on numalab (A) vs the smallest libmicrohttpd server with the same body (B); requests/s",
    "fanout": "5 fan-out: one run streamed to N SSE subscribers (A) vs the same run with none (B)",
    "phones": "5b a class of phones: each following the class and guessing once during the run (A) vs no phone (B)",
    "c2c": "6 core-to-core round trip: numalab core_to_core (A) vs TSC ping-pong in tests/bench (B); ns",
    "scale": "7 time to answer on machines we do not have: the plans' pair (cell) counts times one pair (cell) timed here; s",
    "estimate": "8 run-time estimate from this machine's rates (A) over the run's wall time in the worker the server starts (B); goal 0.5-2x",
}


class Bench:
    def __init__(self, build, out):
        self.build = build
        self.exe = os.path.join(build, "numalab")
        self.tools = os.path.join(build, "tests", "bench")
        self.out = out
        self.work = os.path.join(out, "work")
        os.makedirs(self.work, exist_ok=True)
        self.rows = []
        self.failures = []
        self.notes = []
        self.raw = {}
        self.timing = {}
        self.machine = machine.describe(self.exe)
        self.ncpus = self.machine["cpus_allowed"]
        self.cpus = sorted(os.sched_getaffinity(0))
        self.schema = self._schema()

    # --- helpers -----------------------------------------------------------

    def _schema(self):
        try:
            p = sh([self.exe, "list", "--json"], timeout=60)
            return {e["name"]: e for e in json.loads(p.stdout)}
        except (Failure, ValueError):
            return {}

    def need_experiment(self, name, params=()):
        e = self.schema.get(name)
        if not e:
            raise Failure("this build has no experiment '%s' (numalab list: %s)"
                          % (name, ", ".join(sorted(self.schema)) or "nothing"))
        have = {p["name"] for p in e.get("params", [])}
        missing = [p for p in params if p not in have]
        if missing:
            raise Failure("experiment '%s' has no param %s (it has: %s)"
                          % (name, ", ".join(missing), ", ".join(sorted(have))))
        return e

    def tool(self, name):
        path = os.path.join(self.tools, name)
        if not os.path.exists(path):
            raise Failure("%s is not built (make bench-tools)" % path)
        return path

    def row(self, section, what, a=None, b=None, unit="", ratio=None,
            goal="", meets="n/a", note="", a_label="", b_label="", fmt="%.2f"):
        # a verdict on a ratio whose pairs disagree by more than NOISY is
        # marked "?": the machine was too noisy to judge that row here
        if (ratio and ratio.get("n", 0) > 1 and ratio["min"] and meets in ("yes", "no", "BUG", "TIMING")
                and ratio["max"] / ratio["min"] > NOISY):
            meets += "?"
            note = (note + "; " if note else "") + (
                "per-pair ratios %.2f-%.2f: too noisy here to judge (pairs disagree by more "
                "than %.0f%%)" % (ratio["min"], ratio["max"], 100 * (NOISY - 1)))
        r = {"section": section, "what": what, "a": a, "b": b, "unit": unit,
             "ratio": ratio, "goal": goal, "meets": meets, "note": note,
             "a_label": a_label, "b_label": b_label, "fmt": fmt}
        self.rows.append(r)
        return r

    # --- the clock: a budget per section, pairs while they disagree --------

    def begin(self, section):
        self.section = section
        self.t_section = time.monotonic()
        self.budget = common.budget_s(section)
        self.section_rows = 0

    def elapsed(self):
        return time.monotonic() - self.t_section

    def out_of_time(self):
        return self.elapsed() >= self.budget

    def progress(self, what, k=None, n=None, done=False):
        """One line per row on stderr: section, row, pair k of n, elapsed /
        budget. On a terminal the line is rewritten at each pair and kept
        when the row is done; otherwise only the finished row is printed."""
        tty = sys.stderr.isatty()
        if not done and not tty:
            return
        pair = "" if k is None else ", pair %d of %s" % (k, n)
        line = "  %s %d: %s%s  [%.0f / %.0f s]" % (self.section, self.section_rows + 1,
                                                 what, pair, self.elapsed(), self.budget)
        if tty:
            line = "\r\033[K" + line[:max(20, shutil.get_terminal_size().columns - 1)]
        sys.stderr.write(line + ("\n" if done or not tty else ""))
        sys.stderr.flush()
        if done:
            self.section_rows += 1

    def ab_pairs(self, what, step, ratio, lines=(), min_pairs=None, max_pairs=None,
                 share_s=None):
        """Runs step() once per A/B pair: at least min_pairs, then more only
        while ratio() (a summary of the per-pair ratios so far, or a list of
        them when a pair feeds several rows) is not settled on the lines it
        is judged against, up to max_pairs, and never past the section's
        budget. With share_s, pairs past min_pairs stop once the row has
        taken that many seconds (its share of what is left), so the rows
        after it still get theirs. Returns (pairs run, why it stopped:
        'settled', 'max', 'share' or 'budget'); the first pair runs even
        with the budget spent."""
        lo = common.MIN_PAIRS if min_pairs is None else min_pairs
        hi = max(lo, common.MAX_PAIRS if max_pairs is None else max_pairs)
        k, why = 0, "max"
        t0 = time.monotonic()
        while k < hi:
            if k >= lo:
                rs = ratio()
                rs = rs if isinstance(rs, list) else [rs]
                if all(common.settled(r, lines) for r in rs):
                    why = "settled"
                    break
                if share_s is not None and time.monotonic() - t0 >= share_s:
                    why = "share"
                    break
            # a pair that would end past the budget is not started, but a
            # row's first two (or min_pairs) always are: no row is dropped
            # or left with one pair for the budget
            if k >= max(2, lo) and (self.out_of_time() or
                                    self.elapsed() + (time.monotonic() - t0) / k
                                    > self.budget):
                why = "budget"
                break
            k += 1
            self.progress(what, k, "%d" % lo if lo == hi else "%d-%d" % (lo, hi))
            step()
        self.progress("%s: %d pair%s (%s)" % (what, k, "" if k == 1 else "s", why),
                      done=True)
        return k, why

    def pairs_note(self, k, why):
        """The note a row gets when its pairs stopped for the budget."""
        if why == "budget":
            return ("only %d pair%s: the %s section's budget of %.0f s ran out"
                    % (k, "" if k == 1 else "s", self.section, self.budget))
        return ""

    def skipped(self, section, what):
        """A row the section's budget left no time for: shown, not hidden."""
        self.row(section, what, meets="skip",
                 note="not measured: the %s section's budget of %.0f s ran out after %.0f s"
                 % (section, self.budget, self.elapsed()))
        self.progress("%s: skipped (budget spent)" % what, done=True)

    def fail(self, section, what, why):
        self.failures.append({"section": section, "what": what, "why": str(why)})
        self.row(section, what, meets="FAIL", note="could not run: %s" % why)

    def unavailable(self, section, what, why, a=None, unit="", a_label=""):
        self.row(section, what, a=a, unit=unit, a_label=a_label, meets="n/a",
                 note="no counterpart here: %s" % why)

    def last_cpu(self):
        return str(self.cpus[-1])

    def pin_self(self, cpus):
        old = os.sched_getaffinity(0)
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass
        return old

    # --- the kernel three ways, and a run through the server ---------------

    def run_cli(self, experiment, params, timeout=300, env=None):
        p = sh([self.exe, "run", "--json", experiment] + common.kv(params),
               timeout=timeout, env=env)
        try:
            return json.loads(p.stdout)
        except ValueError as e:
            raise Failure("`numalab run --json %s` printed no JSON document: %s"
                          % (experiment, e))

    def run_alone(self, experiment, params, timeout=300):
        p = sh([self.tool("kernel_alone"), experiment] + common.kv(params),
               timeout=timeout)
        return common.parse_kernel_alone(p.stdout)

    def blocker_params(self):
        """A run that holds the queue until it is cancelled."""
        # ~10 ms rounds (a cancel is seen at the end of a round), ~10 s in all
        return {"threads": "1", "layout": "separate", "increments": "20000000",
                "repeat": "1000", "warmup": "0", "cpus": str(self.cpus[0])}

    def run_served(self, srv, experiment, params, nsubs=1, keep=(),
                   measure_cpu=False, timeout=300, watch_cpu=None):
        """One run streamed to nsubs subscribers: (subscribers, doc, info)."""
        return self.run_batch(srv, [(experiment, params)], nsubs, keep,
                              measure_cpu, timeout, watch_cpu)[0]

    def run_batch(self, srv, runs, nsubs=1, keep=(), measure_cpu=False,
                  timeout=300, watch_cpu=None):
        """Queues runs (a list of (experiment, params)) behind a blocker
        run, connects nsubs subscribers to each, cancels the blocker once
        every subscriber is connected, and waits for them all: so no
        subscriber misses the start of its run. Returns one (subscribers,
        run document, info) per run, in order. With measure_cpu, info's
        "cpu" holds the server's CPU from the run's start event to its end;
        with watch_cpu, the last run's "watched" says where that CPU's time
        went while its worker ran (/proc/stat shares, common.RunWindow) and
        "worker_cpu" the worker's CPU time over that window."""
        blocker = srv.submit("false_sharing", self.blocker_params())
        ids = [srv.submit(e, p) for e, p in runs]
        infos = [{"run_id": rid, "subscribers": nsubs} for rid in ids]

        def hook_for(info, marks):
            # the server's own CPU while the worker's kernel runs: from the
            # worker's start to its end event, as the first subscriber sees them
            def hook(typ, now):
                if typ in ("start", "end") and typ not in marks:
                    marks[typ] = (now, common.proc_cpu_ticks(srv.pid),
                                  common.proc_sched_ns(srv.pid))
            return hook

        async def main():
            loop = asyncio.get_running_loop()
            # connects a few hundred at a time: ten thousand SYNs at once
            # overflow the listen queue and the kernel retries them after 1 s
            gate = asyncio.Semaphore(256)
            per_run, futs, tasks, marks = [], [], [], []
            for rid, info in zip(ids, infos):
                mk = {}
                marks.append(mk)
                subs = [sse.Subscriber(common.HOST, srv.port,
                                       "/api/runs/%d/events" % rid,
                                       keep if i == 0 else (),
                                       hook_for(info, mk) if i == 0 and measure_cpu else None,
                                       source=sse.source_address(i), gate=gate)
                        for i in range(nsubs)]
                per_run.append(subs)
                for sub in subs:
                    f = loop.create_future()
                    futs.append(f)
                    tasks.append(asyncio.ensure_future(sub.run(f)))
            t0 = time.monotonic_ns()
            if futs:
                await asyncio.wait_for(asyncio.gather(*futs), 120)
            t_all = time.monotonic_ns()
            connected = sum(1 for f in futs if f.result())
            # cancel the blocker in a thread: its DELETE waits for the worker
            await loop.run_in_executor(None, srv.cancel, blocker)
            if tasks:
                await asyncio.wait_for(asyncio.gather(*tasks), timeout)
            for subs, info, mk in zip(per_run, infos, marks):
                info["connect_s"] = (t_all - t0) / 1e9
                info["connected"] = connected
                info["all_connected_before_start"] = all(
                    s.t_first is None or s.t_first >= t_all for s in subs)
                if "start" in mk and "end" in mk:
                    (a0, k0, n0), (a1, k1, n1) = mk["start"], mk["end"]
                    info["cpu"] = {"wall_s": (a1 - a0) / 1e9, "ticks": k1 - k0,
                                   "sched_s": (n1 - n0) / 1e9
                                   if n0 is not None and n1 is not None else None}
            return per_run

        # where watch_cpu's time went while the (last) run's worker ran
        window = common.RunWindow(srv.pid, watch_cpu) if watch_cpu is not None else None
        with window or contextlib.nullcontext():
            if nsubs == 0:
                srv.cancel(blocker)
                per_run = [[] for _ in ids]
            else:
                per_run = asyncio.run(main())
            out = [(subs, srv.wait_done(rid, timeout), info)
                   for subs, rid, info in zip(per_run, ids, infos)]
        if window:
            infos[-1]["watched"], infos[-1]["worker_cpu"] = window.shares()
        return out


# --- the table -------------------------------------------------------------

def fmt_fig(s, fmt, unit):
    if common.center(s) is None:
        return "-"
    f = fmt % common.center(s)
    if s["n"] > 1 and s["min"] != s["max"]:
        f += " [%s-%s]" % (fmt % s["min"], fmt % s["max"])
    return f + ((" " + unit) if unit else "")


def fmt_ratio(s):
    if common.center(s) is None:
        return "-"
    f = "%.3f" % common.center(s)
    if s["n"] > 1:
        f += " [%.2f-%.2f]" % (s["min"], s["max"])
    return f


def verdicts(rows):
    """One line: how many rows met their goal, missed it, or could not be
    judged here ('?': pairs too far apart; 'skip': the budget ran out)."""
    skips = sum(1 for r in rows if r["meets"] == "skip")
    judged = [r["meets"] for r in rows if r["meets"] not in ("n/a", "", "skip")]
    sure = [m for m in judged if not m.endswith("?")]
    return ("goals: %d met, %d missed (%d of them below the bug line), %d too noisy to judge, "
            "%d could not run; %d rows not measured (budget spent); %d rows have no goal"
            % (sure.count("yes"), sure.count("no") + sure.count("BUG") + sure.count("TIMING"),
               sure.count("BUG"),
               sum(1 for m in judged if m.endswith("?")), judged.count("FAIL"), skips,
               len(rows) - len(judged) - skips))


def table_lines(b, markdown=False):
    out = []
    cols = ["#", "comparison", "A", "B", "A/B", "goal", "meets"]
    rows = []
    n = 0
    for sec in SECTIONS:
        rs = [r for r in b.rows if r["section"] == sec]
        if not rs:
            continue
        rows.append(("section", TITLES[sec]))
        for r in rs:
            n += 1
            r["n"] = n
            a = fmt_fig(r["a"], r["fmt"], r["unit"])
            bb = fmt_fig(r["b"], r["fmt"], r["unit"])
            if r["a_label"] and r["a"]:
                a = "%s %s" % (r["a_label"], a)
            if r["b_label"] and r["b"]:
                bb = "%s %s" % (r["b_label"], bb)
            rows.append(("row", [str(n), r["what"], a, bb, fmt_ratio(r["ratio"]),
                                 r["goal"] or "-", r["meets"]]))
    if markdown:
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "|".join("---" for _ in cols) + "|")
        for kind, r in rows:
            if kind == "section":
                out.append("| | **%s** | | | | | |" % r)
            else:
                out.append("| " + " | ".join(c.replace("|", "/") for c in r) + " |")
        return out
    widths = [len(c) for c in cols]
    for kind, r in rows:
        if kind == "row":
            widths = [max(w, len(c)) for w, c in zip(widths, r)]
    line = "  ".join("%-*s" % (w, c) for w, c in zip(widths, cols))
    out.append(line)
    out.append("-" * len(line))
    for kind, r in rows:
        if kind == "section":
            out.append(r)
        else:
            out.append("  ".join("%-*s" % (w, c) for w, c in zip(widths, r)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--check", action="store_true",
                    help="the bench's own check: run beside a process spinning on the "
                    "first CPU, and exit 1 when a bandwidth row reads above the "
                    "ceiling over likwid-bench or a row was skipped by a budget")
    ap.add_argument("sections", nargs="*")
    args = ap.parse_args()
    want = args.sections or SECTIONS
    for s in want:
        if s not in SECTIONS:
            print("bench: unknown section '%s' (sections: %s)" % (s, " ".join(SECTIONS)),
                  file=sys.stderr)
            return 2
    # ten thousand subscribers need ten thousand sockets, here and in the
    # server (which inherits the limit)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want_fds = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft < want_fds:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want_fds, hard))

    import sections  # noqa: E402
    b = Bench(args.build, args.out)
    spinner = None
    if args.check:
        # a neighbour that never sleeps, on the cpu every row's thread 0 uses
        spinner = subprocess.Popen([sys.executable, "-c",
                                    "import os\nos.sched_setaffinity(0, {%d})\n"
                                    "while True:\n    pass" % b.cpus[0]])
    try:
        return run(args, b, want)
    finally:
        if spinner:
            spinner.kill()
            spinner.wait()


def run(args, b, want):
    """Runs the sections in want, prints the table and writes the JSON."""
    import sections  # noqa: E402
    started = time.time()
    budget = sum(common.budget_s(s) for s in want)
    if common.QUICK:
        print("QUICK RUN (make bench QUICK=1): fewer rows, smaller sizes and fewer pairs; "
              "a look before a commit, not the figures to quote")
    print(machine.headline(b.machine))
    print("method: sides alternating A B A B, %d-%d pairs per comparison (more only while "
          "the per-pair ratios spread over more than half the gap being judged), a budget "
          "per section (%.0f s in all); a figure is the median "
          "over pairs [min-max], A/B the median of the per-pair ratios [min-max] (bandwidth and "
          "harness overhead and the pointer chase: "
          "the best run of each side (one more than 25%% past the next passed over), A/B best over best); a verdict with '?' had pairs "
          "disagreeing by more than %.0f%%"
          % (MIN_PAIRS, MAX_PAIRS, budget, 100 * (NOISY - 1)))
    sys.stdout.flush()
    for s in SECTIONS:
        if s not in want:
            continue
        t0 = time.time()
        b.begin(s)
        print("... %s (budget %.0f s)" % (s, b.budget), file=sys.stderr, flush=True)
        try:
            getattr(sections, s)(b)
        except Unavailable as e:
            b.unavailable(s, s, e)
        except Failure as e:
            b.fail(s, s, e)
        except Exception as e:  # a bug in the bench is a comparison not run
            b.fail(s, s, "%s: %s" % (type(e).__name__, e))
            import traceback
            traceback.print_exc()
        b.timing[s] = round(time.time() - t0, 1)
        print("    %s took %.0f s of its %.0f" % (s, b.timing[s], b.budget),
              file=sys.stderr, flush=True)

    print()
    if common.QUICK:
        print("QUICK RUN: fewer rows, smaller sizes, %d-%d pairs" % (MIN_PAIRS, MAX_PAIRS))
    for ln in table_lines(b):
        print(ln)
    notes = [(r["n"], r["note"]) for r in b.rows if r.get("note")]
    if notes or b.notes:
        print()
        print("notes:")
        for n, t in notes:
            print("  %2d. %s" % (n, t))
        for t in b.notes:
            print("   - %s" % t)
    print()
    print(verdicts(b.rows))
    took = time.time() - started
    print("took %.0f s (%s)" % (took, ", ".join("%s %.0f s" % kv for kv in b.timing.items())))

    stamp = time.strftime("%Y%m%d-%H%M%S")
    doc = {"machine": b.machine, "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)),
           "seconds": round(took, 1), "quick": common.QUICK,
           "pairs": {"min": MIN_PAIRS, "max": MAX_PAIRS},
           "budgets_s": {s: common.budget_s(s) for s in want}, "sections": want,
           "rows": b.rows,
           "failures": b.failures, "notes": b.notes, "raw": b.raw, "timing": b.timing}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "bench-%s.json" % stamp)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    shutil.copyfile(path, os.path.join(args.out, "latest.json"))
    with open(os.path.join(args.out, "table.md"), "w") as f:
        if common.QUICK:
            f.write("QUICK RUN: fewer rows, smaller sizes, %d-%d pairs\n\n" % (MIN_PAIRS, MAX_PAIRS))
        f.write("\n".join(table_lines(b, markdown=True)) + "\n")
    print("written: %s (and latest.json, table.md)" % path)
    if b.failures:
        print("bench: %d comparison(s) could not be run:" % len(b.failures), file=sys.stderr)
        for f in b.failures:
            print("  %s: %s" % (f["what"], f["why"]), file=sys.stderr)
        return 1
    if args.check:
        return check(b.rows)
    return 0


def check(rows):
    """The bench's own check: beside a spinner, no bandwidth row above
    sections.BW_CEILING over likwid-bench and no row skipped by a budget.
    Returns 0, or 1 after naming each row that broke it."""
    bad = [r for r in rows if r["meets"].startswith("TIMING") or r["meets"] == "skip"]
    for r in bad:
        print("bench check: row %s, %s: %s" % (r.get("n", "?"), r["what"],
                                               "skipped by the budget" if r["meets"] == "skip"
                                               else "above the ceiling over likwid-bench"),
              file=sys.stderr)
    print("bench check: %s beside a spinner: %d of %d rows broke it (a bandwidth row "
          "above the ceiling over likwid-bench, or a row skipped by a budget)"
          % ("failed" if bad else "passed", len(bad), len(rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
