#!/usr/bin/python3
"""Deleting an account is complete across every service. Against the five real services on the
per-run PostgreSQL, a player finishes a ranked Pico game, is in the middle of a casual one,
waits in a queue, has challenged someone, registered a phone for pushes and sent a friend
request; exports all of it (profile, games, ratings) and then deletes the account. Each service learns it from the accounts service's deletion
outbox and erases what it owns, and then every table of every schema is searched:

- the player's former display name, device id and push token appear nowhere;
- the account id appears only where the design keeps it: the accounts row itself (renamed, as
  the tombstone finished games point at), the deletion outbox, the revoked sessions, each
  service's record of having forgotten it, and the seats, moves and matches of games already
  played (which the other players keep, under the new name);
- the game in progress was resigned by the forfeit rules, the finished game shows the seat under
  the new name, the other player's notifications name the new name, and no ladder lists the
  deleted player.

usage: account_deletion_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import json
import os
import random
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
import grpc  # noqa: E402
import parlor_client as pc  # noqa: E402
import parlor_stack  # noqa: E402
from parlor_client import apb, mpb, rpb, spb  # noqa: E402
from parlor.notifications.v1 import notifications_pb2 as npb  # noqa: E402
from parlor.notifications.v1 import notifications_pb2_grpc as ngrpc  # noqa: E402

SCHEMAS = ("accounts", "sessions", "matchmaking", "ratings", "notifications")
# Where the deleted account's id may stay, and why.
KEPT = {
    "accounts.accounts": "the renamed row finished games point at",
    "accounts.account_deletions": "the deletion outbox the services read",
    "accounts.sessions": "revoked sessions, so that other services end their streams",
    "accounts.devices": "removed devices, their device ids replaced by a digest",
    "sessions.forgotten_accounts": "how far sessions read the outbox",
    "matchmaking.forgotten_accounts": "how far matchmaking read the outbox",
    "ratings.forgotten_accounts": "how far ratings read the outbox",
    "notifications.forgotten_accounts": "how far notifications read the outbox",
    "sessions.seats": "seats of games played (renamed)",
    "sessions.actions": "the moves of games played",
    "sessions.result_outbox": "results of games played, as reported to ratings",
    "matchmaking.matches": "the tables those games were made from (until 30 days after the game)",
}


class AccountDeletionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.logs = tempfile.mkdtemp(prefix="account-deletion-")
        cls.db_url = parlor_stack.create_database(server, "deletion")
        cls.stack = parlor_stack.Stack(BUILD_DIR, cls.db_url, cls.logs,
                                       services=parlor_stack.ALL_SERVICES)
        cls.stack.__enter__()
        s = cls.stack
        cls.c = pc.Channels(s.address("accounts"), s.address("sessions"),
                            s.address("matchmaking"), s.address("ratings"))
        cls.notifications_channel = grpc.insecure_channel(s.address("notifications"))
        cls.notifications = ngrpc.NotificationsServiceStub(cls.notifications_channel)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()
        cls.notifications_channel.close()
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.logs, ignore_errors=True)

    def sql(self, query):
        return subprocess.check_output(["psql", "-XAtq", self.db_url, "-c", query], text=True)

    def player(self, name):
        device = "del-%s" % uuid.uuid4().hex
        p = pc.Player(self.c, device, "%s-%s" % (name, uuid.uuid4().hex[:6]),
                      rng=random.Random(name))
        p.device_id = device
        return p

    def match(self, players, game, ranked):
        tickets = []
        for p in players:
            request = mpb.EnqueueRequest(game=game, ranked=ranked, player_counts=[len(players)])
            tickets.append(self.c.matchmaking.Enqueue(request, metadata=p.md,
                                                      timeout=5).ticket.ticket_id)
        deadline = time.time() + 30
        while time.time() < deadline:
            got = [self.c.matchmaking.GetTicket(mpb.GetTicketRequest(ticket_id=t), metadata=p.md,
                                                timeout=5).ticket
                   for t, p in zip(tickets, players)]
            if all(t.state == mpb.TICKET_STATE_MATCHED and t.game_id for t in got):
                return got[0].game_id
            time.sleep(0.2)
        self.fail("%s tickets not matched in 30 s" % game)

    def play_out(self, players, game_id):
        errors = []

        def run(p):
            try:
                p.play(game_id, deadline=time.time() + 120)
            except Exception as error:  # noqa: BLE001
                errors.append(repr(error))
        for p in players:
            p.start_watch()
        threads = [threading.Thread(target=run, args=(p,)) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for p in players:
            p.stop_watch()
        self.assertEqual(errors, [])

    def wait(self, what, check, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if check():
                return
            time.sleep(0.2)
        self.fail("not within %d s: %s" % (seconds, what))

    def rows_mentioning(self, text):
        """{schema.table: rows whose JSON text contains `text`} over every table of the five
        schemas (leaderboard snapshot tables included)."""
        tables = self.sql(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_type = 'BASE TABLE' AND table_schema IN (%s) ORDER BY 1"
            % ",".join("'%s'" % s for s in SCHEMAS)).split()
        self.assertGreater(len(tables), 30)
        found = {}
        for table in tables:
            count = int(self.sql(
                "SELECT count(*) FROM %s t WHERE strpos(row_to_json(t)::text, '%s') > 0"
                % (table, text.replace("'", "''"))))
            if count:
                found[table] = count
        return found

    def test_deletion_reaches_every_service(self):
        doomed, friend, rival = self.player("Doomed"), self.player("Friend"), self.player("Rival")
        former_name = doomed.name

        # A finished ranked game (ratings, the other player's notifications naming the player).
        finished = self.match([doomed, friend], "pico", True)
        self.play_out([doomed, friend], finished)
        self.wait("the ranked result rated", lambda: any(
            r.ladder for r in self.c.ratings.GetMyRatings(
                rpb.GetMyRatingsRequest(), metadata=doomed.md, timeout=5).ratings))
        # A game in progress, a waiting ticket, a challenge, a phone, a friend request.
        active = self.match([doomed, rival], "pict", False)
        self.c.matchmaking.Enqueue(mpb.EnqueueRequest(game="picadice", ranked=False,
                                                      player_counts=[4]),
                                   metadata=doomed.md, timeout=5)
        self.c.matchmaking.Challenge(mpb.ChallengeRequest(
            game="pescado", invitee_account_ids=[rival.account_id]), metadata=doomed.md,
            timeout=5)
        push_token = "fcm-deletion-test-" + uuid.uuid4().hex
        self.notifications.RegisterDevice(npb.RegisterDeviceRequest(
            platform=npb.PLATFORM_FCM, token=push_token, app_id="com.parlor.test"),
            metadata=doomed.md, timeout=5)
        self.c.accounts.SendFriendRequest(apb.SendFriendRequestRequest(
            account_id=friend.account_id), metadata=doomed.md, timeout=5)
        # The rival becomes a friend: the friend list shows the game in progress with them and
        # whose turn it is.
        self.c.accounts.SendFriendRequest(apb.SendFriendRequestRequest(
            display_name=rival.name), metadata=doomed.md, timeout=5)
        self.c.accounts.AcceptFriendRequest(apb.AcceptFriendRequestRequest(
            account_id=doomed.account_id), metadata=rival.md, timeout=5)
        friends = self.c.accounts.ListFriends(apb.ListFriendsRequest(), metadata=doomed.md,
                                              timeout=10)
        self.assertFalse(friends.games_unavailable)
        self.assertEqual([(g.friend_account_id, g.game_id, g.game) for g in
                          friends.games_with_friends], [(rival.account_id, active, "pict")])
        state = self.c.sessions.GetGame(spb.GetGameRequest(game_id=active), metadata=doomed.md,
                                        timeout=5).game
        self.assertEqual(friends.games_with_friends[0].my_turn, state.my_turn)
        rival_seat = [x.seat for x in state.seats if x.account_id == rival.account_id][0]
        self.assertEqual(friends.games_with_friends[0].friend_turn,
                         rival_seat in state.acting_seats)
        # Before leaving, the player exports everything: profile, games and ratings.
        export = self.c.accounts.ExportMyData(apb.ExportMyDataRequest(), metadata=doomed.md,
                                              timeout=30)
        self.assertEqual(list(export.omitted_parts), [])
        data = json.loads(export.json)
        self.assertEqual(data["account"]["displayName"], former_name)
        self.assertEqual({g["gameId"] for g in data["games"]}, {finished, active})
        self.assertEqual([r["ladder"] for r in data["ratings"]], ["pico"])
        self.assertEqual([h["gameId"] for h in data["ratingHistory"]], [finished])
        self.assertEqual(len(data["outgoingFriendRequests"]), 1)
        self.assertEqual([f["accountId"] for f in data["friends"]], [rival.account_id])
        self.assertTrue(self.rows_mentioning(push_token))
        self.assertTrue(self.rows_mentioning(former_name))

        self.c.accounts.DeleteAccount(apb.DeleteAccountRequest(confirm_display_name=former_name),
                                      metadata=doomed.md, timeout=5)
        for schema in ("sessions", "matchmaking", "ratings", "notifications"):
            self.wait("%s forgets the account" % schema, lambda schema=schema: self.sql(
                "SELECT count(*) FROM %s.forgotten_accounts WHERE account_id::text = '%s'"
                % (schema, doomed.account_id)).strip() == "1")

        # The game in progress was resigned: in a two-player game the other player wins.
        game = self.c.sessions.GetGame(spb.GetGameRequest(game_id=active),
                                       metadata=rival.md, timeout=5).game
        self.assertEqual(game.status, spb.GAME_STATUS_FINISHED)
        seat = [s for s in game.seats if s.display_name != rival.name][0]
        self.assertTrue(seat.display_name.startswith("Deleted-"), seat.display_name)
        self.assertTrue(seat.forfeited)
        # The finished game keeps the seat under the new name.
        old = self.c.sessions.GetGame(spb.GetGameRequest(game_id=finished),
                                      metadata=friend.md, timeout=5).game
        self.assertIn(seat.display_name, [s.display_name for s in old.seats])
        # No ladder lists the deleted player.
        for ladder in self.c.ratings.GetMyRatings(rpb.GetMyRatingsRequest(), metadata=friend.md,
                                                  timeout=5).ratings:
            board = self.c.ratings.GetLeaderboard(rpb.GetLeaderboardRequest(
                ladder=ladder.ladder, page_size=100), metadata=friend.md, timeout=5)
            self.assertNotIn(doomed.account_id, [e.rating.account_id for e in board.entries])

        # The former name stays only in the deletion outbox, for the services, until it is erased
        # 30 days on (CredentialsPgTest covers the erasure).
        self.assertEqual(self.rows_mentioning(former_name), {"accounts.account_deletions": 1})
        self.assertEqual(self.rows_mentioning(push_token), {})
        self.assertEqual(self.rows_mentioning(doomed.device_id), {})
        kept = self.rows_mentioning(doomed.account_id)
        self.assertEqual({t: n for t, n in kept.items() if t not in KEPT}, {},
                         "tables that still hold the deleted account's id")
        self.assertIn("accounts.accounts", kept)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
