"""common.py - what every bench section shares: processes, the server, statistics, rows."""

import json
import os
import re
import signal
import socket
import statistics
import subprocess
import threading
import time
import urllib.error
import urllib.request

HOST = "127.0.0.1"
# BENCH_QUICK=1 (make bench QUICK=1, scripts/bench.sh --quick): fewer rows,
# smaller sizes, fewer pairs and budgets that sum to about a minute
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
# A/B pairs: at least MIN_PAIRS, then more only while the per-pair ratios
# spread wider than half the gap being judged, up to MAX_PAIRS
MIN_PAIRS = max(1, int(os.environ.get("BENCH_MIN_PAIRS", "2" if QUICK else "3")))
MAX_PAIRS = max(MIN_PAIRS, int(os.environ.get("BENCH_MAX_PAIRS", "3" if QUICK else "8")))
WRK_SECONDS = max(1, int(os.environ.get("BENCH_WRK_SECONDS", "1" if QUICK else "2")))
LATENCY_SAMPLES = int(os.environ.get("BENCH_LATENCY_SAMPLES", "800" if QUICK else "6000"))

# seconds of wall time per section: a section stops starting pairs past a
# row's first two once its budget is spent, and says so in the rows that got
# fewer than they would have; no row is dropped, so a section's time grows
# with its rows (two pairs each) and the budget bounds only the pairs past
# those. The full sums to 570 s (9.5 minutes), the quick one to 93 s, so
# that with the build check and a last step that overruns `make bench`
# stays under 10 minutes and `make bench QUICK=1` under 2.
BUDGET_S = {"bandwidth": 200, "overhead": 40, "latency": 35, "chase": 45, "throughput": 25,
            "fanout": 115, "phones": 30, "c2c": 15, "scale": 20, "estimate": 45}
QUICK_BUDGET_S = {"bandwidth": 25, "overhead": 8, "latency": 8, "chase": 10, "throughput": 6,
                  "fanout": 12, "phones": 8, "c2c": 3, "scale": 7, "estimate": 6}
OTHER_BUDGET_S, QUICK_OTHER_BUDGET_S = 40, 8  # a section not in the tables


def budget_s(section):
    """The section's wall-time budget; BENCH_BUDGET_<SECTION>=s overrides it."""
    env = os.environ.get("BENCH_BUDGET_%s" % section.upper())
    if env:
        return float(env)
    if QUICK:
        return QUICK_BUDGET_S.get(section, QUICK_OTHER_BUDGET_S)
    return BUDGET_S.get(section, OTHER_BUDGET_S)


AGREE = 0.02  # pairs within 2% of each other: more pairs would not move the figure


def settled(r, lines=()):
    """Whether a ratio (a summary of per-pair ratios, with its center) is
    decided: its pairs spread over at most half its distance to the nearest
    line being judged (1.00, a goal, a bug line), or agree within AGREE.
    With no line, pairs within 10% of each other are enough."""
    c = center(r)
    if not r or r.get("n", 0) < 2 or not c:
        return False
    spread = r["max"] - r["min"]
    if spread <= AGREE * abs(c):
        return True
    if not lines:
        return spread <= 0.1 * abs(c)
    return spread <= 0.5 * min(abs(c - line) for line in lines)


class Failure(Exception):
    """A comparison that could not be run: `make bench` exits non-zero."""


class Unavailable(Exception):
    """The counterpart does not exist here (no AVX-512 kernel, one node):
    the row says why and the bench does not fail."""


def sh(cmd, timeout=300, env=None, check=True, cpus=None):
    """Runs cmd (a list); returns CompletedProcess. cpus pins it (taskset)."""
    if cpus is not None:
        cmd = ["taskset", "-c", cpus] + list(cmd)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, env=env)
    except FileNotFoundError as e:
        raise Failure("cannot run '%s': %s" % (cmd[0], e))
    except subprocess.TimeoutExpired:
        raise Failure("'%s' ran past %d s" % (" ".join(cmd), timeout))
    if check and p.returncode != 0:
        raise Failure("'%s' exited %d: %s" % (" ".join(cmd), p.returncode,
                                             (p.stderr or p.stdout).strip()[-400:]))
    return p


def summary(values):
    v = [x for x in values if x is not None]
    if not v:
        return {"values": values, "n": 0, "median": None, "min": None, "max": None}
    return {"values": values, "n": len(v), "median": statistics.median(v),
            "min": min(v), "max": max(v)}


# a side's best run that beats its next best by more than this is passed
# over: no loop is that much faster on its own, a host's quiet moment is
BEST_LONE = 0.25


def lone_cap(values, higher=True):
    """The best of values that is not lone: going down from the best, the
    first that comes within BEST_LONE of the next; the last when none does."""
    v = sorted((x for x in values if x is not None), reverse=higher)
    for x, y in zip(v, v[1:]):
        if (x <= y * (1 + BEST_LONE)) if higher else (y <= x * (1 + BEST_LONE)):
            return x
    return v[-1] if v else None


def best(values, higher=True, others=()):
    """summary() shown by its best value (the highest rate, or the lowest
    time), as STREAM reports a bandwidth: interference only ever slows a
    pass down. But a best that beats the next best by more than BEST_LONE
    is passed over, and so on down: on a VM one run of a memory row read
    twice what every other run of either program read, its wall time
    alike (the host's memory at a quiet moment, not the loop).

    others: the other side of the comparison (the same work by the other
    program, in the same pairs). The test for a lone best then runs over
    both sides' runs together, so that the two are read at the same host:
    a quick moment that one side caught once and the other twice is kept
    on both, where passed over on one side alone it had made the sides
    0.51x apart (2-thread streaming stores on this VM, whose memory ran at
    27 or 54 GB/s from run to run, alike for both programs)."""
    s = summary(values)
    cap = lone_cap(list(values) + [x for x in others if x is not None], higher)
    mine = [x for x in values if x is not None and cap is not None
            and (x <= cap if higher else x >= cap)]
    if mine:
        s["center"] = max(mine) if higher else min(mine)
    else:  # every run of this side past the pooled cap: its own best
        s["center"] = lone_cap(values, higher)
    return s


def best_ratio(a, b, higher=True):
    """best(a) / best(b), each read beside the other, with the per-pair
    ratios kept for their spread."""
    r = summary(ratios(a, b))
    ba, bb = best(a, higher, b)["center"], best(b, higher, a)["center"]
    r["center"] = ba / bb if ba is not None and bb else None
    return r


def center(s):
    """The figure a summary is shown by: its median unless it says otherwise."""
    return s.get("center", s.get("median")) if s else None


def ratios(a, b):
    return [x / y if x is not None and y else None for x, y in zip(a, b)]


def percentile(sorted_v, p):
    if not sorted_v:
        return None
    k = (len(sorted_v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (k - lo)


def judge_p99(p99, floor_p99, goal_ms):
    """A p99 latency against its goal and the bare floor measured beside it
    in the same run: (verdict, note). Under the goal: yes. Over it on a
    host whose floor is itself over the goal (busy: the floor queued
    behind other work), the host is said to be busy and what numalab adds
    over the floor is judged against the goal instead."""
    if p99 is None:
        return "n/a", ""
    if p99 < goal_ms:
        return "yes", ""
    if floor_p99 is not None and floor_p99 >= goal_ms:
        added = p99 - floor_p99
        return ("yes" if added < goal_ms else "no"), (
            "busy host: the bare floor's own p99 was %.1f ms, over the goal, so what numalab "
            "adds over it (%.1f ms) is judged against %g ms" % (floor_p99, added, goal_ms))
    return "no", ""


# --- /proc -----------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_user_sys_ticks(pid):
    """utime and stime of the whole process (all threads, dead ones too):
    its ticks in user code and in the kernel on its behalf."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[11]), int(fields[12])


def proc_cpu_ticks(pid):
    """utime + stime of the whole process (all threads, dead ones too)."""
    return sum(proc_user_sys_ticks(pid))


def proc_sched_threads(pid):
    """Each live thread's nanoseconds on CPU (schedstat), by tid; None
    when the process is gone."""
    threads = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                threads[tid] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return threads


def proc_sched_ns(pid):
    """Nanoseconds on CPU, summed over the live threads (schedstat)."""
    threads = proc_sched_threads(pid)
    return None if threads is None else sum(threads.values())


def proc_cpu_mark(pid):
    """A mark of the process's CPU so far: its ticks in user code and in
    the kernel (utime, stime: all threads, dead ones too, in 1/CLK_TCK
    steps) and each live thread's nanoseconds (schedstat)."""
    return proc_user_sys_ticks(pid), proc_sched_threads(pid) or {}


def proc_cpu_between(a, b):
    """Seconds of CPU from mark a to mark b: to the nanosecond from the
    threads' schedstat when no thread ended between them (a thread that
    started counts whole), else from the ticks (10 ms steps, which over a
    few hundred ms of a server's CPU are a swing of their own)."""
    (ta, na), (tb, nb) = a, b
    if na and set(na) <= set(nb):
        return sum(nb[t] - na.get(t, 0) for t in nb) / 1e9
    return (sum(tb) - sum(ta)) / CLK_TCK


def proc_user_sys_between(a, b):
    """The ticks in user code and in the kernel from mark a to mark b."""
    return [b[0][i] - a[0][i] for i in (0, 1)]


CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_ticks(cpu):
    """One CPU's line of /proc/stat: ticks by CPU_FIELDS, or None."""
    try:
        with open("/proc/stat") as f:
            for ln in f:
                if ln.startswith("cpu%d " % cpu):
                    return [int(x) for x in ln.split()[1:1 + len(CPU_FIELDS)]]
    except (OSError, ValueError):
        pass
    return None


def children_ticks(pid):
    """{child pid: its utime + stime} of pid's child processes (the
    server's workers), read now."""
    kids, out = [], {}
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for task in tasks:  # a child belongs to the thread that spawned it
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                kids += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pass
    for kid in kids:
        try:
            out[kid] = proc_cpu_ticks(kid)
        except (OSError, ValueError, IndexError):
            pass
    return out


class RunWindow:
    """Where one CPU's time went while the server's last worker ran: a
    thread reads the CPU's /proc/stat line and the workers' CPU ticks
    every 20 ms; the window is from the first reading where the newest
    worker had used a tick to the last where it used one more. From the
    server's side, so it holds however late a crowd of subscribers reads
    its events (a hook on the first subscriber's start and end events
    read the window after the run with 1,000 of them)."""

    def __init__(self, srv_pid, cpu):
        self.pid, self.cpu, self.reads, self.stop_ = srv_pid, cpu, [], False
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self.stop_:
            self.reads.append((time.monotonic(), cpu_ticks(self.cpu), children_ticks(self.pid)))
            time.sleep(0.02)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_ = True
        self.thread.join()

    def shares(self):
        """(cpu_shares over the window, {"cpu_s", "wall_s"} of the newest
        worker), or (None, None) when it used no tick while watched."""
        order = {}
        for _, _, kids in self.reads:
            for p in kids:
                order.setdefault(p, len(order))
        if not order:
            return None, None
        # the last to appear: the run after the blocker (pids may wrap)
        newest = max(order, key=order.get)
        seen = [(t, c, kids[newest]) for t, c, kids in self.reads if newest in kids]
        moved = [i for i in range(1, len(seen)) if seen[i][2] > seen[i - 1][2]]
        if not moved:
            return None, None
        a, z = seen[moved[0] - 1], seen[moved[-1]]
        return (cpu_shares(a[1], z[1]),
                {"cpu_s": (z[2] - a[2]) / CLK_TCK, "wall_s": z[0] - a[0]})


def cpu_shares(t0, t1):
    """Where a CPU's time went between two cpu_ticks(): {field: fraction}."""
    if not t0 or not t1:
        return None
    d = [y - x for x, y in zip(t0, t1)]
    total = sum(d)
    return {k: v / total for k, v in zip(CPU_FIELDS, d)} if total > 0 else None


def proc_status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith(key + ":"):
                return int(ln.split()[1])
    return None


def reset_peak_rss(pid):
    """Writing 5 to clear_refs resets VmHWM (Linux >= 4.0)."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# --- the server ------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """`numalab serve` on loopback with its own database, for one section."""

    def __init__(self, exe, workdir, name, env_extra=None, args=()):
        self.exe, self.workdir, self.name = exe, workdir, name
        self.env_extra = env_extra or {}
        self.args = list(args)
        self.proc = None
        self.port = None

    def start(self, timeout=15):
        db = os.path.join(self.workdir, "%s.db" % self.name)
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(db + suffix)
            except OSError:
                pass
        env = dict(os.environ)
        env.update(self.env_extra)
        self.log = open(os.path.join(self.workdir, "%s.log" % self.name), "w")
        # port 0: the server takes a free one and prints it
        # the blocker run that holds the queue (bench.py) is estimated far
        # above its real ~10 s: allow it (the server refuses a run whose
        # estimate is over --max-run-seconds)
        cmd = [self.exe, "serve", "--listen", "%s:0" % HOST, "--db", db,
               "--max-run-seconds", "3600"] + self.args
        try:
            self.proc = subprocess.Popen(cmd, stdout=self.log,
                                         stderr=subprocess.STDOUT, env=env)
        except OSError as e:
            raise Failure("cannot start '%s': %s" % (" ".join(cmd), e))
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.log.flush()
                with open(self.log.name) as f:
                    tail = f.read()[-400:]
                raise Failure("`numalab serve` exited %d: %s"
                              % (self.proc.returncode, tail.strip()))
            if self.port is None:
                with open(self.log.name) as f:
                    m = re.search(r"listening on http://[^ ]*:(\d+)/", f.read())
                if m:
                    self.port = int(m.group(1))
            if self.port is not None:
                try:
                    self.get("/api/experiments", timeout=2)
                    return self
                except (OSError, urllib.error.URLError):
                    pass
            time.sleep(0.05)
        self.stop()
        raise Failure("`numalab serve` did not answer within %d s (see %s)"
                      % (timeout, self.log.name))

    @property
    def pid(self):
        return self.proc.pid

    def url(self, path):
        return "http://%s:%d%s" % (HOST, self.port, path)

    def get(self, path, timeout=30):
        with urllib.request.urlopen(self.url(path), timeout=timeout) as r:
            return r.status, r.read()

    def get_json(self, path, timeout=30):
        return json.loads(self.get(path, timeout)[1])

    def request(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        rq = urllib.request.Request(self.url(path), data=data, method=method,
                                    headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(rq, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            try:
                return e.code, json.loads(e.read() or b"null")
            except ValueError:
                return e.code, None

    def submit(self, experiment, params):
        code, doc = self.request("POST", "/api/runs",
                                 {"experiment": experiment, "params": params})
        if code != 202 or not doc or "id" not in doc:
            raise Failure("POST /api/runs %s %s answered %s: %s"
                          % (experiment, params, code, doc))
        return doc["id"]

    def cancel(self, run_id):
        return self.request("DELETE", "/api/runs/%d" % run_id)[0]

    def wait_done(self, run_id, timeout=300):
        deadline = time.time() + timeout
        while time.time() < deadline:
            doc = self.get_json("/api/runs/%d" % run_id)
            if doc.get("status") not in ("queued", "running"):
                return doc
            time.sleep(0.05)
        raise Failure("run %d did not finish within %d s" % (run_id, timeout))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()
        self.proc = None


def points(samples, chart):
    """The y of every sample event of one chart, in order."""
    return [s["y"] for s in samples if s.get("chart") == chart]


def median_or_none(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def parse_kernel_alone(out):
    """tests/bench/kernel_alone's lines -> list of point dicts."""
    pts = []
    for ln in out.splitlines():
        f = ln.split("\t")
        if f[0] == "point" and len(f) >= 6:
            pts.append({"chart": f[1], "series": f[2], "x": float(f[3]),
                        "y": float(f[4]), "unit": f[5]})
        elif f[0] == "cell" and len(f) >= 6:
            pts.append({"cell": True, "chart": f[1], "row": int(f[2]),
                        "col": int(f[3]), "value": float(f[4]), "unit": f[5]})
    return pts


def kv(params):
    return ["%s=%s" % (k, v) for k, v in params.items()]


def human_bytes(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % (size // 1024 if size > 1024 else 1) == 0:
            v = n / size
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.1f %s" % (v, unit))
    return "%d B" % n


def first_number(pattern, text):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else None
