"""test_store_versions.py - a store an older numalab wrote: converted when opened, read as it is when read-only; a newer one refused.

Version 1 kept a row an event (table events); version 2 keeps a row a batch
(event_batches) and an imported run's mark in run_imports. The version-1
file here is made from a real server's store, its rows written back as
version 1 wrote them.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_store_versions.py  (or make test-api)
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server  # noqa: E402

SMALL = {"threads": "1-2", "increments": 100000, "repeat": 3, "warmup": 0}

V1_EVENTS = ("CREATE TABLE events ("
             " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
             " seq INTEGER NOT NULL,"
             " type TEXT NOT NULL,"
             " data TEXT NOT NULL,"
             " PRIMARY KEY (run_id, seq)) WITHOUT ROWID")


def as_version_1(db):
    """Rewrites a version-2 store as version 1 wrote it: a row an event."""
    c = sqlite3.connect(db)
    rows = c.execute("SELECT run_id, first_seq, last_seq, data FROM event_batches"
                     " ORDER BY run_id, last_seq").fetchall()
    c.execute(V1_EVENTS)
    n = 0
    for run_id, first, last, data in rows:
        lines = data.split("\n")
        assert len(lines) == last - first + 1
        for k, text in enumerate(lines):
            c.execute("INSERT INTO events VALUES (?, ?, ?, ?)",
                      (run_id, first + k, json.loads(text)["type"], text))
            n += 1
    c.execute("DROP TABLE event_batches")
    c.execute("DROP TABLE run_imports")
    c.execute("PRAGMA user_version=1")
    c.commit()
    c.execute("PRAGMA journal_mode=DELETE")
    c.close()
    return n


def tables(db):
    c = sqlite3.connect(db)
    try:
        return sorted(r[0] for r in c.execute(
            "SELECT name FROM sqlite_master WHERE type='table'"))
    finally:
        c.close()


class StoreVersionsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-storever-")
        self.db = os.path.join(self.tmp, "runs.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def seen(self, srv, rids):
        """What a client reads of each run: its document, its events (the
        whole stream and the stream after its third event), the list."""
        out = {}
        for rid in rids:
            status, doc, _ = srv.json("GET", "/api/runs/%d" % rid)
            self.assertEqual(status, 200, doc)
            status, evs, _ = srv.events(rid)
            self.assertEqual(status, 200)
            status, tail, _ = srv.events(rid, headers={"Last-Event-ID": evs[2][0]})
            self.assertEqual(status, 200)
            out[rid] = (doc, evs, tail)
        status, lst, _ = srv.json("GET", "/api/runs")
        self.assertEqual(status, 200, lst)
        out["list"] = lst
        return out

    def make_store(self):
        """Two runs made here and one imported; what a client read of them."""
        srv = Server(self.tmp, db=self.db).start()
        try:
            a = srv.start_run(SMALL)
            srv.wait_final(a)
            b = srv.start_run(dict(SMALL, threads="1"))
            srv.wait_final(b)
            status, doc, _ = srv.json("GET", "/api/runs/%d?format=json" % a)
            self.assertEqual(status, 200, doc)
            status, imp, _ = srv.json("POST", "/api/runs/import", doc)
            self.assertEqual(status, 201, imp)
            rids = (a, b, imp["id"])
            seen = self.seen(srv, rids)
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())
        self.assertIsNotNone(seen["list"]["runs"][0]["imported"])
        return rids, seen

    def assertSameReads(self, before, after):
        for k in before:
            if k == "list":
                self.assertEqual(before[k], after[k])
                continue
            (doc0, evs0, tail0), (doc1, evs1, tail1) = before[k], after[k]
            self.assertEqual(doc0, doc1)
            self.assertEqual(evs0, evs1)
            self.assertEqual(tail0, tail1)
            self.assertEqual(tail1, evs1[3:])

    def test_version_1_is_converted_when_opened(self):
        rids, before = self.make_store()
        n = as_version_1(self.db)
        self.assertIn("events", tables(self.db))
        srv = Server(self.tmp, db=self.db, name="again").start()
        try:
            self.assertSameReads(before, self.seen(srv, rids))
            # and it goes on: a new run is stored and read back whole
            c = srv.start_run(SMALL)
            evs = srv.wait_final(c)
            self.assertEqual(evs[-1][1], "done")
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())
        self.assertIn("%d events of 3 runs converted" % n, srv.stderr())
        self.assertNotIn("events", tables(self.db))
        con = sqlite3.connect(self.db)
        try:
            self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 2)
            got = con.execute("SELECT sum(last_seq - first_seq + 1) FROM event_batches"
                              " WHERE run_id IN (?, ?, ?)", rids).fetchone()[0]
            self.assertEqual(got, n)
        finally:
            con.close()

    def test_version_1_read_only_is_read_as_it_is(self):
        rids, before = self.make_store()
        as_version_1(self.db)
        with open(self.db, "rb") as f:
            bytes_before = f.read()
        ro = Server(self.tmp, db="file:%s?mode=ro" % self.db, name="ro").start()
        try:
            self.assertSameReads(before, self.seen(ro, rids))
            status, doc, _ = ro.post_run(SMALL)
            self.assertEqual(status, 503, doc)
        finally:
            self.assertEqual(ro.stop(), 0, ro.stderr())
        with open(self.db, "rb") as f:
            self.assertEqual(f.read(), bytes_before)
        self.assertIn("events", tables(self.db))

    def refused(self, db):
        p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", db],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertNotEqual(p.returncode, 0, p.stderr)
        return p.stderr.decode()

    def test_events_of_runs_no_longer_there_are_left_out(self):
        rids, before = self.make_store()
        as_version_1(self.db)
        # a run's row deleted by hand, where foreign keys are not enforced
        con = sqlite3.connect(self.db)
        gone = con.execute("SELECT count(*) FROM events WHERE run_id=?",
                           (rids[1],)).fetchone()[0]
        con.execute("DELETE FROM runs WHERE id=?", (rids[1],))
        con.commit()
        con.close()
        srv = Server(self.tmp, db=self.db, name="again").start()
        try:
            del before[rids[1]]
            before["list"] = None
            seen = self.seen(srv, (rids[0], rids[2]))
            seen["list"] = None
            self.assertSameReads(before, seen)
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())
        self.assertIn("runs converted to this version's tables; %d events of runs no "
                      "longer in it left out" % gone, srv.stderr())

    def test_a_failed_conversion_leaves_the_tables_as_they_were(self):
        rids, before = self.make_store()
        as_version_1(self.db)
        con = sqlite3.connect(self.db)
        con.execute("UPDATE events SET data = data || char(10) WHERE run_id=? AND seq=2",
                    (rids[0],))
        con.commit()
        con.close()
        old = tables(self.db)
        err = self.refused(self.db)
        self.assertIn("cannot convert database '%s' to this version's tables (an event's "
                      "text holds a line break): it is left as it was" % self.db, err)
        self.assertEqual(tables(self.db), old)
        # and read-only, it is still read as it is
        ro = Server(self.tmp, db="file:%s?mode=ro" % self.db, name="ro").start()
        try:
            status, evs, _ = ro.events(rids[2])
            self.assertEqual(evs, before[rids[2]][1])
        finally:
            self.assertEqual(ro.stop(), 0, ro.stderr())

    def test_a_newer_mark_still_in_the_log_is_refused(self):
        self.make_store()
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        con.execute("PRAGMA user_version=3")
        con.commit()
        # the file and its log as a newer server left them, killed before
        # a checkpoint: the mark is in the log, not the file's header
        copy = os.path.join(self.tmp, "newer.db")
        shutil.copy(self.db, copy)
        shutil.copy(self.db + "-wal", copy + "-wal")
        con.close()
        with open(copy, "rb") as f:
            self.assertEqual(f.read(64)[60:64], b"\0\0\0\2")
        err = self.refused(copy)
        self.assertIn("written by a newer numalab (store version 3; this one reads up to 2)",
                      err)
        c = sqlite3.connect(copy)
        self.assertEqual(c.execute("PRAGMA user_version").fetchone()[0], 3)
        c.close()

    def test_a_newer_store_is_refused(self):
        self.make_store()
        con = sqlite3.connect(self.db)
        con.execute("PRAGMA user_version=3")
        con.commit()
        con.close()
        p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", self.db],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode()
        self.assertNotEqual(p.returncode, 0, err)
        self.assertIn("written by a newer numalab (store version 3; this one reads up to 2)",
                      err)
        self.assertIn(self.db, err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
