#!/usr/bin/python3
"""Client proof: the independent Python client (clients/python, stubs generated from
the public protos only) plays a full game of each of the five games against the real services
(accounts, sessions, matchmaking, ratings) on the per-run PostgreSQL: players queue through
matchmaking, learn their turn from WatchMyGames, move with legal actions from GetGame; ranked
results reach the ladders exactly once. A second part drives the `parlor` command-line client
through a whole Pico game against the computer.

usage: five_games_client_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
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
os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(BUILD_DIR, "gen", "python-clients"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
import parlor_client as pc  # noqa: E402
import parlor_stack  # noqa: E402
from parlor_client import mpb, rpb, spb  # noqa: E402

OPTIONS = {"kadice": {"max_rounds": "30"}, "picadice": {"turn_limit_per_seat": "25"}}
CLI = os.path.join(SOURCE_DIR, "clients", "cli", "parlor")


class FiveGamesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.logs = tempfile.mkdtemp(prefix="five-games-")
        db_url = parlor_stack.create_database(server, "five")
        # PARLOR_TEST_PGBOUNCER=1 (ctest five_games_python_client_pgbouncer): the services reach
        # PostgreSQL through PgBouncer in transaction mode, as behind CloudNativePG's Pooler.
        cls.bouncer, extra = None, {}
        if os.environ.get("PARLOR_TEST_PGBOUNCER") == "1":
            sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "lib"))
            import pgbouncer
            with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "pg_root")) as f:
                cls.bouncer = pgbouncer.PgBouncer(server, f.read().strip())
            extra = {name: cls.bouncer.service_env(db_url) for name in parlor_stack.SERVICES}
            print("services reach PostgreSQL through %s (transaction pooling)"
                  % cls.bouncer.version, flush=True)
        cls.stack = parlor_stack.Stack(BUILD_DIR, db_url, cls.logs, extra)
        cls.stack.__enter__()
        s = cls.stack
        cls.c = pc.Channels(s.address("accounts"), s.address("sessions"),
                            s.address("matchmaking"), s.address("ratings"))

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.logs, ignore_errors=True)
        if cls.bouncer is not None:
            cls.bouncer.stop()

    def players(self, n):
        out = []
        for i in range(n):
            p = pc.Player(self.c, "py-%s" % uuid.uuid4().hex, "P%d-%s" % (i, uuid.uuid4().hex[:4]),
                          rng=random.Random(i))
            p.start_watch()
            out.append(p)
        return out

    def match(self, players, game, ranked, count):
        tickets = []
        for p in players:
            request = mpb.EnqueueRequest(game=game, ranked=ranked, player_counts=[count])
            request.options.update(OPTIONS.get(game, {}))
            tickets.append(self.c.matchmaking.Enqueue(request, metadata=p.md,
                                                      timeout=5).ticket.ticket_id)
        deadline = time.time() + 30
        while time.time() < deadline:
            got = [self.c.matchmaking.GetTicket(mpb.GetTicketRequest(ticket_id=t), metadata=p.md,
                                                timeout=5).ticket
                   for t, p in zip(tickets, players)]
            if all(t.state == mpb.TICKET_STATE_MATCHED and t.game_id for t in got):
                ids = {t.game_id for t in got}
                self.assertEqual(len(ids), 1, "one game for the whole table")
                return ids.pop()
            time.sleep(0.2)
        self.fail("%s tickets not matched in 30 s" % game)

    def play(self, players, game_id):
        results, errors = {}, []

        def run(p):
            try:
                results[p.account_id] = p.play(game_id, deadline=time.time() + 240)
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
        threads = [threading.Thread(target=run, args=(p,)) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        games = list(results.values())
        for g in games:
            self.assertEqual(g.status, spb.GAME_STATUS_FINISHED)
            self.assertEqual(g.version, games[0].version)
        g = games[0]
        self.assertEqual(len(g.outcome.ranks), len(players))
        self.assertEqual(len(g.seed), 64)
        history = players[0].history(game_id)
        self.assertEqual([e.version for e in history], list(range(g.version + 1)))
        for p in players:
            p.stop_watch()
        return g

    def wait_rated(self, player, ladder, games):
        deadline = time.time() + 30
        while time.time() < deadline:
            mine = {r.ladder: r for r in self.c.ratings.GetMyRatings(
                rpb.GetMyRatingsRequest(), metadata=player.md, timeout=5).ratings}
            if ladder in mine and mine[ladder].games >= games:
                self.assertEqual(mine[ladder].games, games, "rated exactly once")
                return mine[ladder]
            time.sleep(0.3)
        self.fail("no %s rating for %s" % (ladder, player.account_id))

    def test_pico_ranked(self):
        ps = self.players(2)
        g = self.play(ps, self.match(ps, "pico", True, 2))
        self.assertTrue(g.ranked)
        time.sleep(2.5)  # a second report would land within the outbox's dispatch interval
        for p in ps:
            self.wait_rated(p, "pico", 1)

    def test_pict_casual(self):
        ps = self.players(2)
        g = self.play(ps, self.match(ps, "pict", False, 2))
        self.assertFalse(g.ranked)

    def test_picadice_four(self):
        ps = self.players(4)
        g = self.play(ps, self.match(ps, "picadice", True, 4))
        for p in ps:
            self.wait_rated(p, "picadice-multi", 1)
        self.assertEqual(len(g.seats), 4)

    def test_pescado_challenge(self):
        a, b = self.players(2)
        ch = self.c.matchmaking.Challenge(mpb.ChallengeRequest(
            game="pescado", ranked=False, invitee_account_ids=[b.account_id]), metadata=a.md,
            timeout=5).challenge
        accepted = self.c.matchmaking.AcceptChallenge(
            mpb.AcceptChallengeRequest(challenge_id=ch.challenge_id), metadata=b.md,
            timeout=5).challenge
        self.assertEqual(accepted.state, mpb.CHALLENGE_STATE_ACCEPTED)
        game_id, deadline = accepted.game_id, time.time() + 30
        while not game_id and time.time() < deadline:  # the game is created asynchronously
            time.sleep(0.2)
            game_id = next((c.game_id for c in self.c.matchmaking.ListMyChallenges(
                mpb.ListMyChallengesRequest(), metadata=a.md, timeout=5).challenges
                if c.challenge_id == ch.challenge_id), "")
        self.assertTrue(game_id)
        self.play([a, b], game_id)

    def test_kadice_three(self):
        ps = self.players(3)
        self.play(ps, self.match(ps, "kadice", True, 3))
        for p in ps:
            self.wait_rated(p, "kadice", 1)

    def test_illegal_move_is_refused(self):
        (p,) = self.players(1)
        game = self.c.sessions.CreateBotGame(spb.CreateBotGameRequest(
            request_id=uuid.uuid4().hex, game="pico", num_players=2, my_seat=0),
            metadata=p.md, timeout=5).game
        got = p.get_game(game.game_id)
        hand = {pc.unpack(a).card for a in got.legal_actions}
        bad = next(c for c in range(2, 17) if c not in hand and c not in (14, 15))
        with self.assertRaises(pc.grpc.RpcError) as refused:
            p.submit(game.game_id, got.game.version, pc.parse_action("pico", "play %d" % bad))
        self.assertIn(refused.exception.code(), (pc.grpc.StatusCode.FAILED_PRECONDITION,
                                                 pc.grpc.StatusCode.INVALID_ARGUMENT))
        p.stop_watch()

    def test_cli_plays_pico_against_the_computer(self):
        env = dict(os.environ, PARLOR_ACCOUNTS=self.stack.address("accounts"),
                   PARLOR_SESSIONS=self.stack.address("sessions"),
                   PARLOR_STATE=os.path.join(self.logs, "cli-state.json"))

        def cli(*args):
            out = subprocess.run([sys.executable, CLI] + list(args), env=env, text=True,
                                 capture_output=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            return out.stdout
        self.assertIn("signed in as Tess", cli("login", "cli-" + uuid.uuid4().hex, "Tess"))
        game_id = cli("new", "pico").split()[0]
        for _ in range(40):
            shown = cli("show", game_id[:8])
            if "finished:" in shown:
                break
            card = re.search(r"#0\s+play (\d+)", shown).group(1)
            self.assertIn("you: play %s" % card, cli("move", game_id[:8], "play " + card))
        self.assertIn("finished: both rounds played", shown)
        self.assertIn("seed ", shown)
        self.assertIn(game_id, cli("games", "finished"))
        self.assertIn("play ", cli("history", game_id))
        watched = cli("watch", game_id)
        self.assertIn("Game over", watched)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
