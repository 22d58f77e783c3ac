"""check_fleet.py - `numalab fleet run` against the test cluster (SLURM_CONF
set by test_fleet.sh) and through ClusterShell's exec worker: each node's run
is imported with where it ran, a node made to fail is recorded with its
reason, and the store and the API show the campaigns. Both virtual nodes share
this host's CPUs, so nothing here is about speed."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
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
        test.assertIn("2 of 2 node(s) done", p.stdout)
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


class SlurmTest(unittest.TestCase):
    def test_1_every_node_runs_and_says_where(self):
        p = fleet(*SMALL, "--engine", "slurm", "--nodes", "n[1-2]", "--db", DB)
        self.assertEqual(p.returncode, 0, p.stderr)
        cid = campaign_id(p.stdout)
        self.assertIn("2 of 2 node(s) done", p.stdout)
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
        p = fleet(*SMALL, "--engine", "slurm", "--all", "--numalab", broken, "--db", DB)
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
        self.assertIn("on 1 node(s)", p.stdout)
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
            p = fleet(*SMALL, "--engine", "slurm", "--all", "--server",
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
        self.assertIn("2 of 2 node(s) done", p.stdout)
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
                    if "node(s) done" not in f.read():
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
            self.assertIn("2 of 2 node(s) done", log)
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

    def test_a_failing_host_is_recorded(self):
        p = fleet("atomic_increment", "threads=4096", "--engine", "clush",
                  "--clush-worker", "exec", "--nodes", "lab[01-02]", "--numalab", BIN,
                  "--db", DB)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stdout, r"lab01 +failed .*status 2: .*bad value '4096' for 'threads'")
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

    def test_two_hundred_nodes_into_a_server_with_its_token(self):
        """Every node's run and the campaign record reach a server started
        with a token; the fleet client sends it on each delivery."""
        token = os.path.join(TMP, "token")
        with open(token, "w") as f:
            f.write("fleet-secret\n")
        home = tempfile.mkdtemp(prefix="many-", dir=TMP)
        srv = Server(home, db=os.path.join(home, "many.db"), name="many",
                     args=["--token-file", token])
        srv.start()
        try:
            # one thread and 64 KiB, eight at a time (clush's fanout, from its
            # config): 200 "machines" that are all this host's few cpus
            conf = os.path.join(home, "xdg", "clustershell")
            os.makedirs(conf)
            with open(os.path.join(conf, "clush.conf"), "w") as f:
                f.write("[Main]\nfanout: 8\n")
            p = fleet("memory_policy_semantics", "size=64K", "repeat=1", "warmup=0",
                      "--engine", "clush", "--clush-worker", "exec",
                      "--nodes", "lab[001-200]", "--numalab", BIN,
                      "--server", "http://127.0.0.1:%d" % srv.port, "--token-file", token,
                      env={"XDG_CONFIG_HOME": os.path.join(home, "xdg")}, timeout=900)
            self.assertNotIn("answered 429", p.stdout + p.stderr,
                             "the server's import quota refused token-bearing deliveries")
            self.assertEqual(p.returncode, 0, p.stderr)
            cid = campaign_id(p.stdout)
            auth = {"Authorization": "Bearer fleet-secret"}
            st, c, _ = srv.json("GET", "/api/campaigns/%s?limit=1000" % cid, headers=auth)
            self.assertEqual(st, 200, c)
            self.assertEqual(c["total"], 200)
            self.assertEqual(c["counts"]["done"], 200)
            want = ["lab%03d" % i for i in range(1, 201)]
            self.assertEqual([n["node"] for n in c["nodes"]], want)
            for n in c["nodes"]:
                self.assertEqual(n["state"], "done", n)
                self.assertEqual(n["run"]["machine"]["fleet"]["node"], n["node"])
                self.assertEqual(n["run"]["machine"]["fleet"]["campaign"], cid)
            st, runs_, _ = srv.json("GET", "/api/runs?limit=1000", headers=auth)
            self.assertEqual(runs_["total"], 200)
            # read a page at a time: the default page, with the totals
            st, c, _ = srv.json("GET", "/api/campaigns/" + cid, headers=auth)
            self.assertEqual((len(c["nodes"]), c["total"]), (100, 200))
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
