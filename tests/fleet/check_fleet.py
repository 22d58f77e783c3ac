"""check_fleet.py - `numalab fleet run` against the test cluster (SLURM_CONF
set by test_fleet.sh) and through ClusterShell's exec worker: each node's run
is imported with where it ran, a node made to fail is recorded with its
reason, and the store and the API show the campaigns. Both virtual nodes share
this host's CPUs, so nothing here is about speed."""
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "api"))
from harness import Server, wait_until  # noqa: E402

BIN = os.environ["NUMALAB_BIN"]
TMP = os.environ["FLEET_TMP"]
DB = os.path.join(TMP, "fleet.db")
SMALL = ["atomic_increment", "threads=2", "increments=20000", "repeat=3"]


def fleet(*args, cwd=TMP, env=None, timeout=180):
    p = subprocess.run([BIN, "fleet", "run", *args], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p


# the server's token, as `serve --fleet` hands it to the coordinator: in
# NUMALAB_TOKEN. No job and no clush command may see it (nor a copy of it
# under another name): the coordinator alone delivers.
ENV_TOKEN = "fleet-env-secret-7f3a91"


def env_dumper(tag):
    """A --numalab that writes its environment to a file, then runs numalab."""
    where = os.path.join(TMP, "env-" + tag)
    shutil.rmtree(where, ignore_errors=True)
    os.makedirs(where)
    script = os.path.join(TMP, "env-%s.sh" % tag)
    with open(script, "w") as f:
        f.write('#!/bin/sh\nenv > "%s/$$.env"\nexec "%s" "$@"\n' % (where, BIN))
    os.chmod(script, 0o755)
    return where, script


def deliver_with_env_token(test, tag, *engine, only_needed=False):
    """A campaign into a server whose token the coordinator has from its
    environment; every job's environment is dumped and searched for it.
    only_needed: a job gets none of the coordinator's other variables
    either (Slurm's --export list), only those it reads."""
    where, script = env_dumper(tag)
    token = os.path.join(TMP, "env-token")
    with open(token, "w") as f:
        f.write(ENV_TOKEN + "\n")
    srv = Server(TMP, db=os.path.join(TMP, "env-%s.db" % tag), name="env-" + tag,
                 args=["--token-file", token])
    srv.start()
    try:
        p = fleet(*SMALL, *engine, "--numalab", script, "--server",
                  "http://127.0.0.1:%d" % srv.port,
                  env={"NUMALAB_TOKEN": ENV_TOKEN, "LAB_NOTE": "x" + ENV_TOKEN + "y",
                       "LAB_PLAIN": "not-for-jobs"})
        test.assertEqual(p.returncode, 0, p.stderr)
        test.assertIn("2 of 2 nodes done", p.stdout)
        st, doc, _ = srv.json("GET", "/api/campaigns",
                              headers={"Authorization": "Bearer " + ENV_TOKEN})
        test.assertEqual(st, 200)
        test.assertEqual(doc["campaigns"][0]["done"], 2)
    finally:
        srv.stop()
    dumps = sorted(os.listdir(where))
    test.assertEqual(len(dumps), 2, dumps)
    for name in dumps:
        with open(os.path.join(where, name)) as f:
            env = f.read()
        test.assertIn("NUMALAB_FLEET_CAMPAIGN=", env)
        holding = [line.partition("=")[0] for line in env.splitlines()
                   if ENV_TOKEN in line]
        test.assertEqual(holding, [], "a job's environment holds the token")
        if only_needed:
            names = {line.partition("=")[0] for line in env.splitlines()}
            test.assertIn("PATH", names)
            test.assertNotIn("LAB_PLAIN", names,
                             "a job got a variable of the coordinator it does not need")


def lab_cert(name, san):
    """A self-signed certificate naming san, and its key, as the README
    makes a lab's; None when openssl is missing."""
    if not shutil.which("openssl"):
        return None
    cert, key = os.path.join(TMP, name + ".crt"), os.path.join(TMP, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=numalab fleet test", "-addext",
                    "subjectAltName=" + san, "-keyout", key, "-out", cert],
                   check=True, capture_output=True, timeout=60)
    os.chmod(key, 0o600)
    return cert, key


def tls_server(test, name, cert, key, host, *args):
    """A server on HTTPS with cert, read by this test as host (verified)."""
    import ssl
    srv = Server(TMP, db=os.path.join(TMP, name + ".db"), name=name,
                 args=["--tls-cert", cert, "--tls-key", key, *args])
    srv.ssl_context = ssl.create_default_context(cafile=cert)
    srv.start()
    srv.host = host
    return srv


def campaign_id(out):
    first = out.splitlines()[0]
    assert first.startswith("campaign "), first
    return first.split()[1].rstrip(":")


def runs(db=DB):
    c = sqlite3.connect(db)
    try:
        return {r[0]: json.loads(r[1]) for r in c.execute("SELECT id, machine FROM runs")}
    finally:
        c.close()


# one thread and 64 KiB: a run of a few ms, so that many "machines" that are
# all this host's cpus finish in about a minute
MICRO = ["memory_policy_semantics", "size=64K", "repeat=1", "steps=after_touch"]
WIDE = ["m%02d" % i for i in range(1, int(os.environ.get("CLUSTER_WIDE", "32")) + 1)]


def token_server(name):
    home = tempfile.mkdtemp(prefix=name + "-", dir=TMP)
    token = os.path.join(home, "token")
    with open(token, "w") as f:
        f.write("fleet-%s-secret\n" % name)
    srv = Server(home, db=os.path.join(home, name + ".db"), name=name,
                 args=["--token-file", token])
    srv.start()
    return srv, {"Authorization": "Bearer fleet-%s-secret" % name}, home, token


def clush_conf(home, fanout):
    """An XDG_CONFIG_HOME whose clush.conf says how many at once."""
    conf = os.path.join(home, "xdg")
    os.makedirs(os.path.join(conf, "clustershell"), exist_ok=True)
    with open(os.path.join(conf, "clustershell", "clush.conf"), "w") as f:
        f.write("[Main]\nfanout: %d\n" % fanout)
    return conf


class Background:
    """`numalab fleet run` in the background, its output into files (a
    pipe nobody reads while it runs would stop it); finish() -> (out, err)."""

    def __init__(self, args, env, cwd):
        self.out = tempfile.NamedTemporaryFile("w+", dir=cwd, suffix=".out")
        self.err = tempfile.NamedTemporaryFile("w+", dir=cwd, suffix=".err")
        self.proc = subprocess.Popen([BIN, "fleet", "run", *args], cwd=cwd, text=True,
                                     stdout=self.out, stderr=self.err,
                                     env=dict(os.environ, **(env or {})))
        self.returncode = None

    def poll(self):
        return self.proc.poll()

    def communicate(self, timeout):
        self.returncode = self.proc.wait(timeout)
        texts = []
        for f in (self.out, self.err):
            f.seek(0)
            texts.append(f.read())
            f.close()
        return texts


def fleet_bg(*args, env=None, cwd=TMP):
    return Background(args, env, cwd)


def watch(srv, auth, cid, proc, every=0.3):
    """Reads the campaign while proc runs: [(state, done, total, seconds)]."""
    t0, seen = time.monotonic(), []
    while proc.poll() is None:
        st, c, _ = srv.json("GET", "/api/campaigns/%s?limit=1" % cid, headers=auth)
        if st == 200:
            seen.append((c["state"], c["counts"]["done"], c["total"], time.monotonic() - t0))
        time.sleep(every)
    return seen


def every_node(srv, auth, cid):
    """The campaign with all its nodes, read 1000 a page."""
    st, c, _ = srv.json("GET", "/api/campaigns/%s?limit=1000" % cid, headers=auth)
    assert st == 200, c
    while len(c["nodes"]) < c["total"]:
        st, more, _ = srv.json("GET", "/api/campaigns/%s?limit=1000&offset=%d"
                               % (cid, len(c["nodes"])), headers=auth)
        c["nodes"] += more["nodes"]
    return c


def db_runs_by_node(db, cid):
    """How many runs the store holds of each node of campaign cid."""
    c = sqlite3.connect(db)
    try:
        out = {}
        for (m,) in c.execute("SELECT machine FROM runs"):
            f = (json.loads(m) or {}).get("fleet") or {}
            if f.get("campaign") == cid:
                out[f["node"]] = out.get(f["node"], 0) + 1
        return out
    finally:
        c.close()


def server_memory(srv):
    """The server's resident memory now and at its peak, from /proc."""
    try:
        with open("/proc/%d/status" % srv.pid()) as f:
            kv = dict(l.split(":", 1) for l in f if ":" in l)
        return "%s now, %s at most" % (kv["VmRSS"].strip(), kv["VmHWM"].strip())
    except OSError:
        return "unknown"


class SlurmTest(unittest.TestCase):
    def test_1_every_node_runs_and_says_where(self):
        p = fleet(*SMALL, "--engine", "slurm", "--nodes", "n[1-2]", "--db", DB)
        self.assertEqual(p.returncode, 0, p.stderr)
        cid = campaign_id(p.stdout)
        self.assertIn("2 of 2 nodes done", p.stdout)
        mine = {m["fleet"]["node"]: m["fleet"] for m in runs().values()
                if m.get("fleet", {}).get("campaign") == cid}
        self.assertEqual(sorted(mine), ["n1", "n2"])
        for node, features in (("n1", ["small", "gen1"]), ("n2", ["big", "gen2"])):
            f = mine[node]
            self.assertEqual(f["engine"], "slurm")
            self.assertEqual(f["cluster"], "numalab-test")
            self.assertEqual(f["partition"], "lab")
            self.assertEqual(f["features"], features)
            self.assertTrue(f["exclusive"])
            self.assertTrue(f["job_id"].isdigit())
            self.assertIsNone(f["array_task"])
        SlurmTest.first = cid

    def test_2_a_failing_node_is_recorded_with_its_reason(self):
        # a numalab that cannot start on n2, as a broken install would
        broken = os.path.join(TMP, "broken-on-n2.sh")
        with open(broken, "w") as f:
            f.write('#!/bin/sh\n[ "$SLURMD_NODENAME" = n2 ] && '
                    '{ echo "numalab: libhwloc.so.15 not found" >&2; exit 127; }\n'
                    'exec "%s" "$@"\n' % BIN)
        os.chmod(broken, 0o755)
        p = fleet(*SMALL, "--engine", "slurm", "--partition", "lab", "--all", "--numalab", broken,
                  "--db", DB)
        self.assertEqual(p.returncode, 1)
        cid = campaign_id(p.stdout)
        c = sqlite3.connect(DB)
        nodes = {r[0]: r[1:] for r in c.execute(
            "SELECT node, state, reason, run_id FROM campaign_nodes WHERE campaign_id=?", (cid,))}
        c.close()
        self.assertEqual(nodes["n1"][0], "done")
        self.assertIsNotNone(nodes["n1"][2])
        self.assertEqual(nodes["n2"][0], "failed")
        self.assertIn("status 127", nodes["n2"][1])
        self.assertIn("libhwloc.so.15 not found", nodes["n2"][1])
        self.assertIsNone(nodes["n2"][2])

    def test_3_a_drained_node_gets_no_job_and_says_why(self):
        subprocess.run(["scontrol", "update", "NodeName=n2", "State=DRAIN",
                        "Reason=fan broken"], check=True)
        try:
            p = fleet(*SMALL, "--engine", "slurm", "--constraint", "gen1|gen2", "--db", DB)
        finally:
            subprocess.run(["scontrol", "update", "NodeName=n2", "State=RESUME"], check=True)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"n2 +failed +- +- +node is drain\S*: fan broken")
        self.assertRegex(p.stdout, r"n1 +done")

    def test_4_constraint_picks_nodes_by_feature(self):
        p = fleet(*SMALL, "--engine", "slurm", "--constraint", "big", "--db", DB)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("on 1 node\n", p.stdout)
        self.assertRegex(p.stdout, r"n2 +done")

    def test_5_bad_requests_exit_2_with_the_reason(self):
        for args, msg in (
            (["--nodes", "n[1-3]"], "sinfo lists no node 'n3'"),
            (["--nodes", "n[1-"], "unbalanced '[' in 'n[1-'"),
            (["--constraint", "gpu"], "no node has feature 'gpu'"),
            ([], "which nodes? (give --nodes LIST, --constraint FEATURE or --all)"),
        ):
            p = fleet(*SMALL, "--engine", "slurm", *args, "--db", DB)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(msg, p.stderr)
        p = fleet("atomic_increment", "thread=2", "--engine", "slurm", "--all")
        self.assertEqual(p.returncode, 2)
        self.assertIn("experiment 'atomic_increment' has no parameter 'thread'", p.stderr)
        p = fleet(*SMALL, "--engine", "pbs", "--all")
        self.assertIn("engine 'pbs' is not one of slurm, clush", p.stderr)

    def test_6_into_a_running_server_with_its_token(self):
        token = os.path.join(TMP, "token")
        with open(token, "w") as f:
            f.write("fleet-secret\n")
        srv = Server(TMP, db=os.path.join(TMP, "served.db"), args=["--token-file", token])
        srv.start()
        try:
            p = fleet(*SMALL, "--engine", "slurm", "--partition", "lab", "--all", "--server",
                      "http://127.0.0.1:%d" % srv.port, "--token-file", token)
            self.assertEqual(p.returncode, 0, p.stderr)
            cid = campaign_id(p.stdout)
            auth = {"Authorization": "Bearer fleet-secret"}
            st, doc, _ = srv.json("GET", "/api/campaigns", headers=auth)
            self.assertEqual(st, 200)
            self.assertEqual([c["id"] for c in doc["campaigns"]], [cid])
            self.assertEqual(doc["campaigns"][0]["done"], 2)
            st, c, _ = srv.json("GET", "/api/campaigns/" + cid, headers=auth)
            self.assertEqual(st, 200)
            self.assertEqual([n["node"] for n in c["nodes"]], ["n1", "n2"])
            for n in c["nodes"]:
                self.assertEqual(n["state"], "done")
                self.assertEqual(n["run"]["machine"]["fleet"]["node"], n["node"])
            # without the token, nothing is recorded
            p = fleet(*SMALL, "--engine", "slurm", "--nodes", "n1", "--server",
                      "http://127.0.0.1:%d" % srv.port)
            self.assertEqual(p.returncode, 1)
            self.assertIn("the server answered 401", p.stderr + p.stdout)
        finally:
            srv.stop()

    def test_7_a_heatmap_experiment_on_both_nodes(self):
        p = fleet("core_to_core", "samples=5", "round_trips=50", "--engine", "slurm",
                  "--nodes", "n[1-2]", "--db", DB)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("2 of 2 nodes done", p.stdout)
        SlurmTest.heat = campaign_id(p.stdout)

    def test_8_a_campaign_started_from_the_page(self):
        token = os.path.join(TMP, "token")
        with open(token, "w") as f:
            f.write("fleet-secret\n")
        for args, msg in ((["--fleet", "slurm"], "'--fleet slurm' needs a token"),
                          (["--fleet", "pbs", "--token-file", token],
                           "bad value 'pbs' for '--fleet' (slurm or clush)")):
            p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db",
                                os.path.join(TMP, "page.db"), *args],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2)
            self.assertIn(msg, p.stderr)
        home = os.path.join(TMP, "login")
        os.makedirs(home, exist_ok=True)
        srv = Server(home, db=os.path.join(home, "page.db"), name="fleet-page",
                     args=["--token-file", token, "--fleet", "slurm"])
        srv.start()
        try:
            auth = {"Authorization": "Bearer fleet-secret"}
            want = {"experiment": "atomic_increment", "nodes": "n[1-2]",
                    "params": {"threads": "2", "increments": "20000", "repeat": "3"}}
            st, err, _ = srv.json("POST", "/api/campaigns/start", want)
            self.assertEqual(st, 401, err)
            for bad, field, msg in (
                (dict(want, nodes="-w n1"), "nodes", "bad nodes '-w n1'"),
                (dict(want, params={"thread": "2"}), "params",
                 "experiment 'atomic_increment' has no parameter 'thread'"),
                (dict(want, experiment="nope"), "experiment", "unknown experiment 'nope'"),
                ({"experiment": "atomic_increment"}, "nodes", "which nodes?"),
                (dict(want, engine="clush"), "engine", "unknown field 'engine'"),
            ):
                st, err, _ = srv.json("POST", "/api/campaigns/start", bad, headers=auth)
                self.assertEqual(st, 400, err)
                self.assertEqual(err["field"], field)
                self.assertIn(msg, err["error"])
            st, ans, _ = srv.json("POST", "/api/campaigns/start", want, headers=auth)
            self.assertEqual(st, 202, ans)
            cid = ans["id"]
            self.assertEqual(ans["url"], "/api/campaigns/" + cid)
            self.assertTrue(ans["log"].startswith(os.path.join(home, "numalab-campaigns")))

            def finished():
                # the campaign records each node as it is imported, and says
                # it is over last, in its log
                with open(ans["log"]) as f:
                    if "nodes done" not in f.read():
                        return False
                st, c, _ = srv.json("GET", ans["url"], headers=auth)
                return st == 200 and len(c["nodes"]) == 2
            ok = wait_until(finished, ceiling=170)
            with open(ans["log"]) as f:
                log = f.read()
            sys.stdout.write(log)
            self.assertTrue(ok, log)
            st, c, _ = srv.json("GET", ans["url"], headers=auth)
            self.assertEqual(c["engine"], "slurm")
            self.assertEqual(c["experiment"], "atomic_increment")
            for n in c["nodes"]:
                self.assertEqual(n["state"], "done", n)
                self.assertEqual(n["run"]["machine"]["fleet"]["campaign"], cid)
            self.assertIn("2 of 2 nodes done", log)
        finally:
            srv.stop()


    def test_8b_a_campaign_started_from_an_https_page(self):
        # a lab's certificate that names the machine, not 127.0.0.1: the
        # campaign verifies it by that name, reaching the server on loopback
        made = lab_cert("page-tls", "DNS:localhost")
        if not made:
            self.skipTest("SKIP: no 'openssl' to make a certificate")
        cert, key = made
        other = lab_cert("page-other", "DNS:elsewhere.example")
        token = os.path.join(TMP, "token-tls")
        with open(token, "w") as f:
            f.write("fleet-tls-secret\n")
        p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db",
                            os.path.join(TMP, "page-other.db"), "--token-file", token,
                            "--fleet", "slurm", "--tls-cert", other[0], "--tls-key", other[1]],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("the certificate names none of 127.0.0.1, localhost", p.stderr)
        srv = tls_server(self, "page-tls", cert, key, "localhost",
                         "--token-file", token, "--fleet", "slurm")
        try:
            auth = {"Authorization": "Bearer fleet-tls-secret"}
            want = {"experiment": "atomic_increment", "nodes": "n[1-2]",
                    "params": {"threads": "2", "increments": "20000", "repeat": "3"}}
            st, ans, _ = srv.json("POST", "/api/campaigns/start", want, headers=auth)
            self.assertEqual(st, 202, ans)

            def finished():
                # the summary, then where it went (or why it did not)
                with open(ans["log"]) as f:
                    text = f.read()
                return "imported into" in text or "numalab fleet:" in text
            ok = wait_until(finished, ceiling=170)
            with open(ans["log"]) as f:
                log = f.read()
            sys.stdout.write(log)
            self.assertTrue(ok, log)
            self.assertIn("imported into https://localhost:%d/" % srv.port, log)
            st, c, _ = srv.json("GET", ans["url"], headers=auth)
            self.assertEqual(st, 200, c)
            self.assertEqual([n["state"] for n in c["nodes"]], ["done", "done"])
        finally:
            srv.stop()

    def test_90_thirty_two_nodes_seen_as_they_finish(self):
        """The wide partition: 32 slurmd on this host, one exclusive job
        each; the campaign is there while its jobs run."""
        srv, auth, home, token = token_server("wide")
        try:
            t0 = time.monotonic()
            proc = fleet_bg(*MICRO, "--engine", "slurm", "--partition", "wide", "--all",
                            "--id", "wide", "--server", "http://127.0.0.1:%d" % srv.port,
                            "--token-file", token, cwd=home)
            seen = watch(srv, auth, "wide", proc)
            out, err = proc.communicate(timeout=60)
            took = time.monotonic() - t0
            self.assertEqual(proc.returncode, 0, err[-2000:] + out[-2000:])
            n = len(WIDE)
            running = [o for o in seen if o[0] == "running" and o[2] == n]
            self.assertTrue(running, "never seen running with its %d nodes: %s" % (n, seen[:5]))
            self.assertTrue(any(o[1] < n for o in running), seen[::max(1, len(seen) // 10)])
            c = every_node(srv, auth, "wide")
            self.assertEqual((c["state"], c["counts"]["done"], c["cluster"]), ("done", n, "numalab-test"))
            for node in c["nodes"]:
                self.assertEqual(node["run"]["machine"]["fleet"]["node"], node["node"])
                self.assertTrue(node["job_id"].isdigit())
            self.assertNotIn("(None)", out)
            self.assertRegex(out, r"m01 +submitted as job \d+")
            print("FLEET figure: slurm %d nodes: %.0f s from start to the last delivery, "
                  "%d progress reads, server %s" % (n, took, len(seen), server_memory(srv)))
        finally:
            srv.stop()

    def test_91_a_start_slurm_refuses_is_a_failed_campaign(self):
        token = os.path.join(TMP, "token-refused")
        with open(token, "w") as f:
            f.write("fleet-refused-secret\n")
        home = tempfile.mkdtemp(prefix="refused-", dir=TMP)
        srv = Server(home, db=os.path.join(home, "r.db"), name="refused",
                     args=["--token-file", token, "--fleet", "slurm"])
        srv.start()
        auth = {"Authorization": "Bearer fleet-refused-secret"}
        try:
            for want, msg in (({"nodes": "n[1-3]"}, "sinfo lists no node 'n3'"),
                              ({"partition": "nope", "all": True},
                               "sinfo lists no node in partition 'nope'")):
                st, ans, _ = srv.json("POST", "/api/campaigns/start",
                                      dict(want, experiment="atomic_increment"), headers=auth)
                self.assertEqual(st, 202, ans)

                def ended():
                    st, c, _ = srv.json("GET", ans["url"], headers=auth)
                    return st == 200 and c["state"] != "running"
                self.assertTrue(wait_until(ended, ceiling=60))
                st, c, _ = srv.json("GET", ans["url"], headers=auth)
                self.assertEqual(c["state"], "failed", c)
                self.assertIn(msg, c["error"])
        finally:
            srv.stop()

    def test_92_a_cancel_stops_the_jobs(self):
        slow = os.path.join(TMP, "slow.sh")
        with open(slow, "w") as f:
            f.write('#!/bin/sh\nsleep 120\nexec "%s" "$@"\n' % BIN)
        os.chmod(slow, 0o755)
        srv, auth, home, token = token_server("cancel")
        try:
            proc = fleet_bg(*SMALL, "--engine", "slurm", "--nodes", "n[1-2]", "--numalab", slow,
                            "--id", "cancelme", "--server", "http://127.0.0.1:%d" % srv.port,
                            "--token-file", token, cwd=home)

            def jobs_run():
                st, c, _ = srv.json("GET", "/api/campaigns/cancelme", headers=auth)
                return st == 200 and c["counts"]["running"] == 2 and c
            self.assertTrue(wait_until(jobs_run, ceiling=60))
            ids = [n["job_id"] for n in jobs_run()["nodes"]]
            st, ans, _ = srv.json("DELETE", "/api/campaigns/cancelme", {}, headers=auth)
            self.assertEqual((st, ans["state"]), (202, "cancelling"))
            out, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 130, err[-2000:])
            st, c, _ = srv.json("GET", "/api/campaigns/cancelme", headers=auth)
            self.assertEqual((c["state"], c["counts"]["cancelled"]), ("cancelled", 2), out)
            self.assertIn("a cancel asked through the server", c["nodes"][0]["reason"])
            left = subprocess.run(["squeue", "-h", "-j", ",".join(ids), "-t", "PENDING,RUNNING"],
                                  capture_output=True, text=True, timeout=30).stdout
            self.assertEqual(left.strip(), "", "jobs still there after the cancel")
        finally:
            srv.stop()

    def test_93_the_plan_counts_what_sinfo_lists(self):
        """--plan and POST /api/campaigns/plan: how many nodes a partition
        or features come to, before anything is submitted."""
        p = fleet(*SMALL, "--engine", "slurm", "--partition", "wide", "--all", "--plan")
        self.assertEqual(p.returncode, 0, p.stderr)
        n = len(WIDE)
        self.assertIn("on %d nodes (%s, %s, %s … %s) in partition wide, one run each, "
                      "through slurm" % (n, WIDE[0], WIDE[1], WIDE[2], WIDE[-1]), p.stdout)
        subprocess.run(["scontrol", "update", "NodeName=n2", "State=DRAIN",
                        "Reason=fan broken"], check=True)
        try:
            p = fleet(*SMALL, "--engine", "slurm", "--constraint", "gen1|gen2", "--plan")
        finally:
            subprocess.run(["scontrol", "update", "NodeName=n2", "State=RESUME"], check=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("on 1 node (n1) with features gen1|gen2", p.stdout)
        self.assertRegex(p.stdout, r"n2 gets no run: node is drain\S*: fan broken")
        p = fleet(*SMALL, "--engine", "slurm", "--partition", "nope", "--all", "--plan")
        self.assertEqual(p.returncode, 2)
        self.assertIn("sinfo lists no node in partition 'nope'", p.stderr)
        home = tempfile.mkdtemp(prefix="plan-", dir=TMP)
        token = os.path.join(home, "token")
        with open(token, "w") as f:
            f.write("fleet-plan-secret\n")
        auth = {"Authorization": "Bearer fleet-plan-secret"}
        srv = Server(home, db=os.path.join(home, "plan.db"), name="plan",
                     args=["--token-file", token, "--fleet", "slurm"])
        srv.start()
        try:
            st, plan, _ = srv.json("POST", "/api/campaigns/plan",
                                   {"experiment": "atomic_increment", "partition": "wide",
                                    "all": True}, headers=auth)
            self.assertEqual(st, 200, plan)
            self.assertEqual((plan["count"], plan["nodes"], plan["partition"]),
                             (n, list(WIDE), "wide"))
            st, plan, _ = srv.json("POST", "/api/campaigns/plan",
                                   {"experiment": "atomic_increment", "constraint": "big"},
                                   headers=auth)
            self.assertEqual((st, plan["count"], plan["nodes"]), (200, 1, ["n2"]), plan)
            st, err, _ = srv.json("POST", "/api/campaigns/plan",
                                  {"experiment": "atomic_increment", "partition": "nope",
                                   "all": True}, headers=auth)
            self.assertEqual(st, 400, err)
            self.assertIn("sinfo lists no node in partition 'nope'", err["error"])
            st, doc, _ = srv.json("GET", "/api/campaigns", headers=auth)
            self.assertEqual((st, doc["campaigns"]), (200, []))
            self.assertFalse(os.path.exists(os.path.join(home, "numalab-campaigns")))
        finally:
            srv.stop()

    def test_94_the_page_shows_the_counted_plan(self):
        """The experiment form, in headless Chromium: a partition's plan
        says how many nodes sinfo lists (tests/fleet/plan_page.mjs)."""
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        p = subprocess.run(["node", os.path.join(root, "tests", "fleet", "plan_page.mjs"),
                            "--numalab", BIN, "--web", os.path.join(root, "web"),
                            "--nodes", str(len(WIDE))],
                           cwd=root, capture_output=True, text=True, timeout=180)
        sys.stdout.write(p.stdout)
        if p.stdout.startswith("SKIP"):
            self.skipTest(p.stdout.strip())
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_9_no_token_in_a_jobs_environment(self):
        deliver_with_env_token(self, "slurm", "--engine", "slurm", "--nodes", "n[1-2]",
                               only_needed=True)


class ClushTest(unittest.TestCase):
    def test_no_token_in_a_commands_environment(self):
        deliver_with_env_token(self, "clush", "--engine", "clush", "--clush-worker",
                               "exec", "--nodes", "lab[01-02]")

    def test_into_an_https_server(self):
        made = lab_cert("clush-tls", "IP:127.0.0.1")
        if not made:
            self.skipTest("SKIP: no 'openssl' to make a certificate")
        cert, key = made
        token = os.path.join(TMP, "token-clush-tls")
        with open(token, "w") as f:
            f.write("clush-tls-secret\n")
        srv = tls_server(self, "clush-tls", cert, key, "127.0.0.1", "--token-file", token)
        url = "https://127.0.0.1:%d" % srv.port
        auth = {"Authorization": "Bearer clush-tls-secret"}
        try:
            args = (*SMALL, "--engine", "clush", "--clush-worker", "exec",
                    "--nodes", "lab[01-02]", "--numalab", BIN, "--server", url,
                    "--token-file", token)
            # a lab's own certificate is not the system's: never taken unverified
            p = fleet(*args)
            self.assertEqual(p.returncode, 1)
            self.assertIn("give it with --ca-file FILE", p.stderr + p.stdout)
            st, doc, _ = srv.json("GET", "/api/runs", headers=auth)
            self.assertEqual((st, doc["runs"]), (200, []))
            p = fleet(*args, "--ca-file", cert)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("imported into %s/#/campaigns/" % url, p.stdout)
            st, doc, _ = srv.json("GET", "/api/campaigns", headers=auth)
            self.assertEqual(doc["campaigns"][0]["done"], 2)
            # the options' own mistakes, before anything runs
            for extra, msg in ((["--server", "ftp://x"], "give http://HOST[:PORT] or https://"),
                               (["--server", "http://x", "--ca-file", cert], "--ca-file is for an https://"),
                               (["--server", url, "--ca-file", "/nonexistent"], "cannot read --ca-file")):
                p = fleet(*SMALL, "--engine", "clush", "--nodes", "lab01", *extra)
                self.assertEqual(p.returncode, 2, extra)
                self.assertIn(msg, p.stderr)
        finally:
            srv.stop()

    def test_lab_room_through_clush_exec(self):
        p = fleet(*SMALL, "--engine", "clush", "--clush-worker", "exec",
                  "--nodes", "lab[01-02]", "--numalab", BIN, "--db", DB)
        self.assertEqual(p.returncode, 0, p.stderr)
        cid = campaign_id(p.stdout)
        mine = {m["fleet"]["node"]: m["fleet"] for m in runs().values()
                if m.get("fleet", {}).get("campaign") == cid}
        self.assertEqual(sorted(mine), ["lab01", "lab02"])
        for f in mine.values():
            self.assertEqual(f["engine"], "clush")
            self.assertFalse(f["exclusive"])
            self.assertIsNone(f["job_id"])

    def slow_nodes(self, home):
        """A numalab for the exec worker's nodes that writes its pid to
        NODE.pid in home and sleeps: what a cancel must stop."""
        slow = os.path.join(home, "slow.sh")
        with open(slow, "w") as f:
            f.write('#!/bin/sh\necho $$ > "%s/$NUMALAB_FLEET_NODE.pid"\nexec sleep 120\n' % home)
        os.chmod(slow, 0o755)
        return slow

    @contextlib.contextmanager
    def slow_campaign(self, home, nodes, hosts, *args):
        """A clush campaign over hosts whose nodes sleep (slow_nodes),
        started with args: (the campaign, {node: pid}) once every node
        runs; whatever is left of them is killed when the block ends."""
        pids = {}
        try:
            proc = fleet_bg(*SMALL, "--engine", "clush", "--clush-worker", "exec",
                            "--nodes", hosts, "--numalab", self.slow_nodes(home),
                            *args, cwd=home)
            self.assertTrue(wait_until(lambda: self.pids(home, nodes), ceiling=60))
            pids = self.pids(home, nodes)
            yield proc, pids
        finally:
            for p in pids.values():
                try:
                    os.kill(p, 9)
                except OSError:
                    pass

    def pids(self, home, nodes):
        out = {}
        for n in nodes:
            try:
                with open(os.path.join(home, n + ".pid")) as f:
                    out[n] = int(f.read())
            except (OSError, ValueError):
                return None
        return out

    def assert_stopped(self, pids):
        """Every node's command is gone (a zombie not yet reaped is gone)."""
        def state(pid):
            try:
                with open("/proc/%d/stat" % pid) as f:
                    return f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                return "gone"
        self.assertTrue(wait_until(lambda: all(state(p) in ("gone", "Z") for p in pids.values()),
                                   ceiling=10),
                        "still running after the cancel: %s" % {n: state(p) for n, p in pids.items()})

    def test_a_cancel_through_the_server_stops_its_commands(self):
        srv, auth, home, token = token_server("clush-cancel")
        nodes = ["lab01", "lab02", "lab03"]
        try:
            with self.slow_campaign(home, nodes, "lab[01-03]", "--id", "cancelclush",
                                    "--server", "http://127.0.0.1:%d" % srv.port,
                                    "--token-file", token) as (proc, pids):
                st, c, _ = srv.json("GET", "/api/campaigns/cancelclush", headers=auth)
                self.assertEqual((st, c["state"], c["counts"]["running"]), (200, "running", 3), c)
                st, ans, _ = srv.json("DELETE", "/api/campaigns/cancelclush", {}, headers=auth)
                self.assertEqual((st, ans["state"]), (202, "cancelling"))
                out, err = proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, 130, err[-2000:])
                st, c, _ = srv.json("GET", "/api/campaigns/cancelclush", headers=auth)
                self.assertEqual((c["state"], c["counts"]["cancelled"]), ("cancelled", 3), out)
                for n in c["nodes"]:
                    self.assertIn("a cancel asked through the server", n["reason"])
                self.assert_stopped(pids)
        finally:
            srv.stop()

    def test_ctrl_c_stops_its_commands(self):
        home = tempfile.mkdtemp(prefix="clush-int-", dir=TMP)
        with self.slow_campaign(home, ["lab01", "lab02"], "lab[01-02]",
                                "--db", os.path.join(home, "int.db")) as (proc, pids):
            proc.proc.send_signal(2)
            out, err = proc.communicate(timeout=60)
            self.assertEqual(out.count("cancelled: cancelled (Ctrl-C)"), 2, out)
            self.assertIn("0 of 2 nodes done", out)
            self.assert_stopped(pids)

    def test_a_failing_host_is_recorded(self):
        # a value the row takes (what no machine takes is refused before
        # any job: test_fleet_args.py) that these hosts cannot give
        if len(os.sched_getaffinity(0)) >= 1024:
            self.skipTest("these hosts have 1024 cpus: no thread count fails on them")
        p = fleet("atomic_increment", "threads=1024", "--engine", "clush",
                  "--clush-worker", "exec", "--nodes", "lab[01-02]", "--numalab", BIN,
                  "--db", DB)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"lab01 +failed .*status 2: .*1024 threads, but only")
        self.assertRegex(p.stdout, r"lab02 +failed .*status 2: ")


    def test_a_node_cannot_forge_another_nodes_result(self):
        # lab02 prints its run, then a block made to look like clush's own
        # header for lab01, holding lab02's run dressed up as lab01's
        liar = os.path.join(TMP, "liar.sh")
        with open(liar, "w") as f:
            f.write('#!/bin/sh\nout=$("%s" "$@")\nprintf "%%s\\n" "$out"\n'
                    'if [ "$NUMALAB_FLEET_NODE" = lab02 ]; then\n'
                    '  printf -- "---------------\\nlab01\\n---------------\\n"\n'
                    '  printf "%%s\\n" "$out" | python3 -c \'import json, sys; '
                    'd = json.load(sys.stdin); d["machine"]["hostname"] = "forged-by-lab02"; '
                    'd["machine"]["fleet"]["node"] = "lab01"; print(json.dumps(d))\'\n'
                    'fi\n' % BIN)
        os.chmod(liar, 0o755)
        p = fleet(*SMALL, "--engine", "clush", "--clush-worker", "exec",
                  "--nodes", "lab[01-02]", "--numalab", liar, "--db", DB)
        cid = campaign_id(p.stdout)
        c = sqlite3.connect(DB)
        try:
            nodes = {r[0]: r[1:] for r in c.execute(
                "SELECT node, state, run_id FROM campaign_nodes WHERE campaign_id=?", (cid,))}
        finally:
            c.close()
        # lab01's result is its own run
        self.assertEqual(nodes["lab01"][0], "done", p.stdout)
        lab01 = runs()[nodes["lab01"][1]]
        self.assertEqual(lab01["fleet"]["node"], "lab01")
        self.assertNotEqual(lab01["hostname"], "forged-by-lab02")
        # whatever lab02 printed is lab02's alone: here, not one run document
        self.assertEqual(nodes["lab02"][0], "failed", p.stdout)
        self.assertIsNone(nodes["lab02"][1])

    def test_a_thousand_nodes_seen_as_they_finish(self):
        """1,000 clush "machines" (the exec worker, all this host) into a
        server with its token: the campaign is there while it runs, its
        counts growing, and at the end every run and the record are."""
        srv, auth, home, token = token_server("thousand")
        try:
            conf = clush_conf(home, fanout=64)
            t0 = time.monotonic()
            proc = fleet_bg(*MICRO, "--engine", "clush", "--clush-worker", "exec",
                            "--nodes", "lab[0001-1000]", "--numalab", BIN, "--id", "thousand",
                            "--server", "http://127.0.0.1:%d" % srv.port, "--token-file", token,
                            env={"XDG_CONFIG_HOME": conf}, cwd=home)
            seen = watch(srv, auth, "thousand", proc)
            out, err = proc.communicate(timeout=60)
            took = time.monotonic() - t0
            self.assertEqual(proc.returncode, 0, err[-2000:])
            running = [o for o in seen if o[0] == "running" and o[2] == 1000]
            self.assertTrue(running, "never seen running with its 1000 nodes: %s" % seen[:5])
            self.assertTrue(any(0 < o[1] < 1000 for o in running),
                            "never seen part done: %s" % seen[::max(1, len(seen) // 10)])
            c = every_node(srv, auth, "thousand")
            self.assertEqual((c["state"], c["total"], c["counts"]["done"]), ("done", 1000, 1000))
            self.assertEqual([n["node"] for n in c["nodes"]], ["lab%04d" % i for i in range(1, 1001)])
            ids = [n["run_id"] for n in c["nodes"]]
            self.assertEqual(len(set(ids)), 1000)
            self.assertNotIn(None, ids)
            st, all_runs, _ = srv.json("GET", "/api/runs?limit=1", headers=auth)
            self.assertEqual(all_runs["total"], 1000)
            rss = server_memory(srv)
            print("FLEET figure: clush 1000 nodes: %.0f s from start to the last delivery, "
                  "first seen running after %.1f s, %d progress reads, server peak %s"
                  % (took, seen[0][3] if seen else -1, len(seen), rss))
            self.assertIn("1000 of 1000 nodes done", out)
            self.assertRegex(out, r"\[ *\d+\.\ds\] lab0500 +done")
        finally:
            srv.stop()

    def test_the_server_stopped_while_it_delivers(self):
        """The server stops (SIGTERM) halfway, and comes back on its port
        a few seconds later: the retries land every run, each once; then
        `fleet deliver DIR` sends it all again and nothing is stored twice."""
        srv, auth, home, token = token_server("away")
        port = srv.port
        try:
            conf = clush_conf(home, fanout=4)
            proc = fleet_bg(*MICRO, "--engine", "clush", "--clush-worker", "exec",
                            "--nodes", "lab[001-100]", "--numalab", BIN, "--id", "away",
                            "--dir", os.path.join(home, "away"), "--deliver-wait", "120",
                            "--server", "http://127.0.0.1:%d" % port, "--token-file", token,
                            env={"XDG_CONFIG_HOME": conf}, cwd=home)

            def some_done():
                st, c, _ = srv.json("GET", "/api/campaigns/away?limit=1", headers=auth)
                return st == 200 and c["counts"]["done"] >= 10
            self.assertTrue(wait_until(some_done, ceiling=120))
            self.assertEqual(srv.stop(), 0)
            time.sleep(4)
            srv.start(listen="127.0.0.1:%d" % port)
            out, err = proc.communicate(timeout=300)
            sys.stdout.write("\n".join(l for l in out.splitlines() if "[delivery]" in l) + "\n")
            self.assertEqual(proc.returncode, 0, err[-2000:])
            self.assertIn("[delivery] not delivered now", out)
            once = lambda: db_runs_by_node(srv.db, "away")
            self.assertEqual(once(), {"lab%03d" % i: 1 for i in range(1, 101)})
            c = every_node(srv, auth, "away")
            self.assertEqual((c["state"], c["counts"]["done"]), ("done", 100))
            acks = [f for f in os.listdir(os.path.join(home, "away")) if f.endswith(".ack")]
            self.assertEqual(len(acks), 100)
            p = subprocess.run([BIN, "fleet", "deliver", os.path.join(home, "away"), "--server",
                                "http://127.0.0.1:%d" % port, "--token-file", token],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("100 runs delivered", p.stdout)
            self.assertEqual(once(), {"lab%03d" % i: 1 for i in range(1, 101)})
            print("FLEET figure: server stopped (SIGTERM) once 10 or more of 100 runs were in, "
                  "back 4 s later on its port: every run landed once by the retries; fleet "
                  "deliver again stored none twice")
        finally:
            srv.stop()


class StoreTest(unittest.TestCase):
    def test_zz_the_store_lists_every_campaign(self):
        srv = Server(TMP, db=DB, name="reader")
        srv.start()
        try:
            st, doc, _ = srv.json("GET", "/api/campaigns")
            self.assertEqual(st, 200)
            engines = sorted({c["engine"] for c in doc["campaigns"]})
            self.assertEqual(engines, ["clush", "slurm"])
            st, c, _ = srv.json("GET", "/api/campaigns/" + SlurmTest.first)
            self.assertEqual(st, 200)
            self.assertEqual(c["experiment"], "atomic_increment")
            self.assertEqual(c["params"]["threads"], "2")
            st, err, _ = srv.json("GET", "/api/campaigns/nope")
            self.assertEqual(st, 404)
            self.assertEqual(err["error"], "unknown campaign id 'nope'")
        finally:
            srv.stop()

    def test_zz_the_campaign_view_lists_every_machine(self):
        """The page, in headless Chromium: the campaign's table names both
        nodes, and the bars compare them; a screenshot of it is kept."""
        chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        if not os.path.exists(chromium):
            self.skipTest("no Chromium at %s" % chromium)
        srv = Server(TMP, db=DB, name="page")
        srv.start()
        url = "http://127.0.0.1:%d/#/campaigns/%s" % (srv.port, SlurmTest.first)
        common = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                  "--virtual-time-budget=10000", "--window-size=1400,900"]
        try:
            dom = subprocess.run(common + ["--dump-dom", url], capture_output=True,
                                 text=True, timeout=120).stdout
            table = dom[dom.find('id="campaign-table"'):]
            self.assertIn(">n1<", table)
            self.assertIn(">n2<", table)
            self.assertIn("small, gen1", table)
            self.assertIn("big, gen2", table)
            self.assertEqual(dom.count('class="campaign-bar-row"'), 2)
            shots = os.path.join(os.environ.get("SCREENSHOT_DIR", "build/screenshots"))
            os.makedirs(shots, exist_ok=True)
            subprocess.run(common + ["--screenshot=" + os.path.join(os.path.abspath(shots), "campaign.png"),
                                     url], capture_output=True, timeout=120)
            dom = subprocess.run(common + ["--dump-dom", "http://127.0.0.1:%d/#/campaigns" % srv.port],
                                 capture_output=True, text=True, timeout=120).stdout
            self.assertIn(SlurmTest.first, dom[dom.find('id="campaign-list"'):])
            # each machine side by side: its verdict, its heatmap, where its threads ran
            url = "http://127.0.0.1:%d/#/campaigns/%s" % (srv.port, SlurmTest.heat)
            dom = subprocess.run(common + ["--dump-dom", url], capture_output=True,
                                 text=True, timeout=120).stdout
            side = dom[dom.find('id="campaign-machines"'):]
            self.assertNotEqual(dom.find('id="campaign-machines"'), -1)
            cols = side.split('class="campaign-machine"')[1:]
            self.assertEqual(len(cols), 2)
            for node, col in zip(("n1", "n2"), cols):
                self.assertIn('data-node="%s"' % node, col)
                self.assertRegex(col, r'class="campaign-machine-verdict">[^<]{10,}<')
                self.assertRegex(col, r'class="chart chart-heatmap"[^>]*data-points="[1-9]')
                self.assertIn('class="campaign-machine-topo"', col)
                self.assertIn("<svg", col)
            self.assertEqual(side.count('class="chart chart-heatmap"'), 2)
            subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                            "--virtual-time-budget=10000", "--window-size=1400,2000",
                            "--screenshot=" + os.path.join(os.path.abspath(shots), "campaign-machines.png"),
                            url], capture_output=True, timeout=120)
        finally:
            srv.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
