"""test_deliver_once.py - a campaign node's run is stored once: after a SIGKILL, and sent at once.

A shim preloaded into the server (kill_at_link.c) sends it SIGKILL the
instant it links a campaign node's stored run to the node. After a
restart, `numalab fleet deliver DIR` sends the campaign again: the run is
stored exactly once, and linked. Deliveries of one node sent at the same
moment store its run once too.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_deliver_once.py  (or make test-api)
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, main, tsan  # noqa: E402
from test_campaigns import small_run  # noqa: E402

TOKEN = "kill-at-link-token"
AUTH = {"Authorization": "Bearer " + TOKEN}
HERE = os.path.dirname(os.path.abspath(__file__))


def build_shim(tmp):
    so = os.path.join(tmp, "kill_at_link.so")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-fPIC", "-shared", "-Wall",
                    "-Werror", "-o", so, os.path.join(HERE, "kill_at_link.c"),
                    "-ldl", "-lsqlite3"], check=True, timeout=120)
    return so


def stored(db, cid):
    """(runs in the store, the node's run id) read from the file itself."""
    c = sqlite3.connect(db)
    try:
        self_check = c.execute("PRAGMA integrity_check").fetchall()
        assert self_check == [("ok",)], self_check
        runs = c.execute("SELECT count(*) FROM runs").fetchone()[0]
        node = c.execute("SELECT run_id FROM campaign_nodes WHERE campaign_id=?",
                         (cid,)).fetchone()[0]
        return runs, node
    finally:
        c.close()


class KilledBetweenStoreAndLinkTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-i10-kill-")
        self.shim = build_shim(self.tmp)
        self.db = os.path.join(self.tmp, "k.db")
        self.token = os.path.join(self.tmp, "token")
        with open(self.token, "w") as f:
            f.write(TOKEN + "\n")
        self.srv = None

    def tearDown(self):
        if self.srv and self.srv.proc:
            self.srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


    def deliver(self, campaign_dir):
        return subprocess.run([BIN, "fleet", "deliver", campaign_dir, "--server",
                               "http://127.0.0.1:%d" % self.srv.port,
                               "--token-file", self.token, "--deliver-wait", "30"],
                              capture_output=True, text=True, timeout=120)

    def test_the_run_is_stored_once(self):
        doc = small_run()
        rec = {"id": "killed", "engine": "clush", "experiment": doc["experiment"],
               "params": {"size": "64K"}, "created_at": "2026-12-06T04:00:00Z",
               "state": "running", "nodes": [{"node": "lab1", "state": "pending"}]}
        asan = os.environ.get("ASAN_OPTIONS", "")
        srv = self.srv = Server(self.tmp, db=self.db, args=["--token", TOKEN], env={
            "LD_PRELOAD": self.shim,
            # a sanitized server wants its runtime first
            "ASAN_OPTIONS": asan + (":" if asan else "") + "verify_asan_link_order=0"})
        srv.start()
        st, ans, _ = srv.json("POST", "/api/campaigns", rec, headers=AUTH)
        self.assertEqual(st, 201, ans)
        with self.assertRaises((ConnectionError, OSError)):
            srv.json("POST", "/api/campaigns/killed/nodes/lab1",
                     {"state": "done", "run": doc}, headers=AUTH)
        self.assertEqual(srv.proc.wait(30), -9, srv.stderr())
        srv.stop()
        # neither the run nor its link survived the kill
        self.assertEqual(stored(self.db, "killed"), (0, None))

        # the campaign's directory, as `fleet run` leaves it
        cdir = os.path.join(self.tmp, "killed")
        os.mkdir(cdir)
        with open(os.path.join(cdir, "campaign.json"), "w") as f:
            json.dump(dict(rec, state="done", finished_at="2026-12-06T04:01:00Z",
                           nodes=[{"node": "lab1", "state": "done"}]), f)
        with open(os.path.join(cdir, "lab1.json"), "w") as f:
            json.dump(doc, f)
        srv.env = dict(os.environ)
        srv.start()
        for _ in range(2):
            p = self.deliver(cdir)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            runs, node = stored(self.db, "killed")
            self.assertEqual(runs, 1)
            self.assertIsNotNone(node)
        st, c, _ = srv.json("GET", "/api/campaigns/killed", headers=AUTH)
        self.assertEqual((st, c["nodes"][0]["state"], c["nodes"][0]["run_id"]),
                         (200, "done", node), c)
        st, run, _ = srv.json("GET", "/api/runs/%d" % node, headers=AUTH)
        self.assertEqual((st, run["status"]), (200, doc["status"]), run)


@tsan
class AtOnceTest(unittest.TestCase):
    def test_one_node_sent_eight_times_at_once(self):
        tmp = tempfile.mkdtemp(prefix="numalab-i10-once-")
        srv = Server(tmp, db=os.path.join(tmp, "o.db"), args=["--token", TOKEN]).start()
        try:
            doc = small_run()
            rec = {"id": "once", "engine": "clush", "experiment": doc["experiment"],
                   "params": {"size": "64K"}, "created_at": "2026-12-06T04:00:00Z",
                   "state": "running", "nodes": [{"node": "lab1", "state": "pending"}]}
            st, ans, _ = srv.json("POST", "/api/campaigns", rec, headers=AUTH)
            self.assertEqual(st, 201, ans)
            go = threading.Barrier(8)
            answers = []

            def send():
                go.wait()
                answers.append(srv.json("POST", "/api/campaigns/once/nodes/lab1",
                                        {"state": "done", "run": doc}, headers=AUTH))
            senders = [threading.Thread(target=send) for _ in range(8)]
            for t in senders:
                t.start()
            for t in senders:
                t.join()
            self.assertEqual([a[0] for a in answers], [200] * 8, answers)
            self.assertEqual(sorted(a[1]["stored"] for a in answers), [False] * 7 + [True])
            self.assertEqual(len({a[1]["run_id"] for a in answers}), 1)
            self.assertEqual(stored(srv.db, "once"), (1, answers[0][1]["run_id"]))
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
