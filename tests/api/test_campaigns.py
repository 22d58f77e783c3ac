"""test_campaigns.py - campaigns read one page at a time, and a bound on those started at once.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_campaigns.py  (or make test-api)
"""

import os
import shutil
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402

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
        finally:
            open(go, "w").close()
            srv.stop()
            time.sleep(0.5)
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
