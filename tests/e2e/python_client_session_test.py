#!/usr/bin/python3
"""The Python client (clients/python) stays signed in: against a real parlor-accounts whose
access tokens live one minute, a Player keeps its refresh token in a session file readable by its
owner only (0600), renews the access token by itself before it expires and when a call is refused
UNAUTHENTICATED, and Player.resume() signs in again from the file alone.

usage: python_client_session_test.py BUILD_DIR SOURCE_DIR   (run by ctest; needs the `pg` fixture)
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "lib"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(BUILD_DIR, "gen", "python-clients"))
import parlor_grpc  # noqa: E402
import parlor_client as pc  # noqa: E402
import grpc  # noqa: E402

ACCOUNTS = os.path.join(BUILD_DIR, "services", "accounts", "parlor-accounts")
TOKEN_TOOL = os.path.join(BUILD_DIR, "services", "common", "core", "parlor-token")


def keygen():
    pairs = dict(line.split("=", 1) for line in
                 subprocess.check_output([TOKEN_TOOL, "keygen"], text=True).split())
    return pairs["PRIVATE_KEY"], pairs["PUBLIC_KEY"]


def create_database():
    with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
        server = f.read().strip()
    name = "pysession_" + uuid.uuid4().hex[:12]
    subprocess.check_call(["psql", "-q", server + " dbname=postgres", "-c",
                           "CREATE DATABASE %s" % name])
    return server + " dbname=" + name


class PythonClientSessionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="parlor-pysession-")
        cls.addClassCleanup(shutil.rmtree, cls.work, ignore_errors=True)
        port = parlor_grpc.free_port()
        access_private, _ = keygen()
        _, service_public = keygen()
        env = dict(os.environ)
        env.update({
            "PARLOR_DB_URL": create_database(),
            "PARLOR_GRPC_PORT": str(port),
            "PARLOR_METRICS_PORT": "0",
            "PARLOR_LISTEN_HOST": "127.0.0.1",
            "PARLOR_ACCESS_TOKEN_PRIVATE_KEY": access_private,
            "PARLOR_SERVICE_TOKEN_PUBLIC_KEY": service_public,
            "PARLOR_MIGRATIONS_DIR": os.path.join(SOURCE_DIR, "migrations"),
            "PARLOR_DRAIN_TIMEOUT": "1s",
            "PARLOR_ACCESS_TOKEN_TTL": "1m",
        })
        cls.log = open(os.path.join(cls.work, "accounts.log"), "w")
        cls.addClassCleanup(cls.log.close)
        cls.server = subprocess.Popen([ACCOUNTS], env=env, stdout=cls.log, stderr=cls.log,
                                      stdin=subprocess.DEVNULL)
        cls.addClassCleanup(cls.stop_server)
        address = "127.0.0.1:%d" % port
        parlor_grpc.wait_serving(address, timeout=30, process=cls.server)
        # Sessions is not needed here: its channel connects lazily and is never used.
        cls.channels = pc.Channels(address, "127.0.0.1:1")
        cls.addClassCleanup(cls.channels.close)

    @classmethod
    def stop_server(cls):
        if cls.server.poll() is None:
            cls.server.terminate()
            cls.server.wait(timeout=30)

    def get_me(self, player):
        return player._call(self.channels.accounts.GetMe, pc.apb.GetMeRequest()).account

    def test_the_player_renews_its_token_and_resumes_from_its_session_file(self):
        session_file = os.path.join(self.work, "sessions", "ada.json")
        ada = pc.Player(self.channels, "py-session-device-1", "Ada", session_file=session_file)
        # The file holds the refresh token and only its owner can read it.
        self.assertEqual(stat.S_IMODE(os.stat(session_file).st_mode), 0o600)
        with open(session_file) as f:
            self.assertIn(ada.refresh_token, f.read())

        # Tokens live a minute here, so the next call renews first (less than a minute left),
        # rotating the refresh token; the file follows.
        first_token, first_refresh = ada.token, ada.refresh_token
        self.assertEqual(self.get_me(ada).account_id, ada.account_id)
        self.assertNotEqual(ada.token, first_token)
        self.assertNotEqual(ada.refresh_token, first_refresh)
        with open(session_file) as f:
            self.assertIn(ada.refresh_token, f.read())

        # A call refused UNAUTHENTICATED (here: a token the server never issued) renews and retries.
        ada.token, ada.access_expire = "not-a-token", 0
        self.assertEqual(self.get_me(ada).display_name, "Ada")

        # Another process, later: the session file alone signs in again, to the same account.
        again = pc.Player.resume(self.channels, session_file)
        self.assertEqual(again.account_id, ada.account_id)
        self.assertEqual(self.get_me(again).display_name, "Ada")

        # The refresh token the first player held is now used up: presenting it again is taken
        # as theft and ends the session, so a copied session file is worth nothing once used.
        with self.assertRaises(grpc.RpcError) as refused:
            ada.refresh()
        self.assertEqual(refused.exception.code(), grpc.StatusCode.UNAUTHENTICATED)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
