"""test_class_events.py - the phones follow the classroom through one event
stream, not by polling: the newest state at once, a new question and the
reveal as they happen, a new count of answers soon after (at most once a
second), a resume after the last event seen; a student's session may read
it, no one without one.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_class_events.py  (or make test-api)
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, TmpMixin, main, signed_headers, sse_events  # noqa: E402

TOKEN = "teacher-token-for-class-events"
CLASS = "class-token-for-class-events"
TEACHER = {"Authorization": "Bearer " + TOKEN}


class ClassEventsTest(TmpMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, args=["--token", TOKEN, "--class-token", CLASS]).start()
        _, exps, _ = cls.srv.json("GET", "/api/experiments", headers=TEACHER)
        cls.lesson = [e for e in exps if e["name"] == "false_sharing"][0]["lessons"][0]
        st, doc, hdrs = cls.srv.json("POST", "/api/session", {"token": CLASS, "name": "Ada"},
                                     source="127.2.0.1")
        assert st == 200, doc
        cls.student = signed_headers(cls.srv, doc, hdrs)

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def follow(self, headers=None):
        c = self.srv.conn(30)
        h = dict(self.student)
        h.update(headers or {})
        c.request("GET", "/api/class/events", headers=h)
        r = c.getresponse()
        return c, r

    def test_follows_the_room(self):
        c, r = self.follow()
        self.assertEqual(r.status, 200)
        self.assertIn("text/event-stream", r.getheader("content-type"))
        evs = sse_events(r)
        seq, typ, first = next(evs)
        self.assertEqual(typ, "class")
        self.assertEqual(set(first), {"type", "seq", "serial", "answered", "revealed", "run"})
        # a question: at once
        st, doc, _ = self.srv.json("PUT", "/api/class/question",
                                   {"experiment": "false_sharing", "lesson": self.lesson["id"]},
                                   TEACHER)
        self.assertEqual(st, 200, doc)
        seq2, _, ev = next(evs)
        self.assertGreater(seq2, seq)
        self.assertEqual(ev["serial"], doc["question"]["serial"])
        self.assertEqual((ev["answered"], ev["revealed"]), (0, False))
        # a guess: its count comes (within a second)
        st, doc, _ = self.srv.json("POST", "/api/class/guesses", {"value": 2.5}, self.student,
                                   source="127.2.0.1")
        self.assertEqual(st, 200, doc)
        _, _, ev = next(evs)
        self.assertEqual(ev["answered"], 1)
        # the reveal: at once
        st, doc, _ = self.srv.json("POST", "/api/class/reveal", {}, TEACHER)
        self.assertEqual(st, 200, doc)
        last, _, ev = next(evs)
        self.assertTrue(ev["revealed"])
        c.close()
        # one that comes back resumes after what it saw; one that comes
        # late gets the newest state first
        c, r = self.follow({"Last-Event-ID": str(seq)})
        got = next(sse_events(r))
        self.assertEqual(got[0], seq + 1)
        c.close()
        c, r = self.follow()
        got = next(sse_events(r))
        self.assertEqual(got[0], last)
        self.assertTrue(got[2]["revealed"])
        c.close()

    def test_needs_a_session(self):
        st, _, _ = self.srv.request("GET", "/api/class/events")
        self.assertEqual(st, 401)
        c, r = self.follow({"Last-Event-ID": "x"})
        self.assertEqual(r.status, 400)
        c.close()


if __name__ == "__main__":
    main()
