"""test_sample_text.py - samples the runner keeps as text read as values would be.

The runner keeps a sample line as its text, not a tree; the run's document,
and its description by today's rules read them from that text. The same
run imported is stored and read back as values: every experiment's
document and verdict must be the same both ways.

Run: NUMALAB_BIN=build/numalab python3 tests/api/test_sample_text.py  (or make test-api)
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SharedServerTest, main  # noqa: E402
from test_openapi import fewest_rounds, tiny  # noqa: E402

# what an import adds or sets anew
NEW_ON_IMPORT = ("id", "imported", "created_at", "verdict_today", "request")


class SampleTextTest(SharedServerTest):
    def test_every_experiment_reads_the_same_from_text(self):
        rounds = fewest_rounds(self.srv)
        for name, params in sorted(tiny(self.srv).items()):
            with self.subTest(name):
                rid = self.srv.start_run(dict(params, **rounds[name]),
                                         experiment=name)
                self.assertEqual(self.srv.wait_final(rid)[-1][1], "done")
                status, doc, _ = self.srv.json("GET", "/api/runs/%d" % rid)
                self.assertEqual(status, 200, doc)
                self.assertTrue(doc["samples"] or doc["cells"], name)
                self.assertTrue(all(isinstance(s, dict) for s in doc["samples"]))
                sent = {k: v for k, v in doc.items() if k not in NEW_ON_IMPORT}
                status, imp, _ = self.srv.json("POST", "/api/runs/import", sent)
                self.assertEqual(status, 201, imp)
                status, back, _ = self.srv.json("GET", "/api/runs/%d" % imp["id"])
                self.assertEqual(status, 200, back)
                for key in ("samples", "placement", "cells", "summary", "headline"):
                    self.assertEqual(doc[key], back[key], key)
                self.assertIsNotNone(doc["verdict_today"])
                self.assertEqual(doc["verdict_today"], back["verdict_today"])
                self.assertFalse(doc["verdict_today"]["changed"])


if __name__ == "__main__":
    main()
