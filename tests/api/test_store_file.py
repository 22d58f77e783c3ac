"""test_store_file.py - the store's file: foreign, damaged, deleted, read-only media, in memory.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_store_file.py  (or make test-api)
"""

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, LONG, Server  # noqa: E402

SMALL = {"threads": "1-2", "increments": 100000, "repeat": 3, "warmup": 0}


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class StoreFileTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="numalab-storefile-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def serve(self, db):
        """Starts a server that should refuse db; returns (rc, stderr)."""
        p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db", db],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stderr.decode()

    def make_run(self, db):
        srv = Server(self.tmp, db=db).start()
        rid = srv.start_run(SMALL)
        srv.wait_final(rid)
        self.assertEqual(srv.stop(), 0, srv.stderr())
        return rid

    def assertRefused(self, db, *words):
        before = sorted(os.listdir(self.tmp))
        digest_before = digest(db)
        rc, err = self.serve(db)
        self.assertNotEqual(rc, 0, err)
        self.assertIn(db, err)
        for w in words:
            self.assertIn(w, err)
        # left byte for byte as it was, and no -wal or -shm beside it
        self.assertEqual(digest(db), digest_before)
        self.assertEqual(sorted(os.listdir(self.tmp)), before)

    def test_another_programs_file(self):
        other = os.path.join(self.tmp, "other.db")
        c = sqlite3.connect(other)
        c.execute("CREATE TABLE people (name TEXT)")
        c.execute("INSERT INTO people VALUES ('ada')")
        c.commit()
        c.close()
        self.assertRefused(other, "another program", "'people'")
        c = sqlite3.connect(other)
        self.assertEqual(c.execute("PRAGMA journal_mode").fetchone()[0], "delete")
        self.assertEqual([r[0] for r in c.execute("SELECT name FROM sqlite_master")],
                         ["people"])
        c.close()

    def test_another_programs_id(self):
        other = os.path.join(self.tmp, "tagged.db")
        c = sqlite3.connect(other)
        c.execute("PRAGMA application_id=1234")
        c.execute("CREATE TABLE runs (x)")  # even a table of our name
        c.commit()
        c.close()
        self.assertRefused(other, "application id")
        other = os.path.join(self.tmp, "versioned.db")
        c = sqlite3.connect(other)
        c.execute("PRAGMA user_version=7")
        c.commit()
        c.close()
        self.assertRefused(other, "user version 7")

    def test_not_sqlite(self):
        junk = os.path.join(self.tmp, "junk.db")
        with open(junk, "wb") as f:
            f.write(b"name,value\n" * 100)
        self.assertRefused(junk, "not a SQLite file")

    def test_a_folder(self):
        folder = os.path.join(self.tmp, "runs.d")
        os.mkdir(folder)
        rc, err = self.serve(folder)
        self.assertNotEqual(rc, 0, err)
        self.assertIn("cannot read database '%s': Is a directory" % folder, err)
        self.assertEqual(os.listdir(folder), [])

    def test_damaged_file(self):
        db = os.path.join(self.tmp, "x.db")
        self.make_run(db)
        with open(db, "r+b") as f:
            size = f.seek(0, 2)
            self.assertGreater(size, 3 * 4096)
            f.seek(4096)
            f.write(b"\x5a" * 8192)
        rc, err = self.serve(db)
        self.assertNotEqual(rc, 0)
        self.assertIn("'%s' is damaged" % db, err)
        self.assertIn("backup", err)

    def test_our_file_is_marked(self):
        db = os.path.join(self.tmp, "x.db")
        self.make_run(db)
        c = sqlite3.connect(db)
        self.assertEqual(c.execute("PRAGMA application_id").fetchone()[0], 0x6E6C6162)
        c.close()
        # and opens again
        self.make_run(db)

    def test_deleted_under_it(self):
        for how in ("deleted", "replaced"):
            db = os.path.join(self.tmp, "%s.db" % how)
            srv = Server(self.tmp, db=db, name=how).start()
            try:
                rid = srv.start_run(SMALL)
                srv.wait_final(rid)
                _, done, _ = srv.json("GET", "/api/runs/%d" % rid)
                os.rename(db, db + ".old")
                if how == "replaced":
                    shutil.copy(db + ".old", db)
                status, doc, _ = srv.post_run(SMALL)
                self.assertEqual(status, 503, doc)
                self.assertIn(how, doc["error"])
                self.assertIn("campaigns would be lost", doc["error"])
                self.assertIn(db, doc["error"])
                # a campaign would be lost the same way: refused too
                campaign = {"id": "lost-" + how, "engine": "clush",
                            "experiment": "false_sharing", "params": {},
                            "created_at": "2026-12-03T12:00:00Z",
                            "nodes": [{"node": "lab01", "state": "done"}]}
                status, doc, _ = srv.json("POST", "/api/campaigns", campaign)
                self.assertEqual(status, 503, doc)
                self.assertIn(how, doc["error"])
                # and an imported run
                status, doc, _ = srv.json("POST", "/api/runs/import", done)
                self.assertEqual(status, 503, doc)
                self.assertIn(how, doc["error"])
                # reads still work
                self.assertEqual(srv.json("GET", "/api/runs")[0], 200)
            finally:
                srv.stop()
            self.assertIn("was %s while the server ran" % how, srv.stderr())

    def test_in_memory_is_said(self):
        for db in (":memory:", "", "file:runs?mode=memory"):
            # the test's --db replaces the harness's own
            srv = Server(self.tmp, args=["--db", db], name="mem").start()
            try:
                srv.wait_final(srv.start_run(SMALL))
            finally:
                self.assertEqual(srv.stop(), 0)
            self.assertIn("lost when the server stops", srv.stderr())

    def test_read_only_media(self):
        if os.geteuid() != 0:
            self.skipTest("SKIP: mounting a tmpfs needs root")
        mnt = os.path.join(self.tmp, "media")
        os.mkdir(mnt)
        if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt],
                           stderr=subprocess.DEVNULL):
            self.skipTest("SKIP: this machine does not let us mount a tmpfs")
        try:
            db = os.path.join(mnt, "x.db")
            rid = self.make_run(db)
            for f in os.listdir(mnt):
                self.assertFalse(f.endswith("-shm") or f.endswith("-wal"), f)
            subprocess.check_call(["mount", "-o", "remount,ro", mnt])
            ro = Server(self.tmp, db=db, name="ro").start()
            try:
                status, run, _ = ro.json("GET", "/api/runs/%d" % rid)
                self.assertEqual((status, run["status"]), (200, "done"))
                status, doc, _ = ro.post_run(SMALL)
                self.assertEqual(status, 503, doc)
            finally:
                self.assertEqual(ro.stop(), 0, ro.stderr())
            self.assertIn("read-only", ro.stderr())
        finally:
            subprocess.call(["umount", "-l", mnt])

    def test_a_store_with_a_class_guess_opens_again(self):
        # run_guesses is made the first time a class guesses on a run
        db = os.path.join(self.tmp, "guessed.db")
        srv = Server(self.tmp, db=db).start()
        try:
            srv.wait_final(srv.start_run(SMALL))
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE IF NOT EXISTS run_guesses (run_id INTEGER PRIMARY KEY,"
                    " block TEXT NOT NULL)")
        con.commit()
        con.close()
        srv = Server(self.tmp, db=db, name="again").start()
        try:
            status, lst, _ = srv.json("GET", "/api/runs")
            self.assertEqual((status, lst["total"]), (200, 1))
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr())

    def test_a_second_server_leaves_the_first_ones_live_run(self):
        # the first server's live run keeps its events in the store's
        # journal, and looks stale from a second server on the same store:
        # the second says so, leaves that run as it is and stores its own
        # runs' batches itself; the first run loses nothing
        db = os.path.join(self.tmp, "served.db")
        srv = Server(self.tmp, db=db).start()
        second = None
        try:
            rid = srv.start_run(LONG)
            srv.wait_event(rid, "sample")
            second = Server(self.tmp, db=db, name="second").start()
            self.assertIn("another numalab server is serving", second.stderr())
            self.assertNotIn("interrupted", second.stderr())
            status, run, _ = second.json("GET", "/api/runs/%d" % rid)
            self.assertEqual((status, run["status"]), (200, "running"))
            own = second.start_run(SMALL)
            self.assertEqual(second.wait_final(own)[-1][1], "done")
            self.assertEqual(second.stop(), 0, second.stderr())
            self.assertEqual(srv.json("DELETE", "/api/runs/%d" % rid)[0], 200)
            seen = srv.wait_final(rid)
            self.assertEqual(seen[-1][1], "cancelled")
            self.assertEqual(srv.stop(), 0, srv.stderr())
            srv = Server(self.tmp, db=db, name="again").start()
            self.assertEqual(srv.events(rid)[1], seen)
            self.assertEqual(srv.json("GET", "/api/runs/%d" % own)[1]["status"], "done")
        finally:
            if second and second.proc:
                second.stop()
            self.assertEqual(srv.stop(), 0, srv.stderr())

if __name__ == "__main__":
    unittest.main(verbosity=2)
