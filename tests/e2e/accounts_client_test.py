#!/usr/bin/python3
"""Client proof: a Python client, using stubs generated from the public protos (as a mobile team
does with Swift/Kotlin), talks to a real parlor-accounts process over the wire, backed by the real
PostgreSQL of this test run. Also checks JSON logs, a real /metrics scrape with promtool, and a
clean exit 0 on SIGTERM.

usage: accounts_client_test.py BUILD_DIR SOURCE_DIR   (run by ctest; needs the `pg` fixture)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "lib"))
import parlor_grpc  # noqa: E402

parlor_grpc.add_stub_path(BUILD_DIR)
import grpc  # noqa: E402
from parlor.accounts.v1 import accounts_pb2 as pb  # noqa: E402
from parlor.accounts.v1 import accounts_pb2_grpc as rpc  # noqa: E402

ACCOUNTS = os.path.join(BUILD_DIR, "services", "accounts", "parlor-accounts")
TOKEN_TOOL = os.path.join(BUILD_DIR, "services", "common", "core", "parlor-token")


def keygen():
    pairs = dict(line.split("=", 1) for line in
                 subprocess.check_output([TOKEN_TOOL, "keygen"], text=True).split())
    return pairs["PRIVATE_KEY"], pairs["PUBLIC_KEY"]


def create_database():
    pg_dir = os.environ["PARLOR_TEST_PG_DIR"]
    with open(os.path.join(pg_dir, "conninfo")) as f:
        server = f.read().strip()
    name = "py_" + uuid.uuid4().hex[:12]
    subprocess.check_call(["psql", "-q", server + " dbname=postgres", "-c",
                           "CREATE DATABASE %s" % name])
    return server + " dbname=" + name


class AccountsClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.grpc_port = parlor_grpc.free_port()
        cls.metrics_port = parlor_grpc.free_port()
        access_private, _ = keygen()
        cls.service_private, service_public = keygen()
        cls.log = tempfile.NamedTemporaryFile(prefix="accounts-", suffix=".log", delete=False)
        # The server's log goes with the test, also when setUpClass fails half-way (class
        # clean-ups run then too; tearDownClass does not).
        cls.addClassCleanup(os.unlink, cls.log.name)
        cls.addClassCleanup(cls.log.close)
        env = dict(os.environ)
        env.update({
            "PARLOR_DB_URL": create_database(),
            "PARLOR_GRPC_PORT": str(cls.grpc_port),
            "PARLOR_METRICS_PORT": str(cls.metrics_port),
            "PARLOR_LISTEN_HOST": "127.0.0.1",
            "PARLOR_LOG_FORMAT": "json",
            "PARLOR_ACCESS_TOKEN_PRIVATE_KEY": access_private,
            "PARLOR_SERVICE_TOKEN_PUBLIC_KEY": service_public,
            "PARLOR_MIGRATIONS_DIR": os.path.join(SOURCE_DIR, "migrations"),
            "PARLOR_DRAIN_TIMEOUT": "2s",
        })
        cls.server = subprocess.Popen([ACCOUNTS], env=env, stdout=cls.log, stderr=cls.log,
                                      stdin=subprocess.DEVNULL)
        cls.addClassCleanup(cls.stop_server)
        cls.address = "127.0.0.1:%d" % cls.grpc_port
        parlor_grpc.wait_serving(cls.address, timeout=30, process=cls.server)
        cls.channel = grpc.insecure_channel(cls.address)
        cls.accounts = rpc.AccountsServiceStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.stop_server()

    @classmethod
    def stop_server(cls):
        if cls.server.poll() is None:
            cls.server.kill()
            cls.server.wait()

    def sign_in(self, device_id, name=None):
        request = pb.AuthenticateDeviceRequest(device_id=device_id)
        if name is not None:
            request.display_name = name
        return self.accounts.AuthenticateDevice(request, timeout=5)

    def test_1_authenticate_refresh_and_read_profile(self):
        first = self.sign_in("py-device-" + uuid.uuid4().hex, "Py " + uuid.uuid4().hex[:6])
        self.assertTrue(first.created)
        me = self.accounts.GetMe(pb.GetMeRequest(),
                                 metadata=parlor_grpc.bearer(first.tokens.access_token), timeout=5)
        self.assertEqual(me.account.account_id, first.account.account_id)

        refreshed = self.accounts.RefreshSession(
            pb.RefreshSessionRequest(refresh_token=first.tokens.refresh_token), timeout=5)
        self.assertNotEqual(refreshed.tokens.refresh_token, first.tokens.refresh_token)
        me = self.accounts.GetMe(pb.GetMeRequest(),
                                 metadata=parlor_grpc.bearer(refreshed.tokens.access_token),
                                 timeout=5)
        self.assertEqual(me.account.display_name, first.account.display_name)

        # Reusing the rotated refresh token revokes the session.
        with self.assertRaises(grpc.RpcError) as reuse:
            self.accounts.RefreshSession(
                pb.RefreshSessionRequest(refresh_token=first.tokens.refresh_token), timeout=5)
        self.assertEqual(reuse.exception.code(), grpc.StatusCode.UNAUTHENTICATED)
        self.assertIn("already used", reuse.exception.details())
        with self.assertRaises(grpc.RpcError) as revoked:
            self.accounts.GetMe(pb.GetMeRequest(),
                                metadata=parlor_grpc.bearer(refreshed.tokens.access_token),
                                timeout=5)
        self.assertEqual(revoked.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def test_2_bad_input_and_internal_rpc(self):
        with self.assertRaises(grpc.RpcError) as bad:
            self.sign_in("")
        self.assertEqual(bad.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        player = self.sign_in("py-device-" + uuid.uuid4().hex)
        internal = rpc.AccountsInternalServiceStub(self.channel)
        request = pb.BatchGetAccountsRequest(account_ids=[player.account.account_id])
        with self.assertRaises(grpc.RpcError) as denied:
            internal.BatchGetAccounts(request, timeout=5,
                                      metadata=parlor_grpc.bearer(player.tokens.access_token))
        self.assertEqual(denied.exception.code(), grpc.StatusCode.PERMISSION_DENIED)
        service_token = subprocess.check_output(
            [TOKEN_TOOL, "service", "--private_key=" + self.service_private, "--subject=e2e"],
            text=True).strip()
        found = internal.BatchGetAccounts(request, timeout=5,
                                          metadata=parlor_grpc.bearer(service_token))
        self.assertEqual([a.account_id for a in found.accounts], [player.account.account_id])

    def test_3_metrics_scrape_passes_promtool(self):
        body = urllib.request.urlopen(
            "http://127.0.0.1:%d/metrics" % self.metrics_port, timeout=5).read()
        text = body.decode()
        self.assertIn('parlor_rpc_requests_total{code="OK",method="AuthenticateDevice"', text)
        self.assertIn("parlor_rpc_duration_seconds_bucket", text)
        self.assertIn('parlor_db_connections{state="idle"}', text)
        self.assertIn("parlor_build_info", text)
        check = subprocess.run(["promtool", "check", "metrics"], input=body,
                               capture_output=True)
        self.assertEqual(check.returncode, 0, check.stdout.decode() + check.stderr.decode())

    def test_4_sigterm_exits_zero_and_logs_are_json(self):
        self.server.send_signal(signal.SIGTERM)
        self.assertEqual(self.server.wait(timeout=30), 0)
        with open(self.log.name) as f:
            lines = [line for line in f if line.strip()]
        self.assertTrue(lines)
        records = [json.loads(line) for line in lines]  # every line is one JSON object
        self.assertTrue(any("request_id" in r for r in records))
        self.assertTrue(any("NOT_SERVING" in r["msg"] or "draining" in r["msg"] for r in records))
        self.assertTrue(all(r["service"] == "accounts" for r in records))


if __name__ == "__main__":
    # SIGTERM, SIGHUP and Ctrl-C end the run after the current test (unittest's break
    # handler), so the server is stopped and its log removed instead of left behind.
    unittest.installHandler()
    signal.signal(signal.SIGTERM, signal.getsignal(signal.SIGINT))
    signal.signal(signal.SIGHUP, signal.getsignal(signal.SIGINT))
    program = unittest.main(argv=[sys.argv[0]], verbosity=2, catchbreak=True, exit=False)
    sys.exit(0 if program.result.wasSuccessful() and not program.result.shouldStop else 1)
