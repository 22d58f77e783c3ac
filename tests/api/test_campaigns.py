"""test_campaigns.py - campaigns read one page at a time, and a bound on those started at once.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_campaigns.py  (or make test-api)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, SharedServerTest, stop_strays  # noqa: E402

STATES = ("done", "failed", "pending", "running")


def campaign(cid, n):
    return {"id": cid, "engine": "clush", "experiment": "false_sharing",
            "params": {"threads": "2"}, "created_at": "2026-12-03T12:00:00Z",
            "nodes": [{"node": "n%d" % i, "state": STATES[i % 4],
                       "reason": "down" if i % 4 == 1 else None}
                      for i in range(n)]}


class PagesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-campaigns-")
        cls.srv = Server(cls.tmp, db=os.path.join(cls.tmp, "c.db")).start()
        st, doc, _ = cls.srv.json("POST", "/api/campaigns", campaign("big", 2503))
        assert st == 201, doc

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_a_page_by_default(self):
        st, c, _ = self.srv.json("GET", "/api/campaigns/big")
        self.assertEqual(st, 200, c)
        self.assertEqual(len(c["nodes"]), 100)
        self.assertEqual(c["nodes"][0]["node"], "n0")
        self.assertEqual((c["total"], c["offset"], c["limit"]), (2503, 0, 100))
        self.assertEqual(c["counts"], {"done": 626, "failed": 626, "pending": 626,
                                       "running": 625, "cancelled": 0})
        self.assertEqual(c["experiment"], "false_sharing")

    def test_offset_and_limit(self):
        st, c, _ = self.srv.json("GET", "/api/campaigns/big?offset=2500&limit=1000")
        self.assertEqual(st, 200, c)
        self.assertEqual([n["node"] for n in c["nodes"]], ["n2500", "n2501", "n2502"])
        self.assertEqual(c["nodes"][1]["reason"], "down")
        st, c, _ = self.srv.json("GET", "/api/campaigns/big?offset=9999")
        self.assertEqual((st, c["nodes"], c["total"]), (200, [], 2503))

    def test_bad_pages(self):
        for q, field, msg in (("limit=1001", "limit", "'1001' is not a valid limit (allowed 1-1000)"),
                              ("limit=0", "limit", "allowed 1-1000"),
                              ("offset=-1", "offset", "'-1' is not a valid offset"),
                              ("offset=x", "offset", "'x' is not a valid offset")):
            st, err, _ = self.srv.json("GET", "/api/campaigns/big?" + q)
            self.assertEqual(st, 400, q)
            self.assertEqual(err["field"], field)
            self.assertIn(msg, err["error"])

    def test_a_page_is_small(self):
        # the whole campaign is never read: a page costs the same at any size
        st, _, body = self.srv.request("GET", "/api/campaigns/big?limit=1000")
        self.assertEqual(st, 200)
        self.assertLess(len(body), 400 * 1000)


class RecordCheckTest(SharedServerTest):
    """A record the server takes is one it can keep: of an experiment it
    knows, with params that experiment takes, each node once and named,
    runs the store has, an end after its start. A refused record stores
    nothing."""

    done_run = True  # a false_sharing run, for the records' run_id

    def record(self, cid, **kw):
        rec = {"id": cid, "engine": "clush", "experiment": "false_sharing",
               "params": {"threads": "1-2"}, "created_at": "2026-12-03T12:00:00Z",
               "nodes": [{"node": "n1", "state": "pending"}]}
        rec.update(kw)
        return rec

    def refused(self, rec, status, field, contains):
        st, err, _ = self.srv.json("POST", "/api/campaigns", rec)
        self.assertError(st, err, status, field, contains)
        st, _, _ = self.srv.json("GET", "/api/campaigns/" + rec["id"])
        self.assertEqual(st, 404, "a refused record is not stored")

    def test_an_experiment_and_params_it_takes(self):
        self.refused(self.record("r-exp", experiment="nope"), 400, "experiment",
                     "unknown experiment 'nope' (allowed: ")
        self.refused(self.record("r-bogus", params={"bogus": "1"}), 400, "params.bogus",
                     "experiment 'false_sharing' has no parameter 'bogus'")
        self.refused(self.record("r-zero", params={"threads": "0"}), 400, "params.threads",
                     "threads")
        self.refused(self.record("r-list", params={"threads": "4-1"}), 400, "params.threads",
                     None)
        # more threads than this machine has is a node's to judge
        st, ans, _ = self.srv.json("POST", "/api/campaigns",
                                   self.record("r-big", params={"threads": "1-512"}))
        self.assertEqual(st, 201, ans)

    def test_each_node_once_and_named(self):
        self.refused(self.record("r-twice", nodes=[{"node": "n1", "state": "pending"},
                                                   {"node": "n1", "state": "done"}]),
                     400, "nodes[1].node", "node 'n1' is listed twice")
        self.refused(self.record("r-empty", nodes=[{"node": "", "state": "pending"}]),
                     400, "nodes[0].node", "node 0 has an empty name")

    def test_an_end_after_the_start(self):
        self.refused(self.record("r-time", finished_at="2026-12-03T11:59:59Z"), 400,
                     "finished_at", "is before 'created_at'")
        # 12:30 at +01:00 is 11:30Z: compared as instants, not as text
        self.refused(self.record("r-zone", finished_at="2026-12-03T12:30:00+01:00"),
                     400, "finished_at", "a campaign ends after it begins")
        st, ans, _ = self.srv.json("POST", "/api/campaigns",
                                   self.record("r-ok", finished_at="2026-12-03T13:30:00+01:00"))
        self.assertEqual(st, 201, ans)

    def test_runs_the_store_has(self):
        self.refused(self.record("r-norun", nodes=[{"node": "n1", "state": "done",
                                                    "run_id": 999999}]),
                     400, "nodes[0].run_id", "no run has id 999999")
        both = [{"node": "n1", "state": "done", "run_id": self.done_id},
                {"node": "n2", "state": "done", "run_id": self.done_id}]
        self.refused(self.record("r-shared", nodes=both), 400, "nodes[1].run_id",
                     "is node 'n1''s already")
        other = self.record("r-other", experiment="atomic_increment", params={},
                            nodes=both[:1])
        self.refused(other, 400, "nodes[0].run_id", "is of 'false_sharing'")

    def test_a_record_sent_again_keeps_the_runs_delivered(self):
        rec = self.record("r-again", nodes=[{"node": "n1", "state": "done",
                                             "run_id": self.done_id},
                                            {"node": "n2", "state": "pending"}])
        st, ans, _ = self.srv.json("POST", "/api/campaigns", rec)
        self.assertEqual(st, 201, ans)
        st, other, _ = self.srv.json("POST", "/api/runs/import",
                                     self.srv.json("GET", "/api/runs/%d?format=json"
                                                   % self.done_id)[1])
        self.assertEqual(st, 201, other)
        # another run for n1, or no n1: either would lose the run it has
        taken = dict(rec, nodes=[{"node": "n1", "state": "done", "run_id": other["id"]},
                                 {"node": "n2", "state": "pending"}])
        st, err, _ = self.srv.json("POST", "/api/campaigns", taken)
        self.assertError(st, err, 409, "nodes[0].run_id", "a delivered run stays its node's")
        dropped = dict(rec, nodes=[{"node": "n2", "state": "pending"}])
        st, err, _ = self.srv.json("POST", "/api/campaigns", dropped)
        self.assertError(st, err, 409, "nodes", "node 'n1' has run %d" % self.done_id)
        # its own run_id, or none: taken, the run kept, the rest replaced
        for n1 in ({"node": "n1", "state": "done", "run_id": self.done_id},
                   {"node": "n1", "state": "pending", "run_id": None}):
            again = dict(rec, cluster="lab", nodes=[n1, {"node": "n3", "state": "pending"}])
            st, ans, _ = self.srv.json("POST", "/api/campaigns", again)
            self.assertEqual(st, 201, ans)
            st, c, _ = self.srv.json("GET", "/api/campaigns/r-again")
            self.assertEqual([(n["node"], n["state"], n["run_id"]) for n in c["nodes"]],
                             [("n1", "done", self.done_id), ("n3", "pending", None)])
            self.assertEqual(c["cluster"], "lab")


class StartBoundTest(unittest.TestCase):
    """A clush that waits until told: campaigns started from the page stay
    running, and the fifth is refused until one of them ends."""

    def test_at_most_four_at_once(self):
        tmp = tempfile.mkdtemp(prefix="numalab-start-")
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        go = os.path.join(tmp, "go")
        with open(os.path.join(bindir, "clush"), "w") as f:
            f.write("#!/bin/sh\ni=0\nwhile [ ! -e '%s' ] && [ $i -lt 600 ]; do "
                    "sleep 0.1; i=$((i+1)); done\nexit 0\n" % go)
        os.chmod(os.path.join(bindir, "clush"), 0o755)
        token = os.path.join(tmp, "token")
        with open(token, "w") as f:
            f.write("start-secret\n")
        srv = Server(tmp, db=os.path.join(tmp, "s.db"), name="starts",
                     args=["--token-file", token, "--fleet", "clush"],
                     env={"PATH": bindir + os.pathsep + os.environ["PATH"]}).start()
        auth = {"Authorization": "Bearer start-secret"}
        want = {"experiment": "atomic_increment", "nodes": "lab[01-02]"}
        try:
            for _ in range(4):
                st, ans, _ = srv.json("POST", "/api/campaigns/start", want, headers=auth)
                self.assertEqual(st, 202, ans)
            st, err, _ = srv.json("POST", "/api/campaigns/start", want, headers=auth)
            self.assertEqual(st, 429, err)
            self.assertEqual(err["error"], "4 campaigns are running already (at most 4 at "
                             "once): start this one when one of them has finished")
            open(go, "w").close()
            deadline = time.time() + 60
            while time.time() < deadline:
                st, ans, _ = srv.json("POST", "/api/campaigns/start", want, headers=auth)
                if st != 429:
                    break
                time.sleep(0.2)
            self.assertEqual(st, 202, ans)

            # every coordinator ends before the server does: one left
            # delivering to a stopped server would try for 10 minutes
            def all_ended():
                st, doc, _ = srv.json("GET", "/api/campaigns", headers=auth)
                return st == 200 and all(c["state"] != "running" for c in doc["campaigns"])
            deadline = time.time() + 60
            while not all_ended() and time.time() < deadline:
                time.sleep(0.2)
        finally:
            open(go, "w").close()
            srv.stop()
            stop_strays(tmp)
            shutil.rmtree(tmp, ignore_errors=True)


class PlanTest(unittest.TestCase):
    """POST /api/campaigns/plan: the nodes a campaign would run on, counted
    by its engine before it starts (clush: its host list; the fleet lane
    asks a real Slurm's sinfo)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-plan-")
        bindir = os.path.join(cls.tmp, "bin")
        os.makedirs(bindir)
        # never run by a plan: it only has to be there
        with open(os.path.join(bindir, "clush"), "w") as f:
            f.write("#!/bin/sh\nexit 1\n")
        os.chmod(os.path.join(bindir, "clush"), 0o755)
        with open(os.path.join(cls.tmp, "token"), "w") as f:
            f.write(TOKEN + "\n")
        cls.srv = Server(cls.tmp, db=os.path.join(cls.tmp, "p.db"), name="plans",
                         args=["--token-file", os.path.join(cls.tmp, "token"),
                               "--class-token", CLASS, "--fleet", "clush"],
                         env={"PATH": bindir + os.pathsep + os.environ["PATH"]}).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_nodes_counted_and_nothing_started(self):
        want = {"experiment": "atomic_increment", "nodes": "lab[01-40]",
                "params": {"threads": "2"}}
        st, plan, _ = self.srv.json("POST", "/api/campaigns/plan", want, headers=AUTH)
        self.assertEqual(st, 200, plan)
        self.assertEqual((plan["engine"], plan["experiment"], plan["count"]),
                         ("clush", "atomic_increment", 40))
        self.assertEqual(plan["nodes"][:2] + plan["nodes"][-1:], ["lab01", "lab02", "lab40"])
        self.assertEqual(plan["unavailable"], [])
        st, doc, _ = self.srv.json("GET", "/api/campaigns", headers=AUTH)
        self.assertEqual((st, doc["campaigns"]), (200, []))

    def test_a_request_the_engine_refuses_is_said(self):
        for body, field, msg in (
            ({"experiment": "atomic_increment", "nodes": "lab[01"}, None, "unbalanced"),
            ({"experiment": "atomic_increment", "nodes": "lab1", "partition": "p"}, None,
             "the clush engine knows no partitions or features"),
            ({"experiment": "atomic_increment"}, "nodes", "which nodes?"),
            ({"experiment": "atomic_increment", "nodes": "lab1", "params": {"thread": "2"}},
             "params", "has no parameter 'thread'"),
            # a param the run would not read: refused, as POST /api/runs does
            ({"experiment": "false_sharing", "nodes": "lab1",
              "params": {"layout": "separate", "stride": "8"}},
             "stride", "'stride' is read only in layout=shared or both (layout is separate)"),
        ):
            st, err, _ = self.srv.json("POST", "/api/campaigns/plan", body, headers=AUTH)
            self.assertEqual(st, 400, (body, err))
            self.assertEqual(err.get("field"), field, err)
            self.assertIn(msg, err["error"])

    def test_a_student_cannot_ask(self):
        st, err, _ = self.srv.json("POST", "/api/campaigns/plan",
                                   {"experiment": "atomic_increment", "nodes": "lab1"},
                                   headers={"Authorization": "Bearer " + CLASS})
        self.assertEqual(st, 403, err)


TOKEN = "live-teacher-token"
CLASS = "live-class-token"
AUTH = {"Authorization": "Bearer " + TOKEN}


def small_run():
    """A real run document, as a node's `numalab run --json` prints it."""
    p = subprocess.run([os.environ.get("NUMALAB_BIN", "build/numalab"), "run", "--json",
                        "memory_policy_semantics", "size=64K", "repeat=1"],
                       capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout)


def wait_for(fn, ceiling=60):
    deadline = time.time() + ceiling
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    return fn()


class LiveTest(unittest.TestCase):
    """A campaign from its first second: running with its nodes pending,
    each node delivered as it ends (its run stored once however often it
    is sent), then done, failed or cancelled; followed by its events."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="numalab-live-")
        cls.srv = Server(cls.tmp, db=os.path.join(cls.tmp, "l.db"),
                         args=["--token", TOKEN, "--class-token", CLASS]).start()
        cls.run_doc = small_run()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def post(self, path, body, headers=AUTH):
        return self.srv.json("POST", path, body, headers=headers)

    def get(self, cid):
        st, c, _ = self.srv.json("GET", "/api/campaigns/" + cid, headers=AUTH)
        self.assertEqual(st, 200, c)
        return c

    def start(self, cid, n=3):
        rec = {"id": cid, "engine": "clush", "experiment": "memory_policy_semantics",
               "params": {"size": "64K"}, "created_at": "2026-12-06T04:00:00Z",
               "state": "running", "nodes": [{"node": "lab%d" % i, "state": "pending"}
                                             for i in range(1, n + 1)]}
        st, ans, _ = self.post("/api/campaigns", rec)
        self.assertEqual(st, 201, ans)
        return rec

    def test_states_from_start_to_end(self):
        rec = self.start("states")
        c = self.get("states")
        self.assertEqual((c["state"], c["total"], c["counts"]["pending"]), ("running", 3, 3))
        st, lst, _ = self.srv.json("GET", "/api/campaigns", headers=AUTH)
        mine = [x for x in lst["campaigns"] if x["id"] == "states"][0]
        self.assertEqual((mine["state"], mine["pending"], mine["nodes"]), ("running", 3, 3))
        st, ans, _ = self.post("/api/campaigns/states/nodes/lab1", {"state": "running", "job_id": "17"})
        self.assertEqual((st, ans["state"], ans["run_id"], ans["cancel"]), (200, "running", None, False))
        st, ans, _ = self.post("/api/campaigns/states/nodes/lab1", {"state": "done", "run": self.run_doc})
        self.assertEqual((st, ans["stored"]), (200, True), ans)
        st, ans, _ = self.post("/api/campaigns/states/nodes/lab2", {"state": "failed", "reason": "ssh: no route to host"})
        self.assertEqual(st, 200, ans)
        c = self.get("states")
        self.assertEqual(c["counts"], {"done": 1, "failed": 1, "pending": 1, "running": 0, "cancelled": 0})
        self.assertEqual(c["state"], "running")
        lab1 = c["nodes"][0]
        self.assertEqual((lab1["state"], lab1["job_id"], lab1["run"]["status"]), ("done", "17", "done"))
        self.assertEqual(c["nodes"][1]["reason"], "ssh: no route to host")
        # the end, as the coordinator records it: the runs it knew stay
        rec.update(state="failed", finished_at="2026-12-06T04:01:00Z",
                   nodes=[{"node": "lab1", "state": "done"},
                          {"node": "lab2", "state": "failed", "reason": "ssh: no route to host"},
                          {"node": "lab3", "state": "done", "run_id": None}])
        st, ans, _ = self.post("/api/campaigns", rec)
        self.assertEqual(st, 201, ans)
        c = self.get("states")
        self.assertEqual(c["state"], "failed")
        self.assertEqual(c["nodes"][0]["run_id"], lab1["run_id"])
        st, err, _ = self.srv.json("DELETE", "/api/campaigns/states", {}, headers=AUTH)
        self.assertEqual(st, 409, err)
        self.assertIn("is failed already", err["error"])

    def test_a_run_delivered_twice_is_stored_once(self):
        self.start("twice", 1)
        st, before, _ = self.srv.json("GET", "/api/runs?limit=1000", headers=AUTH)
        ids = []
        for _ in range(3):
            st, ans, _ = self.post("/api/campaigns/twice/nodes/lab1", {"state": "done", "run": self.run_doc})
            self.assertEqual(st, 200, ans)
            ids.append((ans["run_id"], ans["stored"]))
        self.assertEqual([s for _, s in ids], [True, False, False])
        self.assertEqual(len({i for i, _ in ids}), 1)
        st, after, _ = self.srv.json("GET", "/api/runs?limit=1000", headers=AUTH)
        self.assertEqual(after["total"], before["total"] + 1)
        # a record sent again without the node's run keeps it
        rec = self.start("twice", 1)
        self.assertEqual(self.get("twice")["nodes"][0]["run_id"], ids[0][0])
        self.assertEqual(self.get("twice")["nodes"][0]["state"], "done")
        st, err, _ = self.post("/api/campaigns/twice/nodes/lab9", {"state": "done"})
        self.assertEqual((st, err["field"]), (404, "node"))
        st, err, _ = self.post("/api/campaigns/nope/nodes/lab1", {"state": "done"})
        self.assertEqual((st, err["error"]), (404, "unknown campaign id 'nope'"))
        st, err, _ = self.post("/api/campaigns/twice/nodes/lab1", {"state": "asleep"})
        self.assertEqual((st, err["field"]), (400, "state"))
        # the words of the routes beside {id} are not ids: a campaign named
        # so could be neither read nor cancelled
        for word in ("start", "plan"):
            rec = {"id": word, "engine": "clush", "experiment": "memory_policy_semantics",
                   "params": {}, "created_at": "2026-12-06T04:00:00Z", "state": "running",
                   "nodes": [{"node": "lab1", "state": "pending"}]}
            st, err, _ = self.post("/api/campaigns", rec)
            self.assertEqual((st, err["field"]), (400, "id"), err)
            st, err, _ = self.srv.json("GET", "/api/campaigns/" + word, headers=AUTH)
            self.assertEqual(st, 405, err)
        broken = dict(self.run_doc, status="maybe")
        self.start("broken", 1)
        st, err, _ = self.post("/api/campaigns/broken/nodes/lab1", {"state": "done", "run": broken})
        self.assertEqual(st, 400, err)
        del rec

    def test_every_delivery_is_checked(self):
        self.start("checked", 3)
        path = "/api/campaigns/checked/nodes/"
        st, ans, _ = self.post(path + "lab1", {"state": "done", "run": self.run_doc})
        self.assertEqual((st, ans["stored"]), (200, True), ans)
        rid = ans["run_id"]
        # sent again, a delivery is held to what the first was held to
        running = dict(self.run_doc, status="running")
        st, err, _ = self.post(path + "lab1", {"state": "done", "run": running})
        self.assertEqual((st, err["field"]), (400, "status"), err)
        st, err, _ = self.post(path + "lab1", {"state": "done",
                                               "run": dict(self.run_doc, status="failed")})
        self.assertEqual((st, err["field"]), (400, "run.status"), err)
        # an ended node stays as it ended, its run with it
        for state in ("pending", "running", "failed"):
            st, err, _ = self.post(path + "lab1", {"state": state})
            self.assertEqual((st, err["field"]), (409, "state"), (state, err))
            self.assertIn("the node is done with its run: it cannot become " + state,
                          err["error"])
        lab1 = self.get("checked")["nodes"][0]
        self.assertEqual((lab1["state"], lab1["run_id"]), ("done", rid))
        st, ans, _ = self.post(path + "lab1", {"state": "done", "run": self.run_doc})
        self.assertEqual((st, ans["stored"], ans["run_id"]), (200, False, rid), ans)
        # a run comes with an end; a running node does not go back
        st, err, _ = self.post(path + "lab2", {"state": "running", "run": self.run_doc})
        self.assertEqual((st, err["field"]), (400, "run"), err)
        st, ans, _ = self.post(path + "lab2", {"state": "running"})
        self.assertEqual(st, 200, ans)
        st, err, _ = self.post(path + "lab2", {"state": "pending"})
        self.assertEqual((st, err["field"]), (409, "state"), err)
        # a node ended before its run came takes it when it comes
        st, ans, _ = self.post(path + "lab2", {"state": "cancelled", "reason": "scancel"})
        self.assertEqual(st, 200, ans)
        st, ans, _ = self.post(path + "lab2", {"state": "done", "run": self.run_doc})
        self.assertEqual((st, ans["state"], ans["stored"]), (200, "done", True), ans)
        # a run of other params than the campaign's is not its run
        rec = self.start("params", 1)
        rec.update(id="params", params={"size": "128K"})
        st, ans, _ = self.post("/api/campaigns", rec)
        self.assertEqual(st, 201, ans)
        st, err, _ = self.post("/api/campaigns/params/nodes/lab1",
                               {"state": "done", "run": self.run_doc})
        self.assertEqual((st, err["field"]), (400, "run.params.size"), err)
        self.assertIn("the run has size=64K, the campaign size=128K", err["error"])
        self.assertIsNone(self.get("params")["nodes"][0]["run_id"])

    def test_cancel_and_its_events(self):
        self.start("cancel", 2)
        es = self.srv.conn(timeout=30)
        es.request("GET", "/api/campaigns/cancel/events?format=ndjson", headers=AUTH)
        resp = es.getresponse()
        self.assertEqual(resp.status, 200)
        first = json.loads(resp.readline())
        self.assertEqual((first["type"], first["state"], first["total"]), ("campaign", "running", 2))
        st, ans, _ = self.srv.json("DELETE", "/api/campaigns/cancel", {}, headers=AUTH)
        self.assertEqual((st, ans["state"], ans["signalled"]), (202, "cancelling", False))
        ev = json.loads(resp.readline())
        self.assertTrue(ev["cancel_requested"])
        st, ans, _ = self.post("/api/campaigns/cancel/nodes/lab1", {"state": "cancelled", "reason": "scancel 12"})
        self.assertEqual((st, ans["cancel"]), (200, True))
        ev = json.loads(resp.readline())
        self.assertEqual((ev["node"]["node"], ev["node"]["state"], ev["counts"]["cancelled"]),
                         ("lab1", "cancelled", 1))
        rec = {"id": "cancel", "engine": "clush", "experiment": "memory_policy_semantics",
               "params": {}, "created_at": "2026-12-06T04:00:00Z", "state": "cancelled",
               "finished_at": "2026-12-06T04:00:09Z",
               "nodes": [{"node": "lab1", "state": "cancelled", "reason": "scancel 12"},
                         {"node": "lab2", "state": "cancelled"}]}
        st, ans, _ = self.post("/api/campaigns", rec)
        self.assertEqual(st, 201)
        ev = json.loads(resp.readline())
        self.assertEqual(ev["state"], "cancelled")
        self.assertEqual(resp.readline(), b"")  # the stream ends with the campaign
        es.close()
        self.assertEqual(self.get("cancel")["state"], "cancelled")
        # an EventSource that comes back after the end is told it is over
        st, _, _ = self.srv.request("GET", "/api/campaigns/cancel/events?after=99", headers=AUTH)
        self.assertEqual(st, 204)

    def test_a_student_follows_but_never_starts_nor_delivers(self):
        self.start("watched", 1)
        student = {"Authorization": "Bearer " + CLASS}
        st, c, _ = self.srv.json("GET", "/api/campaigns/watched", headers=student)
        self.assertEqual(st, 200, c)
        for method, path, body in (
            ("POST", "/api/campaigns/start", {"experiment": "atomic_increment", "nodes": "lab1"}),
            ("POST", "/api/campaigns/watched/nodes/lab1", {"state": "done"}),
            ("DELETE", "/api/campaigns/watched", {}),
            ("POST", "/api/campaigns", {"id": "x"}),
        ):
            st, err, _ = self.srv.json(method, path, body, headers=student)
            self.assertEqual(st, 403, (method, path, err))


class RefusedStartTest(unittest.TestCase):
    """A start the engine refuses is a campaign that failed with the
    engine's own words, there from the answer on: never a 202 that
    vanishes."""

    def start_server(self, tmp, path):
        return Server(tmp, db=os.path.join(tmp, "r.db"), name="refused",
                      args=["--token", TOKEN, "--fleet", "clush"],
                      env={"PATH": path}).start()

    def failed_with(self, srv, body, msg):
        st, ans, _ = srv.json("POST", "/api/campaigns/start", body, headers=AUTH)
        self.assertEqual(st, 202, ans)
        # there at once, running, before its coordinator has said anything
        st, c, _ = srv.json("GET", ans["url"], headers=AUTH)
        self.assertEqual(st, 200, c)
        c = wait_for(lambda: (lambda r: r if r["state"] != "running" else None)(
            srv.json("GET", ans["url"], headers=AUTH)[1]))
        self.assertEqual(c["state"], "failed", c)
        self.assertIn(msg, c["error"])
        st, lst, _ = srv.json("GET", "/api/campaigns", headers=AUTH)
        self.assertEqual(lst["fleet"], "clush")
        mine = [x for x in lst["campaigns"] if x["id"] == ans["id"]][0]
        self.assertEqual((mine["state"], mine["error"]), ("failed", c["error"]))

    def test_a_partition_clush_has_not(self):
        tmp = tempfile.mkdtemp(prefix="numalab-refused-")
        srv = self.start_server(tmp, os.environ["PATH"])
        try:
            self.failed_with(srv, {"experiment": "atomic_increment", "nodes": "lab01", "partition": "x"},
                             "the clush engine knows no partitions or features (give --nodes LIST)")
        finally:
            srv.stop()
            stop_strays(tmp)
            shutil.rmtree(tmp, ignore_errors=True)

    def test_an_engine_that_is_not_installed(self):
        tmp = tempfile.mkdtemp(prefix="numalab-noclush-")
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        srv = self.start_server(tmp, bindir)
        try:
            self.failed_with(srv, {"experiment": "atomic_increment", "nodes": "lab[01-02]"},
                             "cannot run clush: it is not in PATH")
            st, lst, _ = srv.json("GET", "/api/campaigns", headers=AUTH)
            self.assertEqual(lst["campaigns"][0]["cancelled"], 2)
        finally:
            srv.stop()
            stop_strays(tmp)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
