"""test_guesses.py - the classroom's question, the class's guesses, their
reveal, and the guesses kept with the run (its document, export, import).

The server has a teacher's and a class's token. Each student signs in as the
class link does (POST /api/session with the class token and a name) and
keeps that cookie; the teacher calls with Authorization: Bearer.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_guesses.py  (or make test-api)
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FINAL_TYPES, SMALL, Server, TmpMixin, main, signed_headers, tsan  # noqa: E402

TOKEN = "teacher-token-for-guesses"
CLASS = "class-token-for-guesses"
TEACHER = {"Authorization": "Bearer " + TOKEN}


def addr(n):
    """Student n's own address: each phone of a class has one."""
    return "127.1.%d.%d" % (n // 250, n % 250 + 1)


class GuessesTest(TmpMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.srv = Server(cls.tmp, args=["--token", TOKEN,
                                        "--class-token", CLASS]).start()
        cls.cookies = {}  # student number -> (name, their sign-in's cookie)
        _, exps, _ = cls.srv.json("GET", "/api/experiments", headers=TEACHER)
        fs = [e for e in exps if e["name"] == "false_sharing"][0]
        cls.lesson = fs["lessons"][0]

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def sign_in(self, token, name=None, source=None):
        """(status, doc, the headers a signed-in page sends, or None): the
        class link's sign-in."""
        body = {"token": token}
        if name is not None:
            body["name"] = name
        st, doc, hdrs = self.srv.json("POST", "/api/session", body, source=source)
        return st, doc, signed_headers(self.srv, doc, hdrs)

    def student(self, n, name=None):
        """Student n's cookie: signed in with the class token (and name)
        the first time, the same session after; a new name signs in anew."""
        had = self.cookies.get(n)
        if not had or (name is not None and name != had[0]):
            st, doc, h = self.sign_in(CLASS, name, addr(n))
            self.assertEqual((st, doc["role"]), (200, "class"), doc)
            self.cookies[n] = had = (name, h)
        return had[1]

    def teacher(self, method, path, body=None):
        return self.srv.json(method, path, body, TEACHER)

    def open_question(self):
        st, doc, _ = self.teacher("PUT", "/api/class/question",
                                  {"experiment": "false_sharing",
                                   "lesson": self.lesson["id"]})
        self.assertEqual(st, 200, doc)
        return doc

    def guess(self, n, value, name=None):
        return self.srv.json("POST", "/api/class/guesses", {"value": value},
                             self.student(n, name), source=addr(n))

    def assertRefused(self, got, status, contains):
        st, doc, _ = got
        self.assertEqual(st, status, doc)
        self.assertIn(contains, doc["error"])
        self.assertFalse(doc["error"].endswith("."))

    def test_a_question_its_guesses_and_reveal(self):
        doc = self.open_question()
        self.assertEqual(doc["question"]["question"], self.lesson["question"])
        self.assertEqual(doc["answered"], 0)
        for n, v in ((1, 2.0), (2, 3.0), (3, 10.0)):
            st, got, _ = self.guess(n, v, "s%d" % n)
            self.assertEqual(st, 200, got)
            self.assertEqual(got["mine"], v)
        # a new guess replaces the old one
        st, got, _ = self.guess(2, 4.0)
        self.assertEqual((st, got["answered"], got["mine"]), (200, 3, 4.0))
        # nothing of the values shows before the reveal
        st, late, _ = self.srv.json("GET", "/api/class", headers=self.student(9))
        self.assertEqual((late["guesses"], late["median"], late["mine"]),
                         ([], None, None))
        self.assertEqual(late["answered"], 3)
        # a student may not reveal
        self.assertRefused(self.srv.json("POST", "/api/class/reveal", {},
                                         self.student(1)), 403, "teacher")
        st, rev, _ = self.teacher("POST", "/api/class/reveal", {})
        self.assertEqual(st, 200, rev)
        self.assertEqual((rev["guesses"], rev["median"]), ([2.0, 4.0, 10.0], 4.0))
        # a late joiner sees the question and the revealed distribution
        st, late, _ = self.srv.json("GET", "/api/class", headers=self.student(42))
        self.assertEqual(late["question"]["lesson"], self.lesson["id"])
        self.assertEqual((late["answered"], late["revealed"], late["median"]),
                         (3, True, 4.0))
        # no more guesses once revealed
        self.assertRefused(self.guess(5, 1.0), 409, "revealed")

    def test_bounds_and_sessions(self):
        self.open_question()
        unit = self.lesson["unit"]
        for bad in (0, -1, 1e9, 5e300):
            self.assertRefused(self.guess(1, bad), 400, "above 0 and below 1000000000")
        st, doc, _ = self.guess(1, 1e9 - 1)
        self.assertEqual(st, 200, doc)
        self.assertRefused(self.guess(1, "3"), 400, "a number")
        st, doc, _ = self.srv.json("POST", "/api/class/guesses", {"value": 1, "x": 2},
                                   self.student(1))
        self.assertEqual(st, 400, doc)
        err = self.guess(1, -2)[1]["error"]
        self.assertIn("'%s'" % unit, err)
        # no class session: refused, whatever the body
        self.assertRefused(self.srv.json("POST", "/api/class/guesses", {"value": 2}),
                           401, "sign in")
        # a bearer token, the class's or the teacher's: no session to keep it by
        for tok in (CLASS, TOKEN):
            self.assertRefused(self.srv.json("POST", "/api/class/guesses", {"value": 2},
                                             {"Authorization": "Bearer " + tok}),
                               403, "open the class link")
        # the teacher signed in: their guess goes with the run, not the class's
        _, _, tc = self.sign_in(TOKEN)
        self.assertRefused(self.srv.json("POST", "/api/class/guesses",
                                         {"value": 2}, tc),
                           403, "teacher_guess")
        # unknown lessons and experiments are named
        st, doc, _ = self.teacher("PUT", "/api/class/question",
                                  {"experiment": "false_sharing", "lesson": "nope"})
        self.assertEqual((st, doc.get("field")), (400, "lesson"))
        st, doc, _ = self.teacher("PUT", "/api/class/question",
                                  {"experiment": "nope", "lesson": "x"})
        self.assertEqual((st, doc.get("field")), (400, "experiment"))
        self.assertRefused(self.srv.json("PUT", "/api/class/question",
                                         {"experiment": "false_sharing",
                                          "lesson": self.lesson["id"]},
                                         self.student(3)),
                           403, "teacher")

    def test_the_cap(self):
        self.open_question()
        # a class of a thousand phones and more (tests/bench's phones row)
        for n in range(1024):
            st, doc, _ = self.guess(1000 + n, 1 + n)
            self.assertEqual(st, 200, doc)
        self.assertRefused(self.guess(5000, 7), 409, "1024 guesses")
        # a student who already guessed may still change theirs (the
        # newest: the server holds 1024 sign-ins, and the other tests'
        # took some of them)
        st, doc, _ = self.guess(1000 + 1023, 9)
        self.assertEqual((st, doc.get("answered")), (200, 1024), doc)

    def test_one_address_cannot_fill_a_question(self):
        self.open_question()
        # sixteen phones behind one address may guess, not the seventeenth
        # (127.0.0.1: the one address whose sign-ins are not slowed)
        source = "127.0.0.1"
        for k in range(17):
            st, doc, h = self.sign_in(CLASS, "p%d" % k, source)
            self.assertEqual(st, 200, doc)
            got = self.srv.json("POST", "/api/class/guesses", {"value": 1 + k}, h,
                                source=source)
            if k < 16:
                self.assertEqual(got[0], 200, got[1])
            else:
                self.assertRefused(got, 409, "the most one address may")
        st, doc, _ = self.srv.json("GET", "/api/class", headers=TEACHER)
        self.assertEqual(doc["answered"], 16)

    def test_names_are_kept_as_text(self):
        self.open_question()
        evil = '<img src=x onerror="alert(1)">&amp;'
        st, doc, _ = self.guess(7, 3, evil)
        self.assertEqual(st, 200, doc)
        # anonymous until the reveal, then the names as given
        self.assertEqual(doc["names"], [])
        st, doc, _ = self.teacher("POST", "/api/class/reveal", {})
        self.assertEqual(doc["names"], [evil])
        # a name too long is refused at sign-in, before any guess
        st, doc, h = self.sign_in(CLASS, "x" * 49)
        self.assertEqual((st, h), (400, None), doc)
        self.assertIn("name", doc["error"])

    def test_guesses_kept_with_the_run_and_through_import(self):
        self.open_question()
        self.guess(1, 2.5, "Ana <b>")
        self.guess(2, 3.5)
        st, doc, _ = self.srv.post_run(SMALL, headers=TEACHER)
        self.assertEqual(st, 202, doc)
        rid = doc["id"]
        st, doc, _ = self.teacher("POST", "/api/class/run",
                                   {"run": rid, "teacher_guess": 3})
        self.assertEqual((st, doc["run"], doc["teacher_guess"]), (200, rid, 3), doc)
        st, evs, _ = self.srv.events(rid, "?access_token=" + TOKEN)
        self.assertEqual((st, evs[-1][1] in FINAL_TYPES), (200, True))
        # the teacher named the run: guesses are closed
        self.assertRefused(self.guess(3, 4.5), 409, "guesses are closed")
        self.teacher("POST", "/api/class/reveal", {})
        st, run, _ = self.teacher("GET", "/api/runs/%d" % rid)
        self.assertEqual(st, 200, run)
        cls = run["class"]
        self.assertEqual(cls["lesson"], self.lesson["id"])
        self.assertEqual(cls["revealed"], True)
        self.assertEqual(cls["teacher_guess"], 3)
        self.assertEqual(sorted(g["value"] for g in cls["guesses"]), [2.5, 3.5])
        self.assertIn({"name": "Ana <b>", "value": 2.5}, cls["guesses"])
        self.assertNotIn("session", str(cls))
        # the guesses never touch the measurement
        self.assertNotIn("class", run["summary"])
        # a new question: the run's document stays as it was
        self.open_question()
        st, again, _ = self.teacher("GET", "/api/runs/%d" % rid)
        self.assertEqual(again["class"], cls)
        # export and import: the guesses come back
        again.pop("verdict_today", None)
        st, imp, _ = self.teacher("POST", "/api/runs/import", again)
        self.assertEqual(st, 201, imp)
        st, back, _ = self.teacher("GET", "/api/runs/%d" % imp["id"])
        self.assertEqual(back["class"], cls)
        # bounded like the rest of the document
        bad = dict(again, **{"class": dict(cls, guesses=[{"name": None, "value": 1}] * 1025)})
        st, doc, _ = self.teacher("POST", "/api/runs/import", bad)
        self.assertEqual(st, 400, doc)
        self.assertIn("class", doc["error"])
        # and by the live rules: a guess above 0, a name a class may be
        # shown (as at sign-in), a lesson of the run's experiment
        for block, field, why in (
                (dict(cls, guesses=[{"name": None, "value": 0}]),
                 "class.guesses[0].value", "above 0"),
                (dict(cls, guesses=[{"name": "a\x07\x1b[31m", "value": 1}]),
                 "class.guesses[0].name", "control character"),
                (dict(cls, guesses=[{"name": "Ana", "value": 1},
                                    {"name": "Bo\u202eb", "value": 1}]),
                 "class.guesses[1].name",
                 "'class.guesses[1].name' has a text-direction control (U+202E)"),
                (dict(cls, guesses=[{"name": "  ", "value": 1}]),
                 "class.guesses[0].name", "only spaces"),
                (dict(cls, lesson="no-such-lesson"), "class.lesson", "unknown lesson"),
                (dict(cls, teacher_guess=0), "class.teacher_guess", "above 0")):
            st, doc, _ = self.teacher("POST", "/api/runs/import",
                                      dict(again, **{"class": block}))
            self.assertEqual((st, doc.get("field")), (400, field), doc)
            self.assertIn(why, doc["error"])
        # a run of another experiment cannot answer the question
        st, doc, _ = self.teacher("POST", "/api/class/run", {"run": 99999})
        self.assertEqual(st, 404, doc)

    @tsan
    def test_a_run_named_after_its_end_reads_the_same(self):
        # an ended run's document, once read, is kept as its bytes and the
        # runner lets its own fold go: a run the class names afterwards is
        # read past those bytes, from the store, and reads the same
        self.open_question()
        st, doc, _ = self.srv.post_run(SMALL, headers=TEACHER)
        self.assertEqual(st, 202, doc)
        rid = doc["id"]
        st, evs, _ = self.srv.events(rid, "?access_token=" + TOKEN)
        self.assertEqual((st, evs[-1][1]), (200, "done"))
        st, first, _ = self.teacher("GET", "/api/runs/%d" % rid)
        self.assertEqual(st, 200, first)
        st, kept, _ = self.teacher("GET", "/api/runs/%d" % rid)
        self.assertEqual(kept, first)
        st, doc, _ = self.teacher("POST", "/api/class/run", {"run": rid, "teacher_guess": 3})
        self.assertEqual(st, 200, doc)
        st, after, _ = self.teacher("GET", "/api/runs/%d" % rid)
        self.assertEqual(st, 200, after)
        self.assertEqual(after["class"]["teacher_guess"], 3)
        for key in ("samples", "placement", "cells", "summary", "headline", "params",
                    "machine", "status", "started_at", "finished_at", "verdict_today"):
            self.assertEqual(after[key], first[key], key)


if __name__ == "__main__":
    main()
