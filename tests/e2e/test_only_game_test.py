#!/usr/bin/python3
"""A game is one folder + one proto: the test-only game Race (engine/games/race and
protos-test/parlor/games/v1/race.proto, nothing else names it) goes through the whole system.
Test builds of sessions, matchmaking and ratings register it (parlor-<service>-test-games); the
Python client and the `parlor` CLI find it in the protos. Two players queue ranked (one with the
CLI, one with the Python client), play to the end through sessions (the CLI by listed move
numbers: the client has no notation for Race), and the result is rated on the ladder derived
from Race's metadata (Weng-Lin "race", 2-3 seats).

usage: test_only_game_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
LOGS = tempfile.mkdtemp(prefix="test-only-game-")
# Stubs of protos/ and protos-test/ in a folder of this test's own: other tests never see Race.
os.environ["PARLOR_PY_STUBS_DIR"] = os.path.join(LOGS, "stubs")
os.environ["PARLOR_EXTRA_PROTO_DIRS"] = os.path.join(SOURCE_DIR, "protos-test")
for service in ("sessions", "matchmaking", "ratings"):
    os.environ["PARLOR_BIN_" + service.upper()] = os.path.join(
        BUILD_DIR, "tests", "e2e", "parlor-%s-test-games" % service)
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
import parlor_client as pc  # noqa: E402
import parlor_stack  # noqa: E402
from parlor_client import mpb, rpb, spb  # noqa: E402

CLI = os.path.join(SOURCE_DIR, "clients", "cli", "parlor")


class TestOnlyGameTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.stack = parlor_stack.Stack(BUILD_DIR, parlor_stack.create_database(server, "race"),
                                       LOGS)
        cls.stack.__enter__()
        s = cls.stack
        cls.c = pc.Channels(s.address("accounts"), s.address("sessions"),
                            s.address("matchmaking"), s.address("ratings"))
        cls.env = dict(os.environ, PARLOR_ACCOUNTS=s.address("accounts"),
                       PARLOR_SESSIONS=s.address("sessions"),
                       PARLOR_MATCHMAKING=s.address("matchmaking"),
                       PARLOR_RATINGS=s.address("ratings"),
                       PARLOR_STATE=os.path.join(LOGS, "cli-state.json"))

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(LOGS, ignore_errors=True)

    def cli(self, *args):
        out = subprocess.run([sys.executable, CLI] + list(args), env=self.env, text=True,
                             capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 0, "parlor %s: %s" % (" ".join(args), out.stderr))
        return out.stdout

    def test_race_is_queued_played_and_rated_on_its_derived_ladder(self):
        self.assertIn("race", pc.GAMES)
        self.assertIn("race", self.cli("help", "games"))
        self.assertIn("add (int32), boost (bool)", self.cli("help", "moves", "race"))
        self.assertIn("signed in as Ria", self.cli("login", "cli-" + uuid.uuid4().hex, "Ria"))
        ladders = self.cli("ladders")
        self.assertRegex(ladders, r"race\s+game race\s+2-3 seats")

        # Two players queue ranked: the Python client first, then the CLI, which waits for the
        # match.
        rival = pc.Player(self.c, "py-" + uuid.uuid4().hex, "Pip", rng=random.Random(3))
        rival.start_watch()
        request = mpb.EnqueueRequest(game="race", ranked=True, player_counts=[2])
        request.options["target"] = "10"
        self.c.matchmaking.Enqueue(request, metadata=rival.md, timeout=5)
        queued = self.cli("queue", "race", "--ranked", "--option", "target=10", "--wait", "30")
        game_id = re.search(r"matched: game (\S+)", queued).group(1)

        # Sessions: both play to the end; the CLI moves by listed number (#0: the Action
        # "add: 1", as the client shows a move of a game it has no notation for).
        result, errors = {}, []

        def rival_plays():
            try:
                result["game"] = rival.play(game_id, deadline=time.time() + 60)
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
        thread = threading.Thread(target=rival_plays)
        thread.start()
        shown, deadline = "", time.time() + 60
        while time.time() < deadline:
            shown = self.cli("show", game_id[:8])
            if "finished:" in shown:
                break
            if "your turn" in shown:
                self.assertIn("you: add: 1", self.cli("move", game_id[:8], "#0"))
            else:
                time.sleep(0.2)
        thread.join()
        rival.stop_watch()
        self.assertEqual(errors, [])
        self.assertRegex(shown, r"finished: \S+ reached 10")
        self.assertEqual(result["game"].status, spb.GAME_STATUS_FINISHED)
        self.assertTrue(result["game"].ranked)
        self.assertIn(game_id, self.cli("games", "finished"))

        # Ratings: both players rated once on the derived ladder.
        deadline = time.time() + 30
        mine = {}
        while time.time() < deadline:
            mine = {r.ladder: r for r in self.c.ratings.GetMyRatings(
                rpb.GetMyRatingsRequest(), metadata=rival.md, timeout=5).ratings}
            if "race" in mine:
                break
            time.sleep(0.3)
        self.assertIn("race", mine, "the rival was not rated on the race ladder")
        self.assertEqual(mine["race"].games, 1)
        self.assertRegex(self.cli("ratings"), r"race\s.*games 1")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
