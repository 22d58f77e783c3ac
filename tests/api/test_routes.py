"""test_routes.py - routes, methods and run ids that do not exist.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_routes.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    SharedServerTest,
    main,
)


class RoutesTest(SharedServerTest):
    """Unknown routes and ids, wrong methods, OPTIONS."""

    def test_unknown_route(self):
        for path in ("/api/nope", "/api/runs/1/nope", "/api", "/api/runs/"):
            status, doc, hdrs = self.srv.json("GET", path)
            self.assertError(status, doc, 404)
            self.assertEqual(hdrs["content-type"], "application/json")

    def test_wrong_method(self):
        status, doc, hdrs = self.srv.json("PUT", "/api/runs", {})
        self.assertError(status, doc, 405, None, "'PUT'")
        self.assertEqual(set(hdrs["allow"].split(", ")), {"GET", "HEAD", "POST"})
        status, doc, hdrs = self.srv.json("DELETE", "/api/experiments")
        self.assertError(status, doc, 405)
        self.assertIn("GET", hdrs["allow"])
        status, doc, hdrs = self.srv.json("POST", "/api/runs/1")
        self.assertError(status, doc, 405)
        self.assertEqual(set(hdrs["allow"].split(", ")), {"GET", "HEAD", "DELETE"})
        status, doc, hdrs = self.srv.json("POST", "/index.html", {})
        self.assertError(status, doc, 405)
        self.assertIn("GET", hdrs["allow"])

    def test_options(self):
        status, hdrs, body = self.srv.request("OPTIONS", "/api/runs")
        self.assertEqual(status, 204)
        self.assertIn("POST", hdrs["allow"])
        self.assertNotIn("access-control-allow-origin", hdrs)

    def test_bad_run_id(self):
        for bad in ("abc", "0", "-1", "1.5", "99999999999999999999"):
            status, doc, _ = self.srv.json("GET", "/api/runs/%s" % bad)
            self.assertError(status, doc, 400, "id")
        status, doc, _ = self.srv.json("DELETE", "/api/runs/abc")
        self.assertError(status, doc, 400, "id")
        status, doc, _ = self.srv.json("GET", "/api/runs/x/events")
        self.assertError(status, doc, 400, "id")

    def test_unknown_run(self):
        for method, path in (("GET", "/api/runs/987654"),
                             ("DELETE", "/api/runs/987654"),
                             ("GET", "/api/runs/987654/events"),
                             ("GET", "/api/runs/987654/export.csv")):
            status, doc, _ = self.srv.json(method, path)
            self.assertError(status, doc, 404, "id", "987654")

if __name__ == "__main__":
    main()
