#!/usr/bin/python3
"""Plays Parlor like a crowd of phones, for the live monitoring check (scripts/ops/check-live.sh):
players sign in (accounts), play bot games move by move (sessions), queue for ranked pico in
pairs and play the matched games (matchmaking -> sessions -> ratings), leave a few tickets
waiting in a queue nobody else joins, and read leaderboards (ratings). Runs for SECONDS, then
prints what it did.

usage: play_traffic.py GEN_PYTHON_DIR ACCOUNTS SESSIONS MATCHMAKING RATINGS SECONDS"""
import random
import sys
import threading
import time
import uuid

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
from parlor.accounts.v1 import accounts_pb2 as apb, accounts_pb2_grpc as agrpc  # noqa: E402
from parlor.sessions.v1 import sessions_pb2 as spb, sessions_pb2_grpc as sgrpc  # noqa: E402
from parlor.matchmaking.v1 import matchmaking_pb2 as mpb, matchmaking_pb2_grpc as mgrpc  # noqa: E402
from parlor.ratings.v1 import ratings_pb2 as rpb, ratings_pb2_grpc as rgrpc  # noqa: E402

ACCOUNTS, SESSIONS, MATCHMAKING, RATINGS = sys.argv[2:6]
SECONDS = float(sys.argv[6])
STATS = {"moves": 0, "bot_games": 0, "games_finished": 0, "tickets": 0, "matched": 0,
         "errors": 0, "reads": 0, "matched_game_missing": 0}
LOCK = threading.Lock()


def count(key, n=1):
    with LOCK:
        STATS[key] += n


def auth(token):
    return (("authorization", "Bearer " + token),)


def sign_in(accounts, name):
    answer = accounts.AuthenticateDevice(
        apb.AuthenticateDeviceRequest(device_id="ops-%s-%s" % (name, uuid.uuid4().hex[:8]),
                                      display_name=name), timeout=5)
    return answer.account.account_id, answer.tokens.access_token


def play_turns(sessions, token, game_id, deadline):
    """Moves whenever it is this player's turn; returns when the game ends or time is up."""
    appear_by = time.time() + 15
    while time.time() < deadline:
        try:
            got = sessions.GetGame(spb.GetGameRequest(game_id=game_id), metadata=auth(token),
                                   timeout=5)
        except grpc.RpcError as e:
            # A matched ticket names its game before the matcher's CreateGame has landed.
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
            if time.time() > appear_by:
                count("matched_game_missing")
                print("game %s of a match did not appear in sessions within 15 s" % game_id,
                      file=sys.stderr)
                return False
            time.sleep(0.1)
            continue
        count("reads")
        if got.game.status == spb.GAME_STATUS_FINISHED:
            return True
        if not got.game.my_turn or not got.legal_actions:
            time.sleep(0.05)
            continue
        try:
            sessions.SubmitAction(spb.SubmitActionRequest(
                game_id=game_id, expected_version=got.game.version,
                idempotency_key=uuid.uuid4().hex, action=random.choice(got.legal_actions)),
                metadata=auth(token), timeout=5)
            count("moves")
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise
    return False


def bot_player(channels, deadline, idx):
    accounts, sessions = channels["accounts"], channels["sessions"]
    _, token = sign_in(accounts, "bot-fan-%d" % idx)
    while time.time() < deadline:
        try:
            game = sessions.CreateBotGame(spb.CreateBotGameRequest(
                request_id=uuid.uuid4().hex, game="pico", num_players=2, my_seat=0, bot="random"),
                metadata=auth(token), timeout=5).game
            count("bot_games")
            if play_turns(sessions, token, game.game_id, deadline):
                count("games_finished")
        except grpc.RpcError as e:
            count("errors")
            print("bot player %d: %s %s" % (idx, e.code(), e.details()), file=sys.stderr)
            time.sleep(0.5)


def ranked_pair(channels, deadline, idx):
    accounts, sessions, mm = channels["accounts"], channels["sessions"], channels["matchmaking"]
    players = [sign_in(accounts, "ranked-%d-%d" % (idx, seat)) for seat in (0, 1)]
    while time.time() < deadline:
        try:
            tickets = []
            for _, token in players:
                t = mm.Enqueue(mpb.EnqueueRequest(game="pico", ranked=True, player_counts=[2]),
                               metadata=auth(token), timeout=5).ticket
                tickets.append((t.ticket_id, token))
                count("tickets")
            game_id = ""
            while time.time() < deadline and not game_id:
                t = mm.GetTicket(mpb.GetTicketRequest(ticket_id=tickets[0][0]),
                                 metadata=auth(tickets[0][1]), timeout=5).ticket
                if t.state == mpb.TICKET_STATE_MATCHED and t.game_id:
                    game_id = t.game_id
                else:
                    time.sleep(0.2)
            if not game_id:
                return
            count("matched")
            def play(token):
                try:
                    play_turns(sessions, token, game_id, deadline)
                except grpc.RpcError as e:
                    count("errors")
                    print("ranked pair %d: %s %s" % (idx, e.code(), e.details()), file=sys.stderr)
            threads = [threading.Thread(target=play, args=(token,)) for _, token in players]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            count("games_finished")
        except grpc.RpcError as e:
            count("errors")
            print("ranked pair %d: %s %s" % (idx, e.code(), e.details()), file=sys.stderr)
            time.sleep(0.5)


def lonely_tickets(channels):
    """Tickets in a queue no one else joins: the queue-depth panel must show them."""
    for i in range(3):
        _, token = sign_in(channels["accounts"], "lonely-%d" % i)
        try:
            channels["matchmaking"].Enqueue(
                mpb.EnqueueRequest(game="kadice", ranked=False, player_counts=[4]),
                metadata=auth(token), timeout=5)
            count("tickets")
        except grpc.RpcError as e:
            count("errors")
            print("lonely ticket: %s %s" % (e.code(), e.details()), file=sys.stderr)


def reader(channels, deadline):
    _, token = sign_in(channels["accounts"], "reader")
    ratings = channels["ratings"]
    while time.time() < deadline:
        try:
            ratings.ListLadders(rpb.ListLaddersRequest(), metadata=auth(token), timeout=5)
            ratings.GetMyRatings(rpb.GetMyRatingsRequest(), metadata=auth(token), timeout=5)
            count("reads", 2)
        except grpc.RpcError as e:
            count("errors")
            print("reader: %s %s" % (e.code(), e.details()), file=sys.stderr)
        time.sleep(0.2)


def main():
    chans = {n: grpc.insecure_channel(a) for n, a in
             (("accounts", ACCOUNTS), ("sessions", SESSIONS), ("matchmaking", MATCHMAKING),
              ("ratings", RATINGS))}
    stubs = {"accounts": agrpc.AccountsServiceStub(chans["accounts"]),
             "sessions": sgrpc.SessionsServiceStub(chans["sessions"]),
             "matchmaking": mgrpc.MatchmakingServiceStub(chans["matchmaking"]),
             "ratings": rgrpc.RatingsServiceStub(chans["ratings"])}
    deadline = time.time() + SECONDS
    lonely_tickets(stubs)
    threads = [threading.Thread(target=bot_player, args=(stubs, deadline, i)) for i in range(3)]
    threads += [threading.Thread(target=ranked_pair, args=(stubs, deadline, i)) for i in range(2)]
    threads.append(threading.Thread(target=reader, args=(stubs, deadline)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("traffic: " + ", ".join("%s=%d" % kv for kv in STATS.items()))
    return 0 if STATS["moves"] > 0 and STATS["matched"] > 0 else 1


sys.exit(main())
