"""sections.py - the seven comparisons of `make bench`, one function each."""

import glob
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import common
import sse
from common import Failure, Unavailable, summary, ratios, sh, percentile
from common import WRK_SECONDS, LATENCY_SAMPLES
from latency import chase  # noqa: F401  (the pointer chase rows, a section of their own)
from phones import phones  # noqa: F401  (a class of phones, a section of its own)


# --- 1. bandwidth against likwid-bench --------------------------------------

# numalab op -> likwid-bench test stem; byte counts agree: loads + stores
BW_OPS = [("read", "load"), ("write", "store"), ("write_nt", "store_mem"),
          ("copy", "copy")]
BW_ISAS = [("avx2", "_avx", "avx2"), ("avx512f", "_avx512", "avx512f")]


def likwid_tests():
    p = sh(["likwid-bench", "-a"], timeout=60, check=False)
    return {ln.split(" - ")[0].strip() for ln in p.stdout.splitlines() if " - " in ln}


def likwid_run(b, test, ws, threads, volume):
    """One likwid-bench run moving about volume bytes (its iterations: the
    volume over the working set, one pass of it each, at least 10), under
    tests/bench/thread_cpu.so, which reports each worker thread's time on
    its cpu; returns (GB/s over that time, details). likwid's kB is 1000 B."""
    iters = max(10, int(round(volume / ws)))
    cmd = ["likwid-bench", "-t", test, "-w", "N:%dkB:%d" % (ws // 1000, threads),
           "-i", str(iters)]
    log = os.path.join(b.out, "likwid-thread-cpu.%d" % os.getpid())
    if os.path.exists(log):
        os.unlink(log)
    env = dict(os.environ, LD_PRELOAD=b.tool("thread_cpu.so"),
               NUMALAB_BENCH_THREAD_CPU=log)
    p = sh(cmd, timeout=120, env=env)
    try:
        with open(log) as f:
            # (cpu s, wall s from start to end) of each thread that ended
            ran = [(int(c) / 1e9, (int(e) - int(s)) / 1e9) for c, s, e in
                   re.findall(r"thread_cpu_ns (\d+) start_ns (\d+) end_ns (\d+)",
                              f.read())]
        os.unlink(log)
    except OSError:
        ran = []
    cpu = [c for c, _w in ran]
    mbs = common.first_number(r"MByte/s:\s+([0-9.]+)", p.stdout)
    size = common.first_number(r"Size \(Byte\):\s+([0-9]+)", p.stdout)
    vol = common.first_number(r"Data volume \(Byte\):\s+([0-9]+)", p.stdout)
    secs = common.first_number(r"\nTime:\s+([0-9.e+-]+)", p.stdout)
    hw = [int(x) for x in re.findall(r"running on hwthread (\d+)", p.stdout)]
    if mbs is None or vol is None:
        raise Failure("likwid-bench %s printed no MByte/s: %s" % (test, p.stdout[-300:]))
    # its worker threads: the `threads` longest (likwid-bench starts no
    # other thread that does work); the shortest of them counts, since a
    # worker waits at likwid's barriers spinning on its cpu, so one whose
    # partner was preempted counts that wait too
    workers = sorted(ran)[-threads:]
    if len(workers) < threads:
        raise Failure("likwid-bench %s: thread_cpu.so saw %d threads end, not %d"
                      % (test, len(cpu), threads))
    on_cpu = min(c for c, _w in workers)
    # the least share of its life a worker was on its cpu: while one was
    # off it, its partners ran with the memory to themselves (or spun)
    together = min(min(1.0, c / w) if w > 0 else 1.0 for c, w in workers)
    return vol / on_cpu / 1e9, {"size": size, "volume": vol, "seconds": secs,
                                "wall_gbps": mbs / 1000.0, "thread_cpu_s": cpu,
                                "on_cpu_s": on_cpu, "together": together,
                                "iterations": iters,
                                "hwthreads": sorted(set(hw)), "cmd": " ".join(cmd)}


# A run of several likwid-bench workers stands for them all only when each
# was on its cpu for BW_TOGETHER of its life: one that was off it left its
# partner the memory to itself, and that partner's cpu time, the shortest,
# then holds bytes moved alone (2-thread write_nt beside a load of 12 read
# 41-49 GB/s where numalab's stretches, all threads running, read 28-29).
# numalab's rounds leave such time out (the stretches); a likwid run is
# redone instead, up to BW_TOGETHER_TRIES runs a pair, as numalab redoes a
# round whose threads ran apart.
BW_TOGETHER = 0.9
BW_TOGETHER_TRIES = 3


def likwid_together(b, test, ws, threads, volume):
    """likwid_run until its workers ran together (BW_TOGETHER), at most
    BW_TOGETHER_TRIES times: the first such run, else the one nearest to
    it, with "tries" and "ran_together" in its details."""
    best = None
    for k in range(1, BW_TOGETHER_TRIES + 1):
        y, yd = likwid_run(b, test, ws, threads, volume)
        if best is None or yd["together"] > best[1]["together"]:
            best = (y, yd)
        if threads < 2 or yd["together"] >= BW_TOGETHER:
            break
    best[1]["tries"] = k
    best[1]["ran_together"] = threads < 2 or best[1]["together"] >= BW_TOGETHER
    return best


# Both sides are timed the same way: one run of the same bytes (numalab's
# round after a warm-up round, sized to about BW_ROUND_S; likwid-bench with
# as many iterations as move those bytes), each over the time its threads
# were on their cpus: numalab's round over the stretches all its threads
# ran (bw_measure's own timing), likwid-bench's kernel over its worker
# threads' cpu clocks (tests/bench/thread_cpu.so; the shortest of them:
# a worker spins at likwid's barriers while its partner is preempted). Wall time would not do on a
# shared machine: a neighbour takes a different share of each side's
# hundred milliseconds (pairs read 0.42-1.41x), while time on a cpu
# is what the instructions took. One run a side: each likwid-bench process
# spends a fixed second calibrating its timer. Both wall-time figures stay
# in the raw record.
BW_ROUND_S = 0.1


def numalab_bw(b, op, ws, threads, isa):
    """bw_alone's one round of ~BW_ROUND_S after a warm-up: (its GB/s over
    the stretches its threads were on their cpus, details)."""
    env = dict(os.environ, NUMALAB_BW_ISA=isa)
    p = subprocess.run([b.tool("bw_alone"), op, str(threads), str(ws), "1", "1",
                        str(int(BW_ROUND_S * 1000))],
                       capture_output=True, text=True, timeout=120, env=env)
    if p.returncode != 0:
        raise Failure("bw_alone %s %d %d (%s): %s" % (op, threads, ws, isa,
                                                      p.stderr.strip()))
    d = json.loads(p.stdout)
    if d["isa"] != isa:
        raise Failure("bw_alone ran %s, not %s" % (d["isa"], isa))
    if not d["median"]:
        raise Failure("bw_alone %s %d %d (%s): no round was timed" % (op, threads, ws, isa))
    return d["median"], d


def bandwidth(b):
    m = b.machine
    l2 = m["caches"].get("L2", 512 * 1024)
    l3 = m["caches"].get("L3", 0)
    if not shutil_which("likwid-bench"):
        raise Failure("likwid-bench is not installed (scripts/deps.sh bench installs Debian's likwid)")
    tests = likwid_tests()
    threads_list = [1] if b.ncpus == 1 or common.QUICK else [1, b.ncpus]
    # in L2: a quarter of one core's L2 per thread (room for both arrays
    # of a copy); beyond: 8x the last-level cache, at least 256 MiB (quick:
    # 2x, at least 64 MiB)
    big = max(64 << 20, 2 * l3) if common.QUICK else max(256 << 20, 8 * l3)
    sets = [("L2", lambda t: (l2 // 4) * t), ("mem", lambda t: big)]
    b.raw["bandwidth"] = []
    cpu_flags = {"avx2": m["avx2"], "avx512f": m["avx512f"]}
    isas = BW_ISAS
    if common.QUICK:  # the widest the CPU has
        isas = [x for x in BW_ISAS if cpu_flags[x[2]]][-1:] or BW_ISAS[:1]
    rows = []
    for op, stem in BW_OPS:
        for wsname, wsf in sets:
            for threads in threads_list:
                ws = wsf(threads)
                what0 = "%s, %s %s, %d thread%s" % (op, wsname, common.human_bytes(ws),
                                                   threads, "s" if threads > 1 else "")
                for isa, suffix, flag in isas:
                    test = stem + suffix
                    what = "%s, %s" % (what0, isa)
                    if not wanted_row(what):
                        continue
                    if not cpu_flags[flag]:
                        b.unavailable("bandwidth", what, "this CPU has no %s" % isa)
                        continue
                    if test not in tests:
                        b.unavailable("bandwidth", what,
                                      "likwid-bench %s has no kernel '%s'" % (
                                          likwid_version(), test))
                        continue
                    rows.append((op, wsname, ws, threads, isa, test, what))
    # the one-thread rows first: on a machine shared with others, the
    # budget runs out on the 2-thread rows, whose figures move most
    rows.sort(key=lambda x: x[3])
    for i, (op, wsname, ws, threads, isa, test, what) in enumerate(rows):
        # each row's share of what is left: a noisy row takes more pairs
        # only while the rows after it keep theirs; its first BW_MIN_PAIRS
        # run whatever the budget, so no row is dropped
        share = (b.budget - b.elapsed()) / (len(rows) - i)
        a, bb, detail = [], [], []

        def pair():
            # likwid moves the bytes numalab's round moved, both timed
            # over their threads' time on their cpus
            x, xd = numalab_bw(b, op, ws, threads, isa)
            y, yd = likwid_together(b, test, ws, threads, xd["bytes_per_round"])
            a.append(x)
            bb.append(y)
            detail.append({"numalab": xd, "likwid": yd})

        def kept():
            """The pairs whose likwid run stood for all its workers (every
            pair when none did)."""
            ks = [i for i, d in enumerate(detail) if d["likwid"]["ran_together"]]
            return ks or list(range(len(detail)))

        # A/B: each side's best run over the other's, both from as many
        # runs taken in turns; the per-pair ratios stay for their spread.
        # Not their median: on a quiet 2-vCPU VM, adjacent runs of the
        # same loop swing by up to 1.3x, each side on its own (likwid's
        # 2-thread L2 write read 154-206 GB/s in one row's six runs), so a
        # pair's ratio measured those swings more than the two loops
        def pair_ratio():
            ks = kept()
            return common.best_ratio([a[i] for i in ks], [bb[i] for i in ks])

        k, why = b.ab_pairs(what, pair, pair_ratio, BW_LINES,
                            BW_MIN_PAIRS, share_s=share)
        # above the ceiling the likelier cause is another process that
        # slowed likwid's runs: more pairs, whatever the row's share, until
        # best over best says otherwise or BW_CEILING_PAIRS ran
        while k < BW_CEILING_PAIRS and (common.center(pair_ratio()) or 0) > BW_CEILING:
            k += 1
            b.progress(what, k, "up to %d: above %.2fx" % (BW_CEILING_PAIRS, BW_CEILING))
            pair()
            why = "ceiling"
        r = pair_ratio()
        ab = common.center(r)
        # a loop cannot beat the same instructions: above BW_CEILING the
        # two sides were not timed alike, or one was starved
        apart = not any(d["likwid"]["ran_together"] for d in detail)
        meets = ("TIMING" if ab > BW_CEILING else "apart" if apart
                 else "yes" if ab >= 1.0 else ("no" if ab >= 0.95 else "BUG"))
        note = ""
        redone = sum(d["likwid"]["tries"] - 1 for d in detail)
        if meets == "apart":
            note = ("%s: likwid-bench's workers ran apart in all %d of its runs (on their "
                    "cpus for at most %.0f%% of their lives, under %.0f%%): its figure holds "
                    "a worker that had the memory to itself, so the row is not judged"
                    % (what, sum(d["likwid"]["tries"] for d in detail),
                       100 * max(d["likwid"]["together"] for d in detail),
                       100 * BW_TOGETHER))
        elif meets == "TIMING":
            note = ("%s: numalab %s reads %.2fx likwid-bench %s, above the %.2fx no loop "
                    "can beat the same instructions by: the two were not timed alike"
                    % (what, isa, ab, test, BW_CEILING))
        elif meets != "yes":
            note = ("%s: numalab %s reaches %.0f%% of likwid-bench %s%s"
                    % (what, isa, 100 * ab, test,
                       " (below 0.95: a kernel to fix)" if meets == "BUG" else
                       " (within 5%: below the goal, above the bug line)"))
        extra = b.pairs_note(k, why) or (
            "%d pairs (above %.2fx: more pairs, whatever the row's share of the budget)"
            % (k, BW_CEILING) if why == "ceiling" else
            "%d pairs (the first %d spread wider than half the gap)%s"
            % (k, BW_MIN_PAIRS, "; stopped at the row's share of the budget"
               if why == "share" else "") if k > BW_MIN_PAIRS else "")
        if extra:
            note += ("; " if note else "") + extra
        if redone and meets != "apart":
            nk = len(kept())
            note += ("%slikwid-bench ran %d more time%s where its workers ran apart%s"
                     % ("; " if note else "", redone, "" if redone == 1 else "s",
                        "" if nk == len(detail) else
                        "; the row stands on the %d of %d pairs whose likwid run ran "
                        "together" % (nk, len(detail))))
        hw_a = detail[0]["numalab"]["cpus"]
        hw_b = detail[0]["likwid"]["hwthreads"]
        if hw_b and sorted(hw_a) != hw_b:
            note += "%sthe two ran on different CPUs: numalab %s, likwid %s" % (
                "; " if note else "", hw_a, hw_b)
        ka, kb = [a[i] for i in kept()], [bb[i] for i in kept()]
        b.row("bandwidth", what, common.best(ka, True, kb), common.best(kb, True, ka),
              "GB/s", r,
              ">= 1.00 (< 0.95 bug)", meets, note,
              a_label="", b_label=test)
        b.raw["bandwidth"].append({"what": what, "op": op, "isa": isa,
                                   "likwid_test": test, "working_set": ws,
                                   "threads": threads, "numalab_gbps": a,
                                   "likwid_gbps": bb, "pairs": detail, "stopped": why})
    b.notes.append(
        "bandwidth bytes, both sides: bytes loaded + bytes stored by the loop, "
        "nothing for the line fetch (write-allocate) of a regular store; read, "
        "write and write_nt count the buffer once, copy twice (source + destination), "
        "as likwid-bench's 'Data volume' does. The working set is every array of every "
        "thread (likwid's -w N:SIZE:THREADS, with its kB = 1000 B); numalab: "
        "tests/bench/bw_alone, bw_measure() with first touch by each thread. Both sides are "
        "timed alike, over the time their threads were on their cpus: one run of the same "
        "bytes (~%.0f ms) a side, numalab's round (after 1 warm-up round) over the stretches "
        "all its threads ran (bw_measure's own timing), likwid-bench's kernel (as many "
        "iterations as move those bytes) over its worker threads' cpu clocks "
        "(CLOCK_THREAD_CPUTIME_ID read as each thread ends, by tests/bench/thread_cpu.so "
        "preloaded; the shortest thread's, since a worker spins at likwid's barriers while "
        "its partner is off its cpu). A likwid run of several workers one of which was off "
        "its cpu for over %.0f%% of its life is run again (up to %d runs a pair), as "
        "numalab redoes a round whose threads ran apart: its partner had the memory to "
        "itself meanwhile; a row none of whose likwid runs ran together is marked apart, "
        "not judged. A "
        "neighbour on the cpu thus stops both clocks alike; both wall-time figures stay in "
        "the raw record. Both pin thread i to the i-th CPU. A bandwidth figure is the best of "
        "its side's pairs, and A/B the ratio of the two best figures (as STREAM reports a "
        "bandwidth: interference only slows a pass down), a best more than 25%% above the "
        "next best of both sides' runs together passed over, on both sides (the host's memory "
        "at a quiet moment, not the loop); both sides get the same number "
        "of runs, taken in turns, and the per-pair ratios' [min-max] stays as the spread. "
        "Every row gets at least %d pairs whatever the budget (the budget only bounds "
        "the pairs past those); a row above %.2fx likwid takes more, up to %d, and if it "
        "stays above it is marked TIMING."
        % (BW_ROUND_S * 1e3, 100 * (1 - BW_TOGETHER), BW_TOGETHER_TRIES,
           BW_MIN_PAIRS, BW_CEILING, BW_CEILING_PAIRS))


BW_LINES = (1.0, 0.95)  # the goal and the bug line a bandwidth ratio is judged on
# 32 rows at ~2 s a pair on a busy 2-CPU machine: two pairs each fit the
# budget, more go to the rows whose pairs disagree
BW_MIN_PAIRS = 2
BW_CEILING = 1.15  # no loop beats the same instructions by more than this
BW_CEILING_PAIRS = 6  # the most pairs a row above BW_CEILING takes


def wanted_row(what):
    """BENCH_BW_ROWS='write, mem 256 MiB, 1 thread, avx512f;read, L2': only the
    bandwidth rows whose name contains one of these (all when unset)."""
    want = [w.strip() for w in os.environ.get("BENCH_BW_ROWS", "").split(";") if w.strip()]
    return not want or any(w in what for w in want)


def shutil_which(name):
    import shutil
    return shutil.which(name)


def likwid_version():
    p = sh(["likwid-bench", "-h"], check=False, timeout=30)
    m = re.search(r"Version\s+([0-9.]+)", p.stdout)
    return m.group(1) if m else ""


# --- 2. harness overhead ------------------------------------------------------

def fs_params(b):
    # budget=0: exactly these rounds, on each side alike (a busy minute
    # would otherwise grow one side's rounds into its adaptive budget)
    return {"threads": "2" if b.ncpus >= 2 else "1", "layout": "both",
            "increments": "10000000" if common.QUICK else "50000000",
            "repeat": "3" if common.QUICK else "5", "warmup": "1", "budget": "0"}


def kernel_time(pts):
    """The kernel's own figure of a false-sharing run: the sum of its
    points' median round times (s)."""
    ys = [p["y"] for p in pts if p.get("chart") == "time"]
    if not ys:
        raise Failure("the run has no 'time' points")
    return sum(ys)


def overhead(b):
    b.need_experiment("false_sharing", ["threads", "layout", "increments"])
    srv = common.Server(b.exe, b.work, "overhead").start()
    cases = [("false_sharing", fs_params(b), kernel_time, "s", "%.4f", False)]
    bw = bandwidth_experiment(b)
    if bw:
        cases.append(bw)
    else:
        b.fail("overhead", "bandwidth run three ways",
               "no bandwidth experiment in this build (bandwidth_scaling, memory_policy or remote_bandwidth)")
    cpu = []
    b.raw["overhead"] = {}
    try:
        for i, (name, params, figure, unit, fmt, higher_better) in enumerate(cases):
            alone, cli, served = [], [], []
            share = (b.budget - b.elapsed()) / (len(cases) - i)
            labels = (("numalab run --json", cli), ("server (POST + SSE)", served))

            def rs_of(side, higher_better=higher_better, alone=alone):
                # a rate: alone / side; a time: side / alone: > 1 is slower;
                # each side by its best pair, as the bandwidth rows
                return (common.best_ratio(alone, side, True) if higher_better
                        else common.best_ratio(side, alone, False))

            def pair(name=name, params=params, figure=figure, alone=alone, cli=cli,
                     served=served):
                alone.append(figure(b.run_alone(name, params)))
                cli.append(figure(b.run_cli(name, params)["samples"]))
                subs, doc, info = b.run_served(srv, name, params, 1, measure_cpu=True)
                if doc.get("status") != "done":
                    raise Failure("run %d through the server ended %s: %s"
                                  % (info["run_id"], doc.get("status"), doc.get("error")))
                served.append(figure(doc["samples"]))
                if info.get("cpu"):
                    cpu.append(info["cpu"])
            k, why = b.ab_pairs("%s three ways" % name, pair,
                                lambda: [rs_of(cli), rs_of(served)], (1.02,), share_s=share)
            for label, side in labels:
                rs = rs_of(side)
                meets = "yes" if rs["center"] <= 1.02 else "no"
                note = ""
                if meets == "no":
                    note = ("%s via %s: %.1f%% slower than the kernel alone"
                            % (name, label, 100 * (rs["center"] - 1)))
                if b.pairs_note(k, why):
                    note += ("; " if note else "") + b.pairs_note(k, why)
                b.row("overhead", "%s: %s vs alone" % (name, label),
                      common.best(side, higher_better, alone),
                      common.best(alone, higher_better, side),
                      unit, rs, "<= 1.02 (slowdown)", meets, note, fmt=fmt)
            b.raw["overhead"][name] = {"params": params, "alone": alone, "cli": cli,
                                       "server": served, "unit": unit}
    finally:
        srv.stop()
    if cpu:
        wall = sum(c["wall_s"] for c in cpu)
        ticks = sum(c["ticks"] for c in cpu)
        pct = 100.0 * ticks / common.CLK_TCK / wall
        sched = [c["sched_s"] for c in cpu if c["sched_s"] is not None]
        sched_pct = 100.0 * sum(sched) / wall if sched else None
        one = {"values": None, "n": 1, "median": pct, "min": pct, "max": pct}
        note = ("server CPU, /proc/PID/stat utime+stime: %d ticks of 1/%d s over %.1f s of "
                "kernel time (worker start to end event, %d runs); the same window from "
                "/proc/PID/task/*/schedstat (ns): %s"
                % (ticks, common.CLK_TCK, wall, len(cpu),
                   "%.3f%%" % sched_pct if sched_pct is not None else "not readable"))
        b.row("overhead", "server CPU while a kernel runs", one, None, "% of one CPU",
              None, "< 1 %", "yes" if pct < 1.0 else "no", note, fmt="%.2f")
        b.raw["overhead"]["server_cpu"] = cpu
    else:
        b.fail("overhead", "server CPU while a kernel runs",
               "no run gave both a start and an end event")


def bandwidth_experiment(b):
    """The bandwidth run of the overhead row: (name, params, figure,
    unit, fmt, higher_better) for the first bandwidth experiment this
    build has, or None."""
    e = b.schema.get("bandwidth_scaling")
    if e:
        names = {p["name"] for p in e["params"]}
        params = {"threads": "1"}
        for k, v in (("ops", "read"), ("op", "read"), ("kernels", "read"),
                     ("size", "64M" if common.QUICK else "256M"),
                     ("working_set", "64M" if common.QUICK else "256M"),
                     ("placements", "compact"), ("placement", "compact"),
                     ("repeat", "5"), ("warmup", "1")):
            if k in names and not any(k2 in params for k2 in (k,)):
                params[k] = v
        params = {k: v for k, v in params.items() if k in names}

        def figure(pts):
            ys = [p["y"] for p in pts if p.get("unit") in ("GB/s", "GiB/s")]
            if not ys:
                raise Failure("the bandwidth_scaling run has no GB/s points")
            return statistics.median(ys)
        return ("bandwidth_scaling", params, figure, "GB/s", "%.2f", True)
    return None


# --- 3. latency to the browser ---------------------------------------------

def stride_list(limit=250):
    """Strides 4, 8, 12, ... as many as fit limit characters written out
    (250: about what a recorded param once held, 255 characters; kept so
    that a run is the size of those measured before)."""
    v, i = [], 4
    while len(",".join(map(str, v + [i]))) <= limit:
        v.append(i)
        i += 4
    return ",".join(map(str, v))


LATENCY_PACES = [("paced", "1000000"), ("burst", "20000")]


def latency(b):
    """Two paces: a point every ~0.5 ms (1M increments), and a burst
    (20k increments: a point as fast as threads can be started)."""
    b.need_experiment("false_sharing", ["threads", "layout", "stride", "increments"])
    shim = b.tool("emit_clock.so")
    logbase = os.path.join(b.work, "emit")
    for f in glob.glob(logbase + ".*"):
        os.unlink(f)
    srv = common.Server(b.exe, b.work, "latency", args=["--max-queue", "200"],
                        env_extra={"LD_PRELOAD": os.path.abspath(shim),
                                   "NUMALAB_BENCH_EMIT_LOG": logbase}).start()
    b.raw["latency"] = {}
    served, cpu = [], []
    try:
        for pace, increments in LATENCY_PACES:
            b.progress("%s pace, %d samples a side" % (pace, LATENCY_SAMPLES))
            runs, spent = latency_pace(b, srv, pace, increments)
            served.append((pace, runs))
            cpu.append((pace, increments, spent))
            b.progress("%s pace, %d samples a side" % (pace, LATENCY_SAMPLES), done=True)
        # after every served run: the server's stamps count samples in
        # order, and the hops below read them so
        for pace, increments, spent in cpu:
            latency_cpu_rows(b, pace, spent, latency_short(b, srv, increments))
    finally:
        srv.stop()
    latency_hops(b, served)
    b.notes.append(
        "latency: the worker's time comes from an LD_PRELOAD shim (tests/bench/emit_clock.so) "
        "that stamps each event line as the worker hands it to stdio (the event format has "
        "no emission time), the client's when the bytes are read from its socket; both "
        "CLOCK_MONOTONIC. One subscriber (Python asyncio) on CPU %s, the kernel's one thread "
        "on CPU %d, runs of false_sharing (threads=1, %d strides) queued back to back; the "
        "floor (B): the same runs as `numalab run --ndjson`, their stdout read by the same "
        "process, no server"
        % (b.last_cpu(), b.cpus[0], stride_list().count(",") + 1))


def serve_marks(work):
    """The server's own stamps (emit_clock.so in `numalab serve`, written
    at its exit): the cumulative sample count and time of each pipe read
    and each socket send, as two lists of (count, t_ns). Removes the log."""
    out = {"read": [], "sent": []}
    for f in glob.glob(os.path.join(work, "emit.serve.*")):
        with open(f) as fh:
            for ln in fh:
                t, kind, n = ln.split()
                tot = out[kind][-1][0] if out[kind] else 0
                out[kind].append((tot + int(n), int(t)))
        os.unlink(f)
    return out


def at_count(marks, k):
    """The time of the first mark whose cumulative count reaches k (1-based)."""
    import bisect
    i = bisect.bisect_left([c for c, _ in marks], k)
    return marks[i][1] if i < len(marks) else None


def latency_hops(b, served):
    """Where a sample's time goes: worker write -> the server's pipe read
    (pipe, runner thread waking), pipe read -> socket send (parse, log
    append, the pump's resume, the event loop, formatting), send -> the
    client's read (loopback, the Python client). A note per pace."""
    marks = serve_marks(b.work)
    if not marks["read"] or not marks["sent"]:
        b.notes.append("latency hops: the server wrote no stamps (emit_clock.so not loaded in it)")
        return
    k = 0
    for pace, pairs in served:
        hops = ([], [], [])
        for emitted, arrivals in pairs:
            for e, a in zip(emitted, arrivals):
                k += 1
                r, w = at_count(marks["read"], k), at_count(marks["sent"], k)
                if r is None or w is None:
                    continue
                hops[0].append((r - e) / 1e6)
                hops[1].append((w - r) / 1e6)
                hops[2].append((a - w) / 1e6)
        if not hops[0]:
            continue
        sv = [sorted(h) for h in hops]
        b.raw["latency"][pace]["hops_ms"] = {
            name: {"p50": percentile(v, 50), "p99": percentile(v, 99), "max": v[-1]}
            for name, v in zip(("write_to_read", "read_to_send", "send_to_client"), sv)}
        b.notes.append(
            "latency hops, %s (%d samples; p50 / p99 ms): worker write -> server's pipe read "
            "%.3f / %.3f; pipe read -> socket send %.3f / %.3f; send -> client read %.3f / %.3f"
            % (pace, len(sv[0]), percentile(sv[0], 50), percentile(sv[0], 99),
               percentile(sv[1], 50), percentile(sv[1], 99),
               percentile(sv[2], 50), percentile(sv[2], 99)))


def read_logs(work, pid=None):
    """The shim's logs (one per worker), oldest run first: lists of the
    emission times (ns) of their sample events. Removes them."""
    logs = []
    for f in glob_emit(work):
        if pid is not None and not f.endswith(".%d" % pid):
            continue
        with open(f) as fh:
            marks = [ln.split() for ln in fh if ln.strip()]
        os.unlink(f)
        smp = [int(t) for t, ty in marks if ty == "sample"]
        if smp:
            logs.append(smp)
    logs.sort(key=lambda v: v[0])
    return logs


def latency_served(b, srv, params, nruns):
    results = b.run_batch(srv, [("false_sharing", params)] * nruns, 1,
                          keep=("sample",), timeout=600)
    logs = read_logs(b.work)
    if len(logs) != len(results):
        raise Failure("%d emission logs for %d runs: is the shim (tests/bench/emit_clock.so) "
                      "loaded into the worker, and does the worker write events with fputs?"
                      % (len(logs), len(results)))
    out = []
    for (subs, doc, info), emitted in zip(results, logs):
        s = subs[0]
        if doc.get("status") != "done" or not s.final:
            raise Failure("latency run %d ended %s (%s)" % (info["run_id"], doc.get("status"), s.error))
        arrivals = [k[0] for k in s.kept]
        if len(arrivals) != len(emitted):
            raise Failure("run %d: %d samples written by the worker, %d reached the client"
                          % (info["run_id"], len(emitted), len(arrivals)))
        out.append((emitted, arrivals))
    return out


def latency_pipe(b, params, nruns, env):
    """The floor: the same worker's stdout read straight from its pipe by
    the same kind of client (no server)."""
    out = []
    for _ in range(nruns):
        # the worker may use every CPU, as under the server; the reader stays pinned
        p = subprocess.Popen([b.exe, "run", "--ndjson", "false_sharing"] + common.kv(params),
                             stdout=subprocess.PIPE, env=env,
                             preexec_fn=lambda: os.sched_setaffinity(0, set(b.cpus)))
        fd = p.stdout.fileno()
        buf, arrivals = b"", []
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            now = time.monotonic_ns()
            buf += data
            *lines, buf = buf.split(b"\n")
            arrivals.extend(now for ln in lines if b'"type":"sample"' in ln)
        p.wait()
        logs = read_logs(b.work, p.pid)
        if p.returncode != 0 or len(logs) != 1 or len(logs[0]) != len(arrivals):
            raise Failure("the pipe-only latency run failed (exit %d, %d logs)"
                          % (p.returncode, len(logs)))
        out.append((logs[0], arrivals))
    return out


def latency_pace(b, srv, pace, increments):
    strides = stride_list()
    nstrides = strides.count(",") + 1
    params = {"threads": "1", "layout": "both", "stride": strides,
              "increments": increments, "repeat": "1", "warmup": "0",
              "cpus": str(b.cpus[0])}
    per_run = 1 + 2 * nstrides  # separate, then shared and overhead per stride
    nruns = -(-LATENCY_SAMPLES // per_run)
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(b.tool("emit_clock.so")),
               NUMALAB_BENCH_EMIT_LOG=os.path.join(b.work, "emit"))
    # A B A B in halves: through the server, then straight from the pipe;
    # the kernel's one thread on the first CPU, the client on the last
    served, piped = [], []
    old = b.pin_self({b.cpus[-1]})
    try:
        cpu_srv = cpu_cli = 0.0
        user_sys = [0, 0]  # the server's ticks in its code and in the kernel
        relayed = None
        for half in (nruns // 2, nruns - nruns // 2):
            # what the served runs cost the server and this client in CPU
            k0, c0 = common.proc_cpu_mark(srv.pid), time.process_time()
            served += latency_served(b, srv, params, half)
            k1 = common.proc_cpu_mark(srv.pid)
            cpu_srv += common.proc_cpu_between(k0, k1)
            cpu_cli += time.process_time() - c0
            user_sys = [x + y for x, y in zip(user_sys, common.proc_user_sys_between(k0, k1))]
            piped += latency_pipe(b, params, half, env)
            relayed = latency_relay(b, params, half, relayed)
    finally:
        b.pin_self(old)

    def ms(pairs):
        return [(a - e) / 1e6 for emitted, arrivals in pairs for e, a in zip(emitted, arrivals)]
    lat, floor = ms(served), ms(piped)
    v, f = sorted(lat), sorted(floor)
    secs = sum((e[-1] - e[0]) / 1e9 for e, _ in served)
    rate = len(v) / max(1e-9, secs)
    one = one_value
    for q in (50, 99):
        a, bq = percentile(v, q), percentile(f, q)
        goal = q == 99
        meets, busy = common.judge_p99(a, bq, 5.0) if goal else ("n/a", "")
        b.row("latency", "%s, ~%.0f samples/s: p%d over %d samples" % (pace, rate, q, len(v)),
              one(a), one(bq), "ms", one(a / bq if bq else None),
              "p99 < 5 ms (busy: over the pipe's)" if goal else "-", meets,
              ("%s: max %.2f ms through the server, %.2f ms from the pipe; %d runs of %d samples "
               "each way; CPU a sample: the server %.0f us, the client %.0f us, together %.0f%% "
               "of the one CPU they share at this pace; load average %.1f"
               % (pace, v[-1], f[-1], len(served), per_run, 1e6 * cpu_srv / len(v),
                  1e6 * cpu_cli / len(v), 100 * (cpu_srv + cpu_cli) / len(v) * rate,
                  os.getloadavg()[0]) + ("; " + busy if busy else ""))
              if goal else "",
              a_label="server", b_label="pipe", fmt="%.3f")
    b.raw["latency"][pace] = {"params": params, "samples_per_s": rate,
                              "server": {"p50_ms": percentile(v, 50), "p99_ms": percentile(v, 99),
                                         "max_ms": v[-1], "ms": [round(x, 4) for x in lat]},
                              "pipe": {"p50_ms": percentile(f, 50), "p99_ms": percentile(f, 99),
                                       "max_ms": f[-1], "ms": [round(x, 4) for x in floor]}}
    return served, {"cpu_s": cpu_srv, "samples": len(v), "runs": len(served),
                    "user_sys": user_sys, "relay": relayed}


def latency_relay(b, params, nruns, had):
    """The floor under the server's CPU a sample: the same worker's lines
    carried by tests/bench/relay (a pipe, the runner's 1 ms batches, a
    second thread woken by an eventfd, a loopback socket to a reader on
    the same CPU; no parse, store or HTTP), added to had (None at first)."""
    worker = os.path.join(os.path.dirname(b.exe), "numalab-worker")
    try:
        out = json.loads(sh([b.tool("relay"), str(b.cpus[-1]), str(nruns), worker, "run",
                             "--ndjson", "false_sharing"] + common.kv(params),
                            timeout=600).stdout)
    except (Failure, ValueError) as e:
        # the rows stand without their floor; the note says why
        b.notes.append("latency: the relay (tests/bench/relay) did not run: %s" % e)
        return had
    if had:
        for k in ("runs", "samples", "lines", "batches", "cpu_s", "user_s", "wall_s"):
            out[k] += had[k]
    return out


SHORT_RUNS = 12  # one-stride runs a pace, for a run's fixed part


def latency_short(b, srv, increments):
    """The server's CPU a run for runs of one stride (3 samples), served
    as the latency rows' runs are (queued, one viewer, the document read
    at the end): (CPU s a run, samples a run)."""
    params = {"threads": "1", "layout": "both", "stride": "4", "increments": increments,
              "repeat": "1", "warmup": "0", "cpus": str(b.cpus[0])}
    old = b.pin_self({b.cpus[-1]})
    try:
        k0 = common.proc_cpu_mark(srv.pid)
        results = b.run_batch(srv, [("false_sharing", params)] * SHORT_RUNS, 1,
                              keep=("sample",), timeout=600)
        k1 = common.proc_cpu_mark(srv.pid)
    finally:
        b.pin_self(old)
    read_logs(b.work)  # their stamps: not the latency rows' runs
    samples = sum(len(subs[0].kept) for subs, _, _ in results)
    return common.proc_cpu_between(k0, k1) / SHORT_RUNS, samples / SHORT_RUNS


def latency_cpu_rows(b, pace, spent, short):
    """The server's CPU a sample over a pace's served runs (the goal's
    figure: everything the runs cost it over their samples), and in its
    note how much of that a run costs whatever its samples: from the
    one-stride runs, a line through the two lengths of run."""
    us = 1e6 * spent["cpu_s"] / spent["samples"]
    per_run, n_long = spent["cpu_s"] / spent["runs"], spent["samples"] / spent["runs"]
    short_s, n_short = short
    slope = (per_run - short_s) / (n_long - n_short) if n_long > n_short else 0
    fixed = short_s - slope * n_short
    if slope <= 0 or fixed <= 0:
        # a busy minute can make a short run cost more a run than a long
        # one: no line through the two says anything then
        split = ("; a run of one stride cost it %.2f ms (%d runs), one of %.0f samples "
                 "%.2f ms: the two do not fit one line (the host's load moved between them)"
                 % (1e3 * short_s, SHORT_RUNS, n_long, 1e3 * per_run))
    else:
        split = ("; a run of one stride (%.0f samples) cost it %.2f ms (%d runs), one of %.0f "
                 "%.2f ms: so %.2f ms a run whatever its samples (%.0f us of each sample's "
                 "here) and %.1f us a sample past that"
                 % (n_short, 1e3 * short_s, SHORT_RUNS, n_long, 1e3 * per_run, 1e3 * fixed,
                    1e6 * fixed / n_long, 1e6 * slope))
        b.raw["latency"][pace].update(run_fixed_ms=1e3 * fixed, sample_slope_us=1e6 * slope,
                                      short_run_ms=1e3 * short_s)
    relay = spent.get("relay")
    floor = 1e6 * relay["cpu_s"] / relay["samples"] if relay and relay["samples"] else None
    if floor:
        split += ("; the floor (B), tests/bench/relay: the same worker's lines carried to a "
                  "reader on the same CPU as the runner carries them (a pipe, 1 ms batches, a "
                  "second thread woken by an eventfd, a loopback socket) and nothing else: "
                  "%.1f us a sample (%.0f%% of it in the kernel), %.1f samples a batch, "
                  "%d runs" % (floor, 100 * (1 - relay["user_s"] / relay["cpu_s"])
                               if relay["cpu_s"] else 0,
                               relay["samples"] / max(1, relay["batches"]), relay["runs"]))
    b.row("latency", "%s: server CPU a sample" % pace, one_value(us),
          one_value(floor) if floor else None, "us", one_value(us / floor) if floor else None,
          "< 20 us", "yes" if us < 20 else "no",
          "the server's CPU over the served runs (its runner, store, streams and the "
          "run documents the client reads at each end; its threads' schedstat, to the ns, or "
          "utime+stime where a thread ended meanwhile) over the samples they carried; each "
          "sample comes with ~1.5 other events (progress, placement, summary); %s%s"
          % (kernel_share(spent["user_sys"]), split),
          a_label="server", b_label="relay" if floor else "", fmt="%.1f")
    b.raw["latency"][pace].update(server_cpu_us=us, server_user_sys_ticks=spent["user_sys"],
                                  relay=relay, relay_cpu_us=floor)


def one_value(x):
    """A figure measured once, as a row's cell."""
    return {"values": None, "n": 1, "median": x, "min": x, "max": x}


def kernel_share(user_sys):
    """How much of the server's CPU was the kernel's (system calls,
    wake-ups, the loopback TCP path of its sends), from its ticks."""
    u, k = user_sys
    if u + k < 10:
        return "too few ticks (%d) to say how much was in the kernel" % (u + k)
    return ("%.0f%% of it in the kernel on the server's behalf (system calls, wake-ups, "
            "the loopback path of its sends; %d of %d ticks)" % (100.0 * k / (u + k), k, u + k))


def glob_emit(work):
    """The workers' logs (the server's own, emit.serve.*, are read apart)."""
    return [os.path.join(work, f) for f in os.listdir(work)
            if f.startswith("emit.") and not f.startswith("emit.serve.")]


# --- 4. server throughput ----------------------------------------------------

WRK_CLIENTS = 10
# numalab's event loops (server/http/http.c pool_size): one a cpu, 2-4
MHD_LOOPS = min(max(os.cpu_count() or 2, 2), 4)


def wrk(url, seconds, cpu, pid=None):
    """Requests/s, and what each request cost the server at pid in CPU
    (us; its utime+stime over wrk's run: a busy host slows the rate far
    more than it changes this)."""
    t0 = common.proc_cpu_ticks(pid) if pid else 0
    p = sh(["wrk", "-t1", "-c%d" % WRK_CLIENTS, "-d%ds" % seconds, url],
           timeout=seconds + 30, cpus=cpu)
    ticks = common.proc_cpu_ticks(pid) - t0 if pid else 0
    n = common.first_number(r"(\d+) requests in", p.stdout)
    rps = common.first_number(r"Requests/sec:\s+([0-9.]+)", p.stdout)
    bad = common.first_number(r"Non-2xx or 3xx responses:\s+(\d+)", p.stdout)
    errs = re.search(r"Socket errors:.*", p.stdout)
    if rps is None:
        raise Failure("wrk printed no Requests/sec: %s" % p.stdout[-300:])
    if bad:
        raise Failure("wrk saw %d non-2xx answers from %s" % (bad, url))
    return rps, {"errors": errs.group(0) if errs else None,
                 "cpu_us": 1e6 * ticks / common.CLK_TCK / n if pid and n else None}


def throughput(b):
    if not shutil_which("wrk"):
        raise Failure("wrk is not installed (scripts/deps.sh bench installs Debian's wrk)")
    fixed = b.tool("mhd_fixed")
    srv = common.Server(b.exe, b.work, "throughput").start()
    b.raw["throughput"] = {}
    pairs_run = []
    try:
        rid = srv.submit("false_sharing", {"threads": "1", "layout": "both",
                                           "increments": "100000"})
        if srv.wait_done(rid).get("status") != "done":
            raise Failure("the run for GET /api/runs/{id} did not finish")
        paths = ("/api/experiments", "/api/runs/%d" % rid)
        for i, path in enumerate(paths):
            share = (b.budget - b.elapsed()) / (len(paths) - i)
            code, body = srv.get(path)
            bodyfile = os.path.join(b.work, "body.json")
            with open(bodyfile, "wb") as f:
                f.write(body)
            proc = subprocess.Popen([fixed, "--mode", "pool", "--threads", str(MHD_LOOPS),
                                     bodyfile],
                                    stdout=subprocess.PIPE, text=True)
            try:
                port = int(proc.stdout.readline().split()[1])
                a, bb, cpu = [], [], {"numalab": [], "bare": []}
                label = path if "runs" not in path else "/api/runs/{id}"
                what = "GET %s (%s body)" % (label, common.human_bytes(len(body)))

                def pair(path=path, port=port, a=a, bb=bb, cpu=cpu, bare=proc.pid):
                    rps, info = wrk(srv.url(path), WRK_SECONDS, b.last_cpu(), srv.pid)
                    a.append(rps)
                    cpu["numalab"].append(info["cpu_us"])
                    rps, info = wrk("http://%s:%d%s" % (common.HOST, port, path),
                                    WRK_SECONDS, b.last_cpu(), bare)
                    bb.append(rps)
                    cpu["bare"].append(info["cpu_us"])
                k, why = b.ab_pairs(what, pair, lambda: common.best_ratio(a, bb), (0.9,),
                                    share_s=share)
                pairs_run.append(k)
            finally:
                proc.terminate()
                proc.wait()
            # each side by its best window, as the other side-by-side rows:
            # a neighbour's burst only takes requests away, and on a shared
            # 2-vCPU host it fell in one side's window of a pair and not the
            # other's (pairs 0.65-1.62x within one run, a median of three
            # of them 0.74-1.13x from run to run, 0.73-1.24x best over best)
            r = common.best_ratio(a, bb)
            pr = [x for x in ratios(a, bb) if x is not None]
            pair_median = statistics.median(pr) if pr else None
            note = ""
            if all(cpu["numalab"]) and all(cpu["bare"]) and cpu["numalab"]:
                note = ("server CPU a request: numalab %.1f us, the bare server %.1f us "
                        "(medians over the pairs; %.2fx)"
                        % (statistics.median(cpu["numalab"]), statistics.median(cpu["bare"]),
                           statistics.median(cpu["numalab"]) / statistics.median(cpu["bare"])))
            if pair_median is not None:
                note += ("; " if note else "") + (
                    "the median of the pairs' ratios %.3f" % pair_median)
            if r["center"] < 0.9:
                note += ("; " if note else "") + (
                    "GET %s (%d B): numalab answers %.0f%% of the fixed-string server's rate"
                    % (label, len(body), 100 * r["center"]))
            if b.pairs_note(k, why):
                note += ("; " if note else "") + b.pairs_note(k, why)
            b.row("throughput", what,
                  common.best(a, True, bb), common.best(bb, True, a), "req/s", r, ">= 0.90",
                  "yes" if r["center"] >= 0.9 else "no", note, fmt="%.0f")
            b.raw["throughput"][label] = {"bytes": len(body), "numalab": a, "fixed": bb,
                                          "cpu_us_per_request": cpu}
    finally:
        srv.stop()
    b.notes.append("throughput: each side's best window over the other's (the per-pair "
                   "ratios' [min-max] as the spread, their median in the row's note); "
                   "wrk -t1 -c%d, %d s per side and pair (%s pairs), wrk pinned "
                   "to CPU %s; the baseline is tests/bench/mhd_fixed with the same body bytes and "
                   "the same threading as numalab (libmicrohttpd's thread pool of %d epoll "
                   "loops); neither side was asked for gzip"
                   % (WRK_CLIENTS, WRK_SECONDS, " and ".join(map(str, pairs_run)) or "no",
                      b.last_cpu(), MHD_LOOPS))


# --- 5. fan-out ---------------------------------------------------------------

def fanout(b):
    b.need_experiment("false_sharing", ["threads", "layout", "stride", "increments"])
    # budget=0: exactly 3 rounds a point, so a busy minute does not
    # stretch one side's run with redone rounds
    params = {"threads": "1", "layout": "both", "stride": stride_list(120),
              "increments": "4000000", "repeat": "3", "warmup": "1",
              "cpus": str(b.cpus[0]), "budget": "0"}
    levels = [int(x) for x in os.environ.get(
        "BENCH_FANOUT", "1,100" if common.QUICK else "1,100,1000,10000").split(",")]
    kcpu = b.cpus[0]

    def figure(doc):
        ys = [s["y"] for s in doc["samples"] if s.get("chart") == "time"]
        return statistics.median(ys) / int(params["increments"]) * 1e9  # ns per increment

    b.raw["fanout"] = {"params": params, "levels": {}}
    fanout_control(b, params, figure, kcpu)
    srv = common.Server(b.exe, b.work, "fanout").start()
    old = b.pin_self({b.cpus[-1]})
    try:
        idle_rss = common.proc_status_kb(srv.pid, "VmRSS")
        for n in levels:
            files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            if files != resource.RLIM_INFINITY and files < n + 256:
                b.unavailable("fanout", "%d subscribers" % n,
                              "this process may open only %d files (ulimit -n)" % files)
                continue
            what = "%d subscriber%s" % (n, "s" if n > 1 else "")
            common.reset_peak_rss(srv.pid)
            a, bb, peaks, checks, seen = [], [], [], [], {"with": [], "without": []}

            def pair(n=n, a=a, bb=bb, peaks=peaks, checks=checks, seen=seen):
                _, doc0, info0 = b.run_served(srv, "false_sharing", params, 0, watch_cpu=kcpu)
                seen["without"].append(info0.get("watched"))
                bb.append(figure(doc0))
                subs, doc, info = b.run_served(srv, "false_sharing", params, n,
                                               measure_cpu=True, watch_cpu=kcpu)
                if doc.get("status") != "done":
                    raise Failure("fan-out run %d ended %s" % (info["run_id"], doc.get("status")))
                seen["with"].append(info.get("watched"))
                if info.get("worker_cpu"):
                    seen.setdefault("worker", []).append(info["worker_cpu"])
                a.append(figure(doc))
                peaks.append(common.proc_status_kb(srv.pid, "VmHWM"))
                last = max(s.last_seq for s in subs)
                bad = [s for s in subs if not s.in_order or s.last_seq != last or s.events != last
                       or not s.final]
                checks.append({"subscribers": n, "events": last, "complete_in_order": n - len(bad),
                               "connected": info["connected"], "connect_s": round(info["connect_s"], 3),
                               "connected_before_start": info["all_connected_before_start"],
                               "errors": sorted({s.error for s in bad if s.error})[:3]})
            # ten thousand subscribers take tens of seconds a pair: one is
            # enough to see them all served, more while the budget allows
            k, why = b.ab_pairs("%s: kernel ns/increment" % what, pair,
                                lambda: summary(ratios(a, bb)), (1.02,),
                                1 if n >= 10000 else None, common.MIN_PAIRS + 1)
            ok = all(c["complete_in_order"] == n for c in checks)
            before = all(c["connected_before_start"] for c in checks)
            r = summary(ratios(a, bb))
            note = "%s: every subscriber got all %d events in order in %d/%d runs%s" % (
                "%d subscriber%s" % (n, "s" if n > 1 else ""), checks[-1]["events"],
                sum(1 for c in checks if c["complete_in_order"] == n), len(checks),
                "" if before else " (some connected after the run started: they got the start replayed)")
            if not ok:
                note += "; incomplete: %s" % [c for c in checks if c["complete_in_order"] != n][:2]
            # within noise: at most 2% slower, or inside the spread of the
            # runs without subscribers
            sa, sb = summary(a), summary(bb)
            within = r["median"] <= 1.02 or sb["min"] <= sa["median"] <= sb["max"]
            if not within:
                note += "; the runs with subscribers were %.0f%% slower" % (100 * (r["median"] - 1))
            note += "; " + cpu_note(kcpu, seen)
            if b.pairs_note(k, why):
                note += "; " + b.pairs_note(k, why)
            b.row("fanout", "%d subscriber%s: kernel ns/increment" % (n, "s" if n > 1 else ""),
                  sa, sb, "ns", r, "all in order; <= 1.02 or within noise",
                  "yes" if ok and within else "no", note, fmt="%.3f")
            peak_mb = max(p for p in peaks if p) / 1024.0
            # the goal: 10,000 subscribers in 100 MB (a few KiB each)
            cap = 100 if n >= 1000 else None
            b.row("fanout", "%d subscriber%s: server peak RSS" % (n, "s" if n > 1 else ""),
                  {"values": peaks, "n": 1, "median": peak_mb, "min": peak_mb, "max": peak_mb},
                  None, "MB", None, "< %d MB" % cap if cap else "-",
                  ("yes" if peak_mb < cap else "no") if cap else "n/a",
                  ("%.1f KiB a subscriber over the idle RSS (%.1f MB); " % (
                      (peak_mb * 1024 - idle_rss) / n, idle_rss / 1024.0) if n >= 100 else "")
                  + "VmHWM after resetting it (clear_refs 5) before the level", fmt="%.1f")
            b.raw["fanout"]["levels"][str(n)] = {"with": a, "without": bb, "peak_rss_kb": peaks,
                                                 "checks": checks, "kernel_cpu_shares": seen}
    finally:
        b.pin_self(old)
        srv.stop()
    b.notes.append("fan-out: the subscribers (Python asyncio, one process, HTTP/1.1 chunked SSE) "
                   "run on CPU %s, the kernel's one thread on CPU %d; every run is held behind a "
                   "cancelled blocker run until all subscribers are connected; subscribers "
                   "connect from 127.0.0.2, 127.0.0.3, ... 1,000 per address (the server "
                   "allows 2,048 per address)" % (b.last_cpu(), b.cpus[0]))


def fanout_control(b, params, figure, kcpu):
    """The control for the subscriber rows: the same run through the CLI
    (no server, no sockets) with the other CPU kept busy by a plain spin
    (A) or idle (B). On a VM whose vCPUs share a host core, or a host
    that steals time, a busy neighbour alone slows the kernel."""
    other = b.cpus[-1]
    what = "control: CPU %d spinning, no server: kernel ns/increment" % other
    if other == kcpu:
        b.unavailable("fanout", what, "one CPU: there is no other CPU to keep busy")
        return
    a, bb, seen = [], [], {"with": [], "without": []}

    def pair():
        t0 = common.cpu_ticks(kcpu)
        bb.append(figure(b.run_cli("false_sharing", params)))
        seen["without"].append(common.cpu_shares(t0, common.cpu_ticks(kcpu)))
        spin = subprocess.Popen(["taskset", "-c", str(other), sys.executable, "-c",
                                 "while True: pass"])
        try:
            t0 = common.cpu_ticks(kcpu)
            a.append(figure(b.run_cli("false_sharing", params)))
            seen["with"].append(common.cpu_shares(t0, common.cpu_ticks(kcpu)))
        finally:
            spin.kill()
            spin.wait()
    k, why = b.ab_pairs(what, pair, lambda: summary(ratios(a, bb)), (1.05,), None,
                        common.MIN_PAIRS + 1)
    r = summary(ratios(a, bb))
    note = ("the kernel with its neighbour CPU busy (a Python spin, nothing else) over the kernel "
            "with it idle: what a busy neighbour costs without any server or socket; "
            + cpu_note(kcpu, seen))
    if b.pairs_note(k, why):
        note += "; " + b.pairs_note(k, why)
    b.row("fanout", what, summary(a), summary(bb), "ns", r, "-", "n/a", note, fmt="%.3f")
    b.raw["fanout"]["control"] = {"with_spin": a, "idle": bb, "kernel_cpu_shares": seen}


def cpu_note(cpu, seen):
    """Where the kernel's CPU went while the runs streamed, with and without
    subscribers: the median share of each /proc/stat field but idle that
    was not the kernel's own (user) time."""
    parts = []
    for side in ("with", "without"):
        runs = [x for x in seen[side] if x]
        if not runs:
            continue
        med = {k: statistics.median(x[k] for x in runs) for k in common.CPU_FIELDS}
        parts.append("%s: user %.1f%%, %s" % (
            side, 100 * med["user"],
            ", ".join("%s %.1f%%" % (k, 100 * med[k]) for k in
                      ("system", "softirq", "irq", "steal", "idle") if med[k] >= 0.001)
            or "nothing else"))
    w = seen.get("worker") or []
    if w:
        cpu_s, wall = sum(x["cpu_s"] for x in w), sum(x["wall_s"] for x in w)
        parts.append("the worker (its one kernel thread and its main thread) was on a CPU "
                     "%.0f%% of its start-to-end wall time (%.2f of %.2f s, /proc/PID/stat)"
                     % (100 * cpu_s / wall if wall else 0, cpu_s, wall))
    return ("CPU %d (the kernel's) while the run streamed, /proc/stat, %s"
            % (cpu, "; ".join(parts))) if parts else "CPU %d: /proc/stat not readable" % cpu


# --- 6. core-to-core ------------------------------------------------------------

MODE_GAP = 1.8  # two figures this far apart come from two different host placements


def c2c(b):
    b.need_experiment("core_to_core", ["cpus", "samples", "round_trips"])
    if b.ncpus < 2:
        raise Unavailable("one CPU")
    pp = b.tool("pingpong")
    x, y = b.cpus[0], b.cpus[1]
    samples, trips = (50, 500) if common.QUICK else (200, 1000)
    # cheap (a fraction of a second a pair), and a VM's host may move a
    # vCPU between the two sides of a pair: take more pairs than elsewhere
    params = {"cpus": "%d,%d" % (x, y), "samples": str(samples),
              "round_trips": str(trips)}
    a = {(x, y): [], (y, x): []}
    bb = {(x, y): [], (y, x): []}

    def pair():
        doc = b.run_cli("core_to_core", params)
        got = {(c["row"], c["col"]): c["value"] for c in doc.get("cells") or []
               if c.get("value") is not None}
        for (i, j) in ((0, 1), (1, 0)):
            if (i, j) not in got:
                raise Failure("core_to_core gave no cell (%d,%d)" % (i, j))
        a[(x, y)].append(got[(0, 1)])
        a[(y, x)].append(got[(1, 0)])
        for (p, q) in ((x, y), (y, x)):
            out = sh([pp, str(p), str(q), str(samples), str(trips)], timeout=60)
            bb[(p, q)].append(json.loads(out.stdout)["median_ns"])
    pairs, why = b.ab_pairs("cpu%d and cpu%d both ways" % (x, y), pair,
                            lambda: [summary(ratios(a[k], bb[k])) for k in a], (),
                            common.MIN_PAIRS + 2, 2 * common.MAX_PAIRS)
    b.raw["c2c"] = {}
    flips_total = 0
    for (p, q) in ((x, y), (y, x)):
        rr = ratios(a[(p, q)], bb[(p, q)])
        kept = [v for v in rr if 1 / MODE_GAP < v < MODE_GAP]
        flips = len(rr) - len(kept)
        flips_total += flips
        r = summary(kept if kept else rr)
        note = ""
        if abs(r["median"] - 1) >= 0.1:
            note = "cpu%d->cpu%d: core_to_core is %.0f%% %s than the ping-pong" % (
                p, q, 100 * abs(r["median"] - 1), "slower" if r["median"] > 1 else "faster")
        if flips:
            note += "%s%d of %d pairs left out of the ratio: their sides differ more than %.1fx " \
                    "(the host moved a vCPU between them)" % ("; " if note else "", flips, len(rr), MODE_GAP)
        if b.pairs_note(pairs, why):
            note += ("; " if note else "") + b.pairs_note(pairs, why)
        b.row("c2c", "cpu%d writes, cpu%d answers" % (p, q), summary(a[(p, q)]),
              summary(bb[(p, q)]), "ns", r, "~1.00 (none set)", "n/a", note, fmt="%.1f")
        b.raw["c2c"]["%d-%d" % (p, q)] = {"numalab": a[(p, q)], "pingpong": bb[(p, q)],
                                          "pairs_left_out": flips}
    b.notes.append("core-to-core: %d pairs; both sides %d samples of %d round trips, no pause in "
                   "the spin; numalab times a sample with its harness clock between barriers, the "
                   "ping-pong with lfence;rdtsc around the round trips%s"
                   % (pairs, samples, trips,
                      "; this VM shows two round-trip levels, as the host places the two vCPUs "
                      "near or far" if flips_total or any(
                          max(v) > MODE_GAP * min(v) for v in list(a.values()) + list(bb.values()))
                      else ""))


# --- 7. answers at scale: the plans' pair counts times a cost measured here --

C2C_GOAL_S = 60       # core_to_core pairs=by_relation on a 1,024-PU two-socket SMT machine
REMOTE_GOAL_S = 300   # remote_bandwidth cells=by_distance on 64 nodes: minutes


def first_node():
    nodes = sorted(int(p[len("/sys/devices/system/node/node"):])
                   for p in glob.glob("/sys/devices/system/node/node[0-9]*"))
    return nodes[0] if nodes else 0


def scale(b):
    """The time to answer on machines we do not have: how many pairs (cells)
    each plan measures there (tests/bench/pair_estimate, from the pure plans
    on synthetic topologies) times what one pair (cell) costs here."""
    b.need_experiment("core_to_core", ["cpus"])
    b.need_experiment("remote_bandwidth", ["nodes", "mixed"])
    if b.ncpus < 2:
        raise Unavailable("one CPU: there is no pair to time here")
    est_tool = b.tool("pair_estimate")
    x, y = b.cpus[0], b.cpus[1]
    node = first_node()
    per_pair, per_cell, ests = [], [], []

    def pair():
        t0 = time.monotonic()
        doc = b.run_cli("core_to_core", {"cpus": "%d,%d" % (x, y)})
        took = time.monotonic() - t0
        got = [c for c in doc.get("cells") or [] if c.get("value") is not None]
        if len(got) != 2:
            raise Failure("core_to_core cpus=%d,%d measured %d pairs, not 2" % (x, y, len(got)))
        per_pair.append(took / 2)
        t0 = time.monotonic()
        doc = b.run_cli("remote_bandwidth", {"nodes": str(node), "mixed": "no"})
        per_cell.append(time.monotonic() - t0)
        out = sh([est_tool, "%.6f" % per_pair[-1], "%.6f" % per_cell[-1]], timeout=120)
        ests.append(json.loads(out.stdout))
    # no A/B here: a few timings of one pair and one cell, budget allowing
    k, why = b.ab_pairs("one pair and one cell, timed", pair, lambda: None, (),
                        common.MIN_PAIRS - 1, common.MIN_PAIRS - 1)
    if not ests:
        for what in ("one pair here", "one cell here"):
            b.skipped("scale", what)
        return
    two, n64 = ests[0]["two_socket_1024"], ests[0]["nodes_64"]

    def fig(machine, plan, mode):
        return summary([e[machine][plan][mode]["seconds"] for e in ests])

    b.row("scale", "one pair here: core_to_core's defaults, cpu%d and cpu%d" % (x, y),
          summary(per_pair), unit="s", fmt="%.3f",
          note="a run's wall time over its 2 ordered pairs, the worker's start included: "
               "an upper bound on what one more pair costs")
    rel = fig("two_socket_1024", "pairs", "by_relation")
    b.row("scale", "1,024-PU two-socket SMT, pairs=by_relation: %d pairs (%d relations)"
          % (two["pairs"]["by_relation"]["pairs"], two["pairs"]["by_relation"]["classes"]),
          rel, unit="s", goal="< %d s" % C2C_GOAL_S, fmt="%.1f",
          meets="yes" if rel["median"] < C2C_GOAL_S else "no",
          note="estimate: the plan's pairs times one pair here (%s)" % two["desc"])
    every = fig("two_socket_1024", "pairs", "all")
    b.row("scale", "1,024-PU two-socket SMT, pairs=all: %d pairs" % two["pairs"]["all"]["pairs"],
          every, unit="s", fmt="%.0f",
          note="estimate: %.1f hours, every ordered pair" % (every["median"] / 3600))
    b.row("scale", "one cell here: remote_bandwidth's defaults, node %d, mixed=no" % node,
          summary(per_cell), unit="s", fmt="%.2f",
          note="a run's wall time for its one cell (every store kind and the read)")
    near = fig("nodes_64", "cells", "by_distance")
    b.row("scale", "64 nodes, cells=by_distance: %d cells (local and %d distances)"
          % (n64["cells"]["by_distance"]["cells"], n64["cells"]["by_distance"]["classes"] - 1),
          near, unit="s", goal="< %d s" % REMOTE_GOAL_S, fmt="%.1f",
          meets="yes" if near["median"] < REMOTE_GOAL_S else "no",
          note="estimate: the plan's cells times one cell here (%s)" % n64["desc"])
    full = fig("nodes_64", "cells", "full")
    b.row("scale", "64 nodes, cells=full: %d cells" % n64["cells"]["full"]["cells"], full,
          unit="s", fmt="%.0f", note="estimate: %.1f hours" % (full["median"] / 3600))
    b.raw["scale"] = {"per_pair_s": per_pair, "per_cell_s": per_cell, "estimates": ests}


# --- 8. run-time estimates: what the server would say against what it took --

ESTIMATE_SWEEPS = [
    ("false_sharing", {"stride": "4,8,64,128", "repeat": "10"}),
    ("atomic_increment", {"threads": "1-2", "variants": "all"}),
    ("bandwidth_scaling", {"threads": "1-2", "ops": "all"}),
]
ESTIMATE_LO, ESTIMATE_HI = 0.5, 2.0


# quick: the experiments with the shortest estimates, each run once
ESTIMATE_QUICK_ROWS = 5


def estimate(b):
    """Each experiment's defaults and three heavier sweeps: the estimate
    (`numalab estimate --json`, from the rates measured here) over the wall
    time of the same run as the server starts it (numalab-worker run, its
    start included). The cheapest run first, every row measured once
    whatever the budget (quick: the ESTIMATE_QUICK_ROWS shortest
    defaults)."""
    worker = os.path.join(os.path.dirname(b.exe), "numalab-worker")
    runs = [(name, {}) for name in sorted(b.schema)]
    if not common.QUICK:
        runs += ESTIMATE_SWEEPS
    b.raw["estimate"] = []
    # rates measured now, kept in the bench's own cache: the user's cache
    # may hold rates taken under another load (a busy minute's team start
    # was 60x a quiet one's), and every estimate multiplies them
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(b.work, "cache"))
    rates = sh([b.exe, "rates", "--refresh"], timeout=60, env=env).stdout
    planned = []
    for name, params in runs:
        what = "%s %s" % (name, " ".join(common.kv(params)) or "(defaults)")
        try:
            b.need_experiment(name, list(params))
            out = sh([b.exe, "estimate", "--json", name] + common.kv(params), timeout=60,
                     env=env)
            planned.append((json.loads(out.stdout)["seconds"], what, name, params))
        except (Failure, ValueError, KeyError) as e:
            b.fail("estimate", what, e)
    planned.sort(key=lambda x: x[0])
    if common.QUICK and len(planned) > ESTIMATE_QUICK_ROWS:
        # quick: fewer rows, chosen before any runs, rather than rows a
        # budget drops; every row shown is measured
        b.notes.append("estimates (quick): the %d experiments with the shortest estimates "
                       "of %d; make bench runs every one" % (ESTIMATE_QUICK_ROWS, len(planned)))
        planned = planned[:ESTIMATE_QUICK_ROWS]
    for est, what, name, params in planned:
        b.progress(what, 1, 1)
        try:
            # estimated again just before it runs, as the server does at
            # a submit: the estimate is of the machine as it is now
            out = json.loads(sh([b.exe, "estimate", "--json", name] + common.kv(params),
                                timeout=60, env=env).stdout)
            est, basis = out["seconds"], out.get("basis", "")
            t0 = time.monotonic()
            p = sh([worker, "run", "--json", name] + common.kv(params), timeout=600,
                   env=env)
            took = time.monotonic() - t0
            json.loads(p.stdout)
        except (Failure, ValueError, KeyError) as e:
            b.fail("estimate", what, e)
            continue
        b.progress("%s: estimate %.2f s, took %.2f s" % (what, est, took), done=True)
        r = est / took if took > 0 and est and est > 0 else None
        meets = "n/a" if r is None else ("yes" if ESTIMATE_LO <= r <= ESTIMATE_HI else "no")
        b.row("estimate", what, summary([est]), summary([took]), "s",
              summary([r]) if r else None, "%.1f-%.0fx" % (ESTIMATE_LO, ESTIMATE_HI),
              meets, "basis: %s" % basis if basis else "", a_label="estimate",
              b_label="actual", fmt="%.2f")
        b.raw["estimate"].append({"run": what, "estimate_s": est, "actual_s": took, "ratio": r,
                                  "basis": basis, "load": os.getloadavg()[0]})
    b.notes.append("estimates: one run each (a figure from a shared, busy machine moves by "
                   "tens of percent from run to run); the rates they used, measured at the "
                   "section's start (numalab rates --refresh, in the bench's own cache):\n"
                   + rates.strip())
