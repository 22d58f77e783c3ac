"""test_static.py - the page's static files: types, headers, traversal.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_static.py
(make test-api runs every tests/api/test_*.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402
    SharedServerTest,
    main,
)


class StaticTest(SharedServerTest):
    """Files served from --web, and the paths refused."""

    def test_static_files(self):
        want = {
            "/": "text/html; charset=utf-8",
            "/index.html": "text/html; charset=utf-8",
            "/app.js": "text/javascript; charset=utf-8",
            "/alias.js": "text/javascript; charset=utf-8",
            "/style.css": "text/css; charset=utf-8",
            "/data.json": "application/json",
            "/pic.svg": "image/svg+xml",
            "/sub/inner.txt": "text/plain; charset=utf-8",
        }
        for path, ctype in want.items():
            status, hdrs, body = self.srv.request("GET", path)
            self.assertEqual(status, 200, path)
            self.assertEqual(hdrs["content-type"], ctype, path)
            self.assertTrue(body, path)
        status, hdrs, body = self.srv.request("GET", "/")
        self.assertIn(b"numalab test", body)
        status, hdrs, body = self.srv.request("HEAD", "/app.js")
        self.assertEqual(status, 200)
        self.assertEqual(body, b"")

    def test_security_headers(self):
        for path in ("/", "/api/experiments", "/api/nope", "/nope.html"):
            _, hdrs, _ = self.srv.request("GET", path)
            self.assertEqual(
                hdrs["content-security-policy"],
                "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
                "frame-ancestors 'none'",
                path)
            self.assertEqual(hdrs["x-content-type-options"], "nosniff", path)

    def test_path_traversal(self):
        refused = [
            "/../outside.txt",
            "/../../../../etc/passwd",
            "/%2e%2e/outside.txt",
            "/%2E%2E/%2e%2e/etc/passwd",
            "/sub/../../outside.txt",
            "/sub/%2e%2e/%2e%2e/outside.txt",
            "/..%2foutside.txt",
            "/sub%2finner.txt",
            "/sub%2F..%2F..%2Foutside.txt",
            "/..%5coutside.txt",
            "/.hidden",
            "/%2ehidden",
            "/app.js%00.html",
            "/sub//inner.txt",
        ]
        for path in refused:
            status, hdrs, body = self.srv.request("GET", path)
            self.assertIn(status, (400, 404), path)
            self.assertNotIn(b"outside the web folder", body, path)
            self.assertNotIn(b"root:", body, path)
            self.assertNotIn(b"secret", body, path)
            self.assertEqual(hdrs["content-type"], "application/json", path)

    def test_symlinks_out_and_directories(self):
        for path in ("/escape.txt", "/etc/passwd", "/etc/", "/sub", "/sub/",
                     "/nope.html", "/sub/nope"):
            status, _, body = self.srv.request("GET", path)
            self.assertEqual(status, 404, path)
            self.assertNotIn(b"outside the web folder", body)
            self.assertNotIn(b"root:", body)
            self.assertNotIn(b"inner.txt", body)  # no listing

if __name__ == "__main__":
    main()
