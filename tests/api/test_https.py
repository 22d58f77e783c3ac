"""test_https.py - `numalab serve --tls-cert FILE --tls-key FILE`: HTTPS with a
lab certificate made here with openssl, plain HTTP refused on that port, and
a clear error naming the file for each bad certificate or key.

Against the real binary: NUMALAB_BIN=build/numalab python3 tests/api/test_https.py
(make test-api runs every tests/api/test_*.py).
"""

import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, TmpMixin, main  # noqa: E402

OPENSSL = shutil.which("openssl")


def make_cert(tmp, name, san="IP:127.0.0.1,DNS:localhost"):
    """A self-signed certificate for 127.0.0.1 (or san) and its key, as the
    README makes one."""
    cert, key = os.path.join(tmp, name + ".crt"), os.path.join(tmp, name + ".key")
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=numalab test", "-addext",
                    "subjectAltName=" + san,
                    "-keyout", key, "-out", cert],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def serve(tmp, *args):
    p = subprocess.run([BIN, "serve", "--listen", "127.0.0.1:0", "--db",
                        os.path.join(tmp, "bad.db"), *args],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


@unittest.skipUnless(OPENSSL, "SKIP: no 'openssl' to make a test certificate "
                     "(make test-deps installs it)")
class HttpsTest(TmpMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.cert, cls.key = make_cert(cls.tmp, "lab")
        cls.srv = Server(cls.tmp, web=cls.web,
                         args=["--tls-cert", cls.cert, "--tls-key", cls.key])
        cls.srv.ssl_context = ssl.create_default_context(cafile=cls.cert)
        cls.srv.start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.srv.stop()
        err = cls.srv.stderr()
        cls.drop_tmp()
        if rc != 0:
            raise AssertionError("server exited with %s\n%s" % (rc, err))

    def test_the_printed_url_says_https(self):
        self.assertEqual(self.srv.scheme, "https")

    def test_curl_reads_the_api_over_https(self):
        if not shutil.which("curl"):
            self.skipTest("SKIP: no 'curl' (make test-deps installs it)")
        p = subprocess.run(["curl", "-sS", "--fail", "--cacert", self.cert,
                            "https://127.0.0.1:%d/api/experiments" % self.srv.port],
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [e["name"] for e in json.loads(p.stdout)]
        self.assertIn("false_sharing", names)

    def test_python_verifies_the_certificate(self):
        status, doc, hdrs = self.srv.json("GET", "/api/experiments")
        self.assertEqual(status, 200)
        self.assertTrue(doc)
        # an unknown certificate is not trusted: the client, not the
        # server, refuses it
        c = http.client.HTTPSConnection("127.0.0.1", self.srv.port, timeout=60,
                                        context=ssl.create_default_context())
        with self.assertRaises(ssl.SSLError):
            c.request("GET", "/api/experiments")
        c.close()

    def s_client(self, *args):
        """(returncode, output) of openssl s_client with args."""
        p = subprocess.run([OPENSSL, "s_client", "-connect", "127.0.0.1:%d" % self.srv.port]
                           + list(args), input=b"", capture_output=True, timeout=60)
        return p.returncode, (p.stdout + p.stderr).decode(errors="replace")

    @unittest.skipUnless(OPENSSL, "SKIP: no 'openssl' to try TLS versions")
    def test_tls_12_or_newer_only(self):
        # the client offers the old versions (seclevel 0), the server refuses
        for old in ("-tls1", "-tls1_1"):
            rc, out = self.s_client(old, "-cipher", "DEFAULT@SECLEVEL=0")
            self.assertNotEqual(rc, 0, (old, out))
            self.assertIn("Cipher is (NONE)", out, old)
        for new in ("-tls1_2", "-tls1_3"):
            rc, out = self.s_client(new)
            self.assertEqual(rc, 0, (new, out))
            self.assertNotIn("Cipher is (NONE)", out, new)
        # TLS 1.2 with a CBC suite of SHA-1: refused
        rc, out = self.s_client("-tls1_2", "-cipher", "AES128-SHA:@SECLEVEL=0")
        self.assertIn("Cipher is (NONE)", out)

    def test_hsts_under_tls(self):
        for path in ("/", "/api/experiments", "/api/nope"):
            _, hdrs, _ = self.srv.request("GET", path)
            self.assertEqual(hdrs.get("strict-transport-security"), "max-age=31536000", path)

    def test_plain_http_to_the_tls_port_gets_no_answer(self):
        c = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=60)
        try:
            with self.assertRaises((http.client.HTTPException, ConnectionError)):
                c.request("GET", "/api/experiments")
                c.getresponse().read()
        finally:
            c.close()

    def test_a_page_of_this_server_may_write(self):
        # its pages' origin is https://: a POST from one is not cross-origin
        origin = "https://127.0.0.1:%d" % self.srv.port
        status, err, _ = self.srv.json("POST", "/api/runs", {"experiment": "nope"},
                                       headers={"Origin": origin})
        self.assertEqual(status, 400, err)
        status, err, _ = self.srv.json("POST", "/api/runs", {"experiment": "nope"},
                                       headers={"Origin": "http://127.0.0.1:%d"
                                                % self.srv.port})
        self.assertEqual(status, 403, err)

    def test_bad_files_are_named(self):
        other_cert, other_key = make_cert(self.tmp, "other")
        missing = os.path.join(self.tmp, "missing.pem")
        empty = os.path.join(self.tmp, "empty.pem")
        big = os.path.join(self.tmp, "big.pem")
        open(empty, "w").close()
        with open(big, "w") as f:
            f.write("x" * (300 * 1024))
        for args, msg in (
            (["--tls-cert", self.cert], "'--tls-cert' needs '--tls-key' too"),
            (["--tls-key", self.key], "'--tls-key' needs '--tls-cert' too"),
            (["--tls-cert", missing, "--tls-key", self.key],
             "cannot read TLS certificate '%s': No such file or directory" % missing),
            (["--tls-cert", self.cert, "--tls-key", missing],
             "cannot read TLS key '%s': No such file or directory" % missing),
            (["--tls-cert", self.tmp, "--tls-key", self.key],
             "TLS certificate '%s' is not a regular file" % self.tmp),
            (["--tls-cert", empty, "--tls-key", self.key],
             "TLS certificate '%s' is empty" % empty),
            (["--tls-cert", big, "--tls-key", self.key],
             "TLS certificate '%s' is larger than 256 KiB" % big),
            (["--tls-cert", self.key, "--tls-key", self.key],
             "TLS certificate '%s' holds no PEM certificate" % self.key),
            (["--tls-cert", self.cert, "--tls-key", self.cert],
             "TLS key '%s' holds no unencrypted PEM private key" % self.cert),
            (["--tls-cert", self.cert, "--tls-key", other_key],
             "TLS key '%s' does not go with certificate '%s'" % (other_key, self.cert)),
        ):
            rc, err = serve(self.tmp, *args)
            self.assertEqual(rc, 2, (args, err))
            self.assertIn(msg, err)
        self.assertTrue(os.path.exists(other_cert))
        if os.getuid() != 0:
            os.chmod(other_key, 0)
            rc, err = serve(self.tmp, "--tls-cert", other_cert, "--tls-key", other_key)
            self.assertEqual(rc, 2, err)
            self.assertIn("cannot read TLS key '%s': Permission denied" % other_key, err)

    def test_a_key_others_may_read_is_warned_about(self):
        self.assertNotIn("may be read by other users", self.srv.stderr())
        cert, key = make_cert(self.tmp, "shared")
        os.chmod(key, 0o644)
        s = Server(self.tmp, args=["--tls-cert", cert, "--tls-key", key], name="shared")
        s.ssl_context = ssl.create_default_context(cafile=cert)
        s.start()
        try:
            self.assertEqual(s.json("GET", "/api/experiments")[0], 200)
        finally:
            self.assertEqual(s.stop(), 0)
        self.assertIn("warning: TLS key '%s' may be read by other users" % key, s.stderr())

    def test_fleet_needs_a_certificate_naming_this_server(self):
        # its campaigns deliver here over HTTPS and verify the certificate
        # (tests/fleet runs one); one naming another machine is refused
        token = os.path.join(self.tmp, "token")
        with open(token, "w") as f:
            f.write("tls-fleet-token\n")
        cert, key = make_cert(self.tmp, "elsewhere", "DNS:elsewhere.example")
        rc, err = serve(self.tmp, "--tls-cert", cert, "--tls-key", key,
                        "--token-file", token, "--fleet", "slurm")
        self.assertEqual(rc, 2, err)
        self.assertIn("'--fleet' with '--tls-cert': the certificate names none of "
                      "127.0.0.1, localhost", err)
        self.assertIn("e.g. IP:127.0.0.1", err)
        s = Server(self.tmp, args=["--tls-cert", self.cert, "--tls-key", self.key,
                                   "--token-file", token, "--fleet", "slurm"], name="fleet")
        s.ssl_context = ssl.create_default_context(cafile=self.cert)
        s.start()
        self.assertEqual(s.stop(), 0, s.stderr())


class PlainTokenTest(TmpMixin, unittest.TestCase):
    """A token served off loopback over plain HTTP is said at start."""

    def setUp(self):
        self.make_tmp()
        self.token = os.path.join(self.tmp, "token")
        with open(self.token, "w") as f:
            f.write("plain-text-token\n")

    def tearDown(self):
        self.drop_tmp()

    def start(self, *args):
        s = Server(self.tmp, args=["--token-file", self.token, *args])
        s.start("0.0.0.0:0")
        s.host = "127.0.0.1"
        rc = s.stop()
        self.assertEqual(rc, 0, s.stderr())
        return s.stderr()

    def test_plain_http_off_loopback_warns(self):
        err = self.start()
        self.assertIn("warning: serving '0.0.0.0:0' over plain HTTP: the token "
                      "crosses the network in clear text", err)
        self.assertNotIn("plain-text-token", err)

    @unittest.skipUnless(OPENSSL, "SKIP: no 'openssl' to make a test certificate")
    def test_https_off_loopback_does_not(self):
        cert, key = make_cert(self.tmp, "lab")
        err = self.start("--tls-cert", cert, "--tls-key", key)
        self.assertNotIn("plain HTTP", err)


if __name__ == "__main__":
    main()
