"""phones.py - the class rows of `make bench`: a classroom of phones, each
signed in as a student, following the class through GET /api/class/events
and sending one guess while a run is timed (tests/bench/guess_client sends
the guesses, each on its own connection at its planned moment), against the same run with no
phone connected (A B A B). Judged: the run's figure <= 1.02x; the guesses'
p99 < 50 ms, against the same guesses to a bare libmicrohttpd server beside
the same run (a busy host is said to be). Never skipped by a budget: the
first pair always runs.
"""

import asyncio
import http.client
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import time

import common
from common import Failure, summary, ratios

PHONES = int(os.environ.get("BENCH_PHONES", "1000"))
TOKEN = "bench-teacher-token-phones"
CLASS = "bench-class-token-of-the-phones"
GUESS_P99_MS = 50.0


def teacher_request(srv, method, path, body=None, headers=None, timeout=30):
    """(status, JSON answer, headers) of one request from 127.0.0.1."""
    c = http.client.HTTPConnection(common.HOST, srv.port, timeout=timeout)
    try:
        h = {"Content-Type": "application/json"}
        h.update(headers if headers is not None else {"Authorization": "Bearer " + TOKEN})
        c.request(method, path, json.dumps(body) if body is not None else None, h)
        r = c.getresponse()
        data = r.read()
        return r.status, json.loads(data) if data else None, r.getheader("set-cookie")
    finally:
        c.close()


def wait_done(srv, rid, timeout=300):
    """The run's document once it has ended. Its status is read from the
    runs' list (a row, cheap): polling a running run's document would have
    the server fold all its events each time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, page, _ = teacher_request(srv, "GET", "/api/runs?limit=1")
        row = (page or {}).get("runs", [{}])[0]
        if row.get("id") == rid and row.get("status") not in ("queued", "running"):
            return teacher_request(srv, "GET", "/api/runs/%d" % rid)[1]
        time.sleep(0.1)
    raise Failure("run %d did not finish within %d s" % (rid, timeout))


def sign_in(srv, n):
    """n student sessions (from 127.0.0.1: the lab machine's own sign-ins
    are bounded by --max-client-sessions, not slowed): the request lines
    each phone sends after."""
    out = []
    for i in range(n):
        st, doc, cookie = teacher_request(srv, "POST", "/api/session",
                                          {"token": CLASS, "name": "phone %d" % i}, headers={})
        if st != 200 or not cookie:
            raise Failure("phone %d could not sign in: %s %s" % (i, st, doc))
        out.append((cookie.split(";")[0], doc["key"]))
    return out


def auth_lines(cookie, key):
    """The headers a phone's requests carry after its sign-in."""
    return "Cookie: %s\r\nX-Numalab-Key: %s\r\n" % (cookie, key) if cookie else ""


async def send_guesses(b, port, plan):
    """The guesses of plan [(delay s, source address, cookie, key, value)],
    each a POST /api/class/guesses on its own connection at its moment,
    sent by tests/bench/guess_client (one C thread on epoll: the Python
    loop that also reads the phones' streams would time its own queue,
    200-400 ms at p99 for a bare server): [(status, ms or None, why)]."""
    lines = "".join("%.3f %s %s %s {\"value\":%.6g}\n"
                    % (1e3 * d, src, cookie or "-", key or "-", v)
                    for d, src, cookie, key, v in plan)
    proc = await asyncio.create_subprocess_exec(
        b.tool("guess_client"), str(port), "/api/class/guesses",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate(lines.encode())
    if proc.returncode:
        raise Failure("guess_client exited %d" % proc.returncode)
    res = []
    for line in out.decode().splitlines():
        st, ms, *why = line.split(" ", 2)
        res.append((int(st), float(ms) if float(ms) >= 0 else None, why[0] if why else ""))
    if len(res) != len(plan):
        raise Failure("guess_client answered %d of %d guesses" % (len(res), len(plan)))
    return res


def guess_plan(sources, auths, spread_s, seed):
    """Each phone's guess: its moment within spread_s and its value."""
    rnd = random.Random(seed)
    return [(rnd.uniform(0, spread_s), src, a[0], a[1], rnd.uniform(1, 9))
            for src, a in zip(sources, auths)]


class Dechunk:
    """An HTTP/1.1 chunked body's lines, fed as it comes."""

    def __init__(self):
        self.raw, self.text, self.left = b"", b"", 0

    def lines(self, data):
        self.raw += data
        while self.raw:
            if self.left:
                take = self.raw[:self.left]
                self.text += take
                self.raw, self.left = self.raw[len(take):], self.left - len(take)
                continue
            end = self.raw.find(b"\r\n")
            if end < 0:
                break
            size, self.raw = self.raw[:end], self.raw[end + 2:]
            self.left = int(size.split(b";")[0], 16) if size.strip() else 0
        *done, self.text = self.text.split(b"\n")
        return done


class Phone:
    """One student's phone: its class event stream, and a guess when asked."""

    def __init__(self, srv, auth, source):
        self.srv, self.auth, self.source = srv, auth_lines(*auth), source
        self.events = 0
        self.answered = None
        self.error = None
        self.writer = None

    async def follow(self, connected):
        try:
            reader, self.writer = await asyncio.open_connection(
                common.HOST, self.srv.port, local_addr=(self.source, 0))
            self.writer.write(("GET /api/class/events HTTP/1.1\r\nHost: %s:%d\r\n"
                               "Accept: text/event-stream\r\n%s\r\n"
                               % (common.HOST, self.srv.port, self.auth)).encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise Failure(head.split(b"\r\n", 1)[0].decode("latin-1"))
            connected.set_result(True)
            body = Dechunk()
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                self.events += data.count(b"\nid: ") + data.startswith(b"id: ")
                for line in body.lines(data):
                    if line.startswith(b"data: {"):
                        self.answered = json.loads(line[6:]).get("answered", self.answered)
        except (OSError, asyncio.IncompleteReadError, Failure) as e:
            self.error = "%s: %s" % (type(e).__name__, e)
            if not connected.done():
                connected.set_result(False)
        except asyncio.CancelledError:
            pass


# the phones' streams are read at this niceness: their reading stands for
# a thousand devices, not for work on the lab machine, and at the default
# it held the cpu the server and guess_client answer on (a broadcast of
# the count took the one Python process 30-50 ms to read, and the guesses
# then waited on it)
FOLLOW_NICE = 10


def follow_all(port, auths, conn):
    """The phones' streams, in a process of their own (niced): says
    ("connected", errors) once all are open, waits for ("final", count),
    then waits up to 5 s for every phone's stream to carry that count
    and answers [(events, last count, error)] a phone."""
    os.nice(FOLLOW_NICE)
    srv = type("Srv", (), {"port": port})()

    async def main():
        loop = asyncio.get_running_loop()
        phones = [Phone(srv, a, sse_source(i)) for i, a in enumerate(auths)]
        futs = [loop.create_future() for _ in phones]
        tasks = []
        for p, f in zip(phones, futs):
            tasks.append(asyncio.ensure_future(p.follow(f)))
            await asyncio.sleep(0)
        ok = await asyncio.wait_for(asyncio.gather(*futs), 120)
        conn.send(("connected", [p.error for p in phones if p.error][:3]
                   if not all(ok) else []))
        _, counted = await loop.run_in_executor(None, conn.recv)
        # the feed sends a new count at most once a second
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(p.answered != counted for p in phones):
            await asyncio.sleep(0.1)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for p in phones:
            if p.writer:
                p.writer.close()
        conn.send([(p.events, p.answered, p.error) for p in phones])
    asyncio.run(main())


def run_with_phones(b, srv, params, auths, spread_s):
    """One run timed while the phones follow the class and each sends one
    guess, spread over spread_s seconds from the run's start: (run
    document, guess latencies in ms, phones [(events, last count, error)],
    server CPU seconds)."""
    ours, theirs = multiprocessing.Pipe()
    follower = multiprocessing.Process(target=follow_all, args=(srv.port, auths, theirs))
    follower.start()

    async def main():
        loop = asyncio.get_running_loop()
        if not ours.poll(120):
            raise Failure("the phones did not connect within 120 s")
        _, bad = ours.recv()
        if bad:
            raise Failure("some of %d phones could not follow the class: %s"
                          % (len(auths), bad))
        k0 = common.proc_cpu_ticks(srv.pid)
        rid = await loop.run_in_executor(None, srv.submit, "false_sharing", params)
        while (await loop.run_in_executor(None, teacher_request, srv, "GET",
                                          "/api/runs?limit=1"))[1]["runs"][0].get(
                "status") == "queued":
            await asyncio.sleep(0.02)
        plan = guess_plan([sse_source(i) for i in range(len(auths))], auths, spread_s, rid)
        guesses = asyncio.ensure_future(send_guesses(b, srv.port, plan))
        doc = await loop.run_in_executor(None, wait_done, srv, rid)
        answers = await guesses
        counted = sum(1 for st, _, _ in answers if st == 200)
        ours.send(("final", counted))
        if not ours.poll(30):
            raise Failure("the phones did not report within 30 s")
        phones = [list(x) for x in ours.recv()]
        cpu = (common.proc_cpu_ticks(srv.pid) - k0) / common.CLK_TCK
        for p, (st, _, why) in zip(phones, answers):
            if st != 200 and not p[2]:
                p[2] = "guess: %s" % (why or "answered %d" % st)
        b.raw.setdefault("phones_guesses", []).append(
            [(round(d * 1e3, 1), ms) for (d, *_), (st, ms, _) in zip(plan, answers)])
        return doc, [ms for st, ms, _ in answers if st == 200], phones, cpu
    try:
        return asyncio.run(main())
    finally:
        follower.join(10)
        if follower.is_alive():
            follower.terminate()
            follower.join()


async def bare_guesses(b, port, n, spread_s, seed):
    """The floor: n guesses at the same pace, from the same addresses, by
    the same client, to a bare libmicrohttpd server answering fixed bytes
    (tests/bench/mhd_fixed): what the host, loopback and the client cost a
    guess. Their latencies in ms."""
    plan = guess_plan([sse_source(i) for i in range(n)], [(None, None)] * n, spread_s, seed)
    res = await send_guesses(b, port, plan)
    bad = sorted({why or str(st) for st, _, why in res if st != 200})[:3]
    if bad:
        raise Failure("the bare server's guesses failed: %s" % bad)
    return [ms for _, ms, _ in res]


def floor_beside_run(b, params, spread_s, seed):
    """Bare guesses while the same run goes on through the CLI (its kernel
    on the same cpu): the guesses' floor on this host at this moment."""
    body = os.path.join(b.work, "guess.json")
    with open(body, "w") as f:
        f.write('{"answered": 1}')
    bare = subprocess.Popen([b.tool("mhd_fixed"), "--mode", "pool", "--threads", "2", body],
                            stdout=subprocess.PIPE, text=True)
    run = None
    try:
        port = int(bare.stdout.readline().split()[1])
        # the run may use every cpu, as under the server (this process
        # is pinned to the last one)
        run = subprocess.Popen([b.exe, "run", "--json", "false_sharing"] + common.kv(params),
                               stdout=subprocess.DEVNULL,
                               preexec_fn=lambda: os.sched_setaffinity(0, set(b.cpus)))
        time.sleep(0.3)  # past the run's start, as the served side waits for it
        return asyncio.run(bare_guesses(b, port, PHONES, spread_s, seed))
    finally:
        if run:
            run.wait()
        bare.terminate()
        bare.wait()


def sse_source(i):
    """The phones come from 127.0.3.2, 127.0.3.3, ... 100 an address."""
    return "127.0.%d.%d" % (3 + (2 + i // 100) // 256, (2 + i // 100) % 256)


def phones(b):
    b.need_experiment("false_sharing", ["threads", "layout", "stride", "increments"])
    # the fan-out rows' run: one kernel thread on the first CPU, ~1-2 s
    from sections import stride_list
    params = {"threads": "1", "layout": "both", "stride": stride_list(120),
              "increments": "4000000", "repeat": "3", "warmup": "1",
              "cpus": str(b.cpus[0]), "budget": "0"}

    def figure(doc):
        ys = [s["y"] for s in doc["samples"] if s.get("chart") == "time"]
        return statistics.median(ys) / int(params["increments"]) * 1e9

    srv = common.Server(b.exe, b.work, "phones",
                        args=["--token", TOKEN, "--class-token", CLASS,
                              "--max-client-sessions", "1024"])
    # the teacher's requests carry the token (the server has one: phones
    # sign in only then)
    srv.request = lambda method, path, body=None, timeout=30: teacher_request(
        srv, method, path, body, timeout=timeout)[:2]
    srv.get_json = lambda path, timeout=30: teacher_request(srv, "GET", path, timeout=timeout)[1]
    srv.get = lambda path, timeout=30: teacher_request(srv, "GET", path, timeout=timeout)[:2]
    srv.start()
    old = b.pin_self({b.cpus[-1]})
    a, bb, lat, floor, cpus, checks, rss = [], [], [], [], [], [], []
    try:
        _, exps, _ = teacher_request(srv, "GET", "/api/experiments")
        lesson = [e for e in exps if e["name"] == "false_sharing"][0]["lessons"][0]["id"]

        def open_question():
            """A new question: the count of answers starts again at 0."""
            st, doc, _ = teacher_request(srv, "PUT", "/api/class/question",
                                         {"experiment": "false_sharing", "lesson": lesson})
            if st != 200:
                raise Failure("the question could not be opened: %s %s" % (st, doc))
        open_question()
        auths = sign_in(srv, PHONES)
        idle_rss = common.proc_status_kb(srv.pid, "VmRSS")

        def pair():
            t0 = time.monotonic()
            doc0 = wait_done(srv, srv.submit("false_sharing", params))
            took = time.monotonic() - t0
            bb.append(figure(doc0))
            common.reset_peak_rss(srv.pid)
            open_question()
            doc, ms, ph, cpu = run_with_phones(b, srv, params, auths, 0.8 * took)
            if doc.get("status") != "done":
                raise Failure("the run beside the phones ended %s" % doc.get("status"))
            a.append(figure(doc))
            lat.extend(ms)
            floor.extend(floor_beside_run(b, params, 0.8 * took, len(a)))
            cpus.append(cpu / max(took, 1e-9))
            rss.append(common.proc_status_kb(srv.pid, "VmHWM"))
            checks.append({"guessed": len(ms), "followed": sum(1 for p in ph if p[0]),
                           "saw_all": sum(1 for p in ph if p[1] == PHONES),
                           "errors": sorted({p[2] for p in ph if p[2]})[:3]})
        k, why = b.ab_pairs("%d phones: kernel ns/increment" % PHONES, pair,
                            lambda: summary(ratios(a, bb)), (1.02,), 1, common.MIN_PAIRS + 1)
    finally:
        b.pin_self(old)
        srv.stop()
    r = summary(ratios(a, bb))
    ok = all(c["guessed"] == PHONES and c["followed"] == PHONES and c["saw_all"] == PHONES
             for c in checks)
    sa, sb = summary(a), summary(bb)
    within = r["median"] <= 1.02 or sb["min"] <= sa["median"] <= sb["max"]
    note = ("%d phones signed in, each following GET /api/class/events and sending one "
            "guess spread over the run (a new question each run); every phone followed, "
            "guessed and saw the final count of %d answers in %d/%d runs; "
            "server CPU beside the phones %.1f%% of a CPU, peak RSS %.1f MB (idle %.1f MB)"
            % (PHONES, PHONES, sum(1 for c in checks if c["guessed"] == c["saw_all"] == PHONES),
               len(checks),
               100 * statistics.median(cpus), max(rss) / 1024.0, idle_rss / 1024.0))
    if not ok:
        note += "; short: %s" % [c for c in checks if c["guessed"] != PHONES
                                 or c["saw_all"] != PHONES][:2]
    if b.pairs_note(k, why):
        note += "; " + b.pairs_note(k, why)
    b.row("phones", "%d phones: kernel ns/increment" % PHONES, sa, sb, "ns", r,
          "<= 1.02 or within noise", "yes" if ok and within else "no", note,
          a_label="phones", b_label="none", fmt="%.3f")
    v, fv = sorted(lat), sorted(floor)
    p50, p99, f99 = (common.percentile(v, 50), common.percentile(v, 99),
                     common.percentile(fv, 99))
    meets, busy = common.judge_p99(p99, f99, GUESS_P99_MS)
    one = lambda x: {"values": None, "n": 1, "median": x, "min": x, "max": x}  # noqa: E731
    b.row("phones", "%d phones: a guess's answer, p99 over %d" % (PHONES, len(v)),
          one(p99), one(f99), "ms", one(p99 / f99 if f99 else None),
          "p99 < %g ms (busy: over the bare's)" % GUESS_P99_MS, meets,
          "p50 %.2f ms, max %.2f ms; from the guess's planned moment to the answer's last "
          "byte, each on a new connection sent by tests/bench/guess_client (one C thread on "
          "epoll) while a process of its own at nice %d reads the %d streams; the bare side "
          "(B): the same guesses to "
          "tests/bench/mhd_fixed while the same run goes on through the CLI, "
          "p50 %.2f ms; load average %.1f%s"
          % (p50, v[-1], FOLLOW_NICE, PHONES, common.percentile(fv, 50), os.getloadavg()[0],
             "; " + busy if busy else ""),
          a_label="guess", b_label="bare", fmt="%.2f")
    b.raw["phones"] = {"params": params, "with": a, "without": bb, "guess_ms": v, "bare_ms": fv,
                       "server_cpu_share": cpus, "peak_rss_kb": rss, "checks": checks}
