#!/usr/bin/python3
"""Full-system load test: N simulated players sign in, queue for ranked games of a
mix of the five games, get matched, and play their games to the end concurrently, each player
learning its turn from its own WatchMyGames stream, with every service running (accounts,
sessions, matchmaking, ratings; sessions reports results to ratings). Loopback only; bounded by
--players, --games-per-player and --seconds.

Prints games completed/s, moves/s, p50/p95/p99 of SubmitAction and of turn-notification
delivery (commit of the move that made it your turn -> the push arriving), matchmaking wait with
where it goes (the Enqueue call, waiting for the pass that seated the ticket, that pass's claim
and the game's creation, the push that told the player), and errors by code. Then checks that
every finished ranked game's ratings were applied exactly once (ratings' processed results and
history rows against the games, and every player's GetMyRatings game count) and that every
finished game replays to its stored state (`parlor-engine verify` on the stored GameRecord). Exit
0 only when every check passes.

usage: load.py BUILD_DIR PG_SERVER_CONNINFO [--players 1000] [--games-per-player 1]
               [--mix pico=4,pict=2,picadice=1,pescado=1,kadice=1] [--seconds 600]
               [--verify-workers 2] [--log-dir DIR] [--matchmaking-workers 32]
"""
import argparse
import asyncio
import atexit
import collections
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

SEATS = {"pico": 2, "pict": 2, "picadice": 4, "pescado": 3, "kadice": 3}
LADDER = {"pico": "pico", "pict": "pict", "picadice": "picadice-multi", "pescado": "pescado",
          "kadice": "kadice"}
# Documented game options that bound random play's length.
OPTIONS = {"kadice": {"max_rounds": "30"}, "picadice": {"turn_limit_per_seat": "25"}}


def percentiles(values):
    if not values:
        return "n/a"
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))] * 1000  # noqa: E731
    return "p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms  (n=%d)" % (pick(.5), pick(.95),
                                                                 pick(.99), len(v))


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.submit = []
        self.notify = []
        self.mm_wait = []
        self.mm_tickets = []  # (ticket id, queued, told): client clock, seconds
        self.errors = collections.Counter()
        self.moves = 0
        self.games = []  # (game_id, game name, ranked, [account ids])
        self.first_move = None
        self.last_finish = None

    def submitted(self, seconds):
        with self.lock:
            self.submit.append(seconds)
            self.moves += 1
            if self.first_move is None:
                self.first_move = time.time()

    def error(self, code):
        with self.lock:
            self.errors[code] += 1

    def notified(self, seconds):
        with self.lock:
            self.notify.append(seconds)


def plan_tables(players, mix, rng):
    """Seat assignment: whole tables of each game, drawn from the weighted mix."""
    names = [g for g, w in mix.items() for _ in range(w)]
    plan, left = [], players
    while left >= 2:
        choices = [g for g in names if SEATS[g] <= left] or ["pico"]
        game = rng.choice(choices)
        plan += [game] * SEATS[game]
        left -= SEATS[game]
    return plan


class LoadPlayer:
    def __init__(self, account_id, token, rng):
        self.account_id = account_id
        self.md = (("authorization", "Bearer " + token),)
        self.rng = rng
        self.queues = {}

    def queue(self, game_id):
        return self.queues.setdefault(game_id, asyncio.Queue())


async def drive(stack, plan, args, stats):
    """All players on one asyncio loop (grpc.aio): each has its WatchMyGames stream, queues
    through WatchMyTickets + Enqueue, and plays its game move by move."""
    import grpc
    from parlor_client import agrpc, apb, mgrpc, mpb, sgrpc, spb
    channels = [(grpc.aio.insecure_channel(stack.address("accounts")),
                 grpc.aio.insecure_channel(stack.address("sessions")),
                 grpc.aio.insecure_channel(stack.address("matchmaking"))) for _ in range(4)]
    stubs = [(agrpc.AccountsServiceStub(a), sgrpc.SessionsServiceStub(s),
              mgrpc.MatchmakingServiceStub(m)) for a, s, m in channels]
    start = time.time()
    deadline = start + args.seconds
    tag = uuid.uuid4().hex[:4]
    sign_in_gate = asyncio.Semaphore(32)

    async def sign_in(i):
        accounts = stubs[i % len(stubs)][0]
        async with sign_in_gate:
            answer = await accounts.AuthenticateDevice(apb.AuthenticateDeviceRequest(
                device_id="load-%d-%s" % (i, tag), display_name="Load%d-%s" % (i, tag)),
                timeout=60)
        return LoadPlayer(answer.account.account_id, answer.tokens.access_token,
                          random.Random(args.seed * 100003 + i))

    players = await asyncio.gather(*(sign_in(i) for i in range(len(plan))))
    print("load: %d players signed in in %.1f s" % (len(players), time.time() - start),
          flush=True)

    async def watch(i, player):
        sessions = stubs[i % len(stubs)][1]
        call = sessions.WatchMyGames(spb.WatchMyGamesRequest(), metadata=player.md)
        player.watch_call = call
        try:
            async for change in call:
                now = time.time()
                game = change.game
                if game.my_turn:
                    commit = game.update_time.seconds + game.update_time.nanos / 1e9
                    stats.notified(max(0.0, now - commit))
                player.queue(game.game_id).put_nowait(game)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                stats.error("WatchMyGames " + error.code().name)

    async def play(i, player, game_name):
        _, sessions, matchmaking = stubs[i % len(stubs)]
        for _ in range(args.games_per_player):
            if time.time() > deadline:
                return
            request = mpb.EnqueueRequest(game=game_name, ranked=True,
                                         player_counts=[SEATS[game_name]])
            request.options.update(OPTIONS.get(game_name, {}))
            queued = time.time()
            # The stream first, so the match cannot slip between the two calls.
            tickets = matchmaking.WatchMyTickets(mpb.WatchMyTicketsRequest(), metadata=player.md,
                                                 timeout=max(1, deadline - time.time()))
            game_id = ""
            try:
                ticket = (await matchmaking.Enqueue(request, metadata=player.md,
                                                    timeout=60)).ticket
                async for change in tickets:
                    t = change.ticket
                    if t.ticket_id == ticket.ticket_id and t.state == mpb.TICKET_STATE_MATCHED \
                            and t.game_id:
                        game_id = t.game_id
                        break
            except grpc.aio.AioRpcError as error:
                stats.error("matchmaking " + error.code().name)
                return
            finally:
                tickets.cancel()
            if not game_id:
                stats.error("matchmaking NOT_MATCHED")
                return
            told = time.time()
            stats.mm_wait.append(told - queued)
            stats.mm_tickets.append((ticket.ticket_id, queued, told))
            got = None
            while True:
                if time.time() > deadline:
                    stats.error("PLAY_TIMEOUT")
                    return
                if got is None:
                    try:
                        got = await sessions.GetGame(spb.GetGameRequest(game_id=game_id),
                                                     metadata=player.md, timeout=60)
                    except grpc.aio.AioRpcError as error:
                        stats.error("GetGame " + error.code().name)
                        await asyncio.sleep(0.1)
                        continue
                game = got.game
                if game.status == spb.GAME_STATUS_FINISHED:
                    if game.my_seat == 0:
                        stats.games.append((game_id, game_name, game.ranked,
                                            [s.account_id for s in game.seats]))
                        stats.last_finish = time.time()
                    break
                if game.my_turn and got.legal_actions:
                    submit = spb.SubmitActionRequest(game_id=game_id,
                                                     expected_version=game.version,
                                                     idempotency_key=uuid.uuid4().hex)
                    submit.action.CopyFrom(player.rng.choice(list(got.legal_actions)))
                    sent = time.time()
                    try:
                        got = await sessions.SubmitAction(submit, metadata=player.md,
                                                          timeout=60)
                        stats.submitted(time.time() - sent)
                    except grpc.aio.AioRpcError as error:
                        stats.error(error.code().name)
                        got = None
                    continue
                try:
                    change = await asyncio.wait_for(player.queue(game_id).get(), 10)
                except asyncio.TimeoutError:
                    stats.error("NO_PUSH_WITHIN_10s")
                    got = None
                    continue
                if change.version > game.version or change.status != game.status:
                    got = None

    watchers = [asyncio.ensure_future(watch(i, p)) for i, p in enumerate(players)]
    await asyncio.sleep(0.5)
    await asyncio.gather(*(play(i, p, g) for i, (p, g) in enumerate(zip(players, plan))))
    for p in players:
        p.watch_call.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    for chans in channels:
        for c in chans:
            await c.close()
    return players, start


def psql(db_url, sql):
    return subprocess.check_output(["psql", "-X", "-q", "-At", "-F", "\t", db_url, "-c", sql],
                                   text=True)


def wait_breakdown(db_url, tickets, interval):
    """Where each player's matchmaking wait went, from the ticket and match rows (the services'
    clocks, on this same machine) and the time the player was told (WatchMyTickets showed the
    game):
      enqueue       the Enqueue call (queued -> ticket written)
      to a pass     ticket written -> the pass that seated it began (the pass interval, waiting
                    for partners, and passes that ran but could not seat it yet)
      claim+create  that pass began -> the game existed (the pass's read, plan and claim, then
                    the game-creation outbox and sessions.CreateGame)
      push          game created -> the player's WatchMyTickets stream delivered it"""
    if not tickets:
        return []
    rows = {}
    for chunk in range(0, len(tickets), 500):
        ids = ",".join("'%s'" % t[0] for t in tickets[chunk:chunk + 500])
        for line in psql(db_url, "SELECT t.ticket_id, extract(epoch FROM t.create_time), "
                                 "extract(epoch FROM m.create_time), "
                                 "extract(epoch FROM m.game_create_time) "
                                 "FROM matchmaking.tickets t JOIN matchmaking.matches m "
                                 "USING (match_id) WHERE t.ticket_id IN (%s)" % ids).split("\n"):
            if line:
                tid, written, seated, created = line.split("\t")
                rows[tid] = (float(written), float(seated), float(created))
    parts = []  # (total, enqueue, to a pass, claim+create, push)
    for tid, queued, told in tickets:
        if tid not in rows:
            continue
        written, seated, created = rows[tid]
        parts.append((told - queued, written - queued, seated - written, created - seated,
                      told - created))
    names = ("enqueue", "to a pass", "claim+create", "push")
    lines = ["  where it goes       (pass interval %s; p50 / p99 of each part, then the mean of "
             "each part over the slowest 1%% of waits)" % interval]
    worst = sorted(parts)[-max(1, len(parts) // 100):]
    for k, name in enumerate(names, start=1):
        values = sorted(p[k] for p in parts)
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]  # noqa: E731
        lines.append("    %-18s p50 %7.2f s  p99 %7.2f s   slowest 1%%: %7.2f s" % (
            name, pick(.5), pick(.99), sum(p[k] for p in worst) / len(worst)))
    if len(parts) != len(tickets):
        lines.append("    (%d of %d waits have no ticket/match rows)" % (
            len(tickets) - len(parts), len(tickets)))
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("pg_server")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--games-per-player", type=int, default=1)
    parser.add_argument("--mix", default="pico=4,pict=2,picadice=1,pescado=1,kadice=1")
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--verify-workers", type=int, default=2)
    parser.add_argument("--log-dir", default="")
    parser.add_argument("--seed", type=int, default=1)
    # Matchmaking's request bodies mostly wait (Enqueue asks accounts and ratings, then commits):
    # at the servers' default of 8 workers the burst of 1,000 Enqueues was written at ~200/s.
    parser.add_argument("--matchmaking-workers", type=int, default=32,
                        help="matchmaking's --worker_threads (its default: 32)")
    args = parser.parse_args()
    mix = {k: int(v) for k, v in (kv.split("=") for kv in args.mix.split(","))}
    for game in mix:
        if game not in SEATS:
            sys.exit("unknown game in --mix: " + game)

    os.environ.setdefault("PARLOR_PY_STUBS_DIR",
                          os.path.join(args.build_dir, "gen", "python-clients"))
    import parlor_client as pc
    import parlor_stack
    # The engine's per-game snapshot protos, so a stored GameRecord converts to the JSON that
    # `parlor-engine verify` reads.
    stub_dir = os.environ["PARLOR_PY_STUBS_DIR"]
    states = sorted(os.path.relpath(os.path.join(d, f), os.path.join(ROOT, "engine", "games"))
                    for d, _, fs in os.walk(os.path.join(ROOT, "engine", "games"))
                    for f in fs if f.endswith("_state.proto"))
    subprocess.check_call(["protoc", "-I", os.path.join(ROOT, "engine", "games"), "-I",
                           os.path.join(ROOT, "protos"), "--python_out", stub_dir] + states)
    import importlib
    for state in states:
        importlib.import_module(state[:-len(".proto")].replace("/", ".") + "_pb2")
    from parlor_client import rpb

    log_dir = args.log_dir
    if not log_dir:
        # A directory of its own goes when the tool exits, however it exits (an error, or a
        # signal: see __main__); logs stay only where --log-dir puts them.
        log_dir = tempfile.mkdtemp(prefix="parlor-load-")
        atexit.register(shutil.rmtree, log_dir, True)
    server = args.pg_server
    if server.startswith("@"):  # @FILE: the conninfo file of a running server (ctest's `pg`)
        with open(server[1:]) as f:
            server = f.read().strip()
    db_url = parlor_stack.create_database(server, "load")
    rng = random.Random(args.seed)
    plan = plan_tables(args.players, mix, rng)
    rng.shuffle(plan)
    print("load: %d players (%d seated: %s), %d game(s) each, bounded at %.0f s; matchmaking "
          "--worker_threads=%d; logs %s" % (
              args.players, len(plan), ", ".join("%s %d" % (g, plan.count(g) // SEATS[g])
                                                 for g in SEATS if g in plan),
              args.games_per_player, args.seconds, args.matchmaking_workers, log_dir),
          flush=True)

    stats = Stats()
    matcher_interval = "250ms"
    # More players than a channel's default concurrent-stream budget: a few channels each.
    with parlor_stack.Stack(args.build_dir, db_url, log_dir,
                            extra_env={"matchmaking": {
                                "PARLOR_MATCHER_INTERVAL": matcher_interval,
                                "PARLOR_WORKER_THREADS": str(args.matchmaking_workers)}}) as stack:
        players, start = asyncio.run(drive(stack, plan, args, stats))
        elapsed = (stats.last_finish or time.time()) - start
        pools = [pc.Channels(stack.address("accounts"), stack.address("sessions"),
                             stack.address("matchmaking"), stack.address("ratings"))]

        expected_games = sum(plan.count(g) // SEATS[g] for g in SEATS) * args.games_per_player
        print("\n== load summary")
        print("players               %d" % len(players))
        print("games completed       %d of %d (%.2f games/s over %.1f s)" % (
            len(stats.games), expected_games, len(stats.games) / elapsed, elapsed))
        by_game = collections.Counter(g for _, g, _, _ in stats.games)
        print("  by game             %s" % ", ".join("%s %d" % kv for kv in sorted(
            by_game.items())))
        print("moves                 %d (%.1f moves/s)" % (stats.moves, stats.moves / elapsed))
        print("SubmitAction          " + percentiles(stats.submit))
        print("turn notification     " + percentiles(stats.notify))
        print("matchmaking wait      " + percentiles(stats.mm_wait))
        for line in wait_breakdown(db_url, stats.mm_tickets, matcher_interval):
            print(line)
        print("errors by code        %s" % (dict(stats.errors) or "none"))

        # --- Ratings applied exactly once -------------------------------------------------
        ranked = [g for g in stats.games if g[2]]
        want = {g[0] for g in ranked}
        wait_until = time.time() + 90
        while time.time() < wait_until:
            done = set(psql(db_url, "SELECT game_id FROM ratings.processed_results").split())
            if want <= done:
                break
            time.sleep(1)
        rows = dict(line.split("\t") for line in psql(
            db_url, "SELECT game_id, count(*) FROM ratings.rating_history GROUP BY game_id"
        ).split("\n") if line)
        doubled = psql(db_url, "SELECT count(*) FROM (SELECT game_id, account_id FROM "
                               "ratings.rating_history GROUP BY 1, 2 HAVING count(*) > 1) d")
        bad_ratings = [g[0] for g in ranked if int(rows.get(g[0], 0)) != len(g[3])]
        per_player = collections.Counter()
        for gid, game, _, seats in ranked:
            for account in seats:
                per_player[(account, LADDER[game])] += 1
        api_mismatch = 0
        for p in players:
            mine = {r.ladder: r.games for r in pools[0].ratings.GetMyRatings(
                rpb.GetMyRatingsRequest(), metadata=p.md, timeout=10).ratings}
            for (account, ladder), n in per_player.items():
                if account == p.account_id and mine.get(ladder, 0) != n:
                    api_mismatch += 1
        ratings_ok = not bad_ratings and int(doubled) == 0 and api_mismatch == 0
        print("ratings               %d ranked games: %d rated once per seat, %d missing or "
              "wrong, %d duplicated rows, %d GetMyRatings count mismatches -> %s" % (
                  len(ranked), len(ranked) - len(bad_ratings), len(bad_ratings),
                  int(doubled), api_mismatch, "OK" if ratings_ok else "FAILED"))

        # --- Every finished game replays to its stored state ------------------------------
        from google.protobuf import json_format
        from parlor.engine.v1 import record_pb2
        engine = parlor_stack.binary(args.build_dir, "engine")
        finished_ids = [g[0] for g in stats.games]
        snapshots = {}
        for chunk in range(0, len(finished_ids), 200):
            ids = ",".join("'%s'" % i for i in finished_ids[chunk:chunk + 200])
            for line in psql(db_url, "SELECT game_id, encode(snapshot, 'hex') FROM "
                                     "sessions.games WHERE game_id IN (%s)" % ids).split("\n"):
                if line:
                    gid, hexed = line.split("\t")
                    snapshots[gid] = bytes.fromhex(hexed)

        # A snapshot leaves the log out (omitted_entries): its entries are the game's log rows,
        # which the check puts back, so that the log rows too must replay to the stored state.
        entries = {}
        for chunk in range(0, len(finished_ids), 200):
            ids = ",".join("'%s'" % i for i in finished_ids[chunk:chunk + 200])
            for line in psql(db_url, "SELECT game_id, encode(entry, 'hex') FROM sessions.actions "
                                     "WHERE game_id IN (%s) AND version > 0 "
                                     "ORDER BY game_id, version" % ids).split("\n"):
                if line:
                    gid, hexed = line.split("\t")
                    entries.setdefault(gid, []).append(bytes.fromhex(hexed))

        def verify(gid):
            record = record_pb2.GameRecord()
            record.ParseFromString(snapshots[gid])
            if record.omitted_entries:
                del record.log[1:]
                for entry in entries.get(gid, []):
                    record.log.add().ParseFromString(entry)
                record.omitted_entries = 0
            text = json_format.MessageToJson(record, preserving_proto_field_name=True)
            out = subprocess.run([engine, "verify", "-"], input=text, text=True,
                                 capture_output=True, timeout=120)
            return gid, out.returncode, (out.stdout + out.stderr).strip()

        verified, failures = 0, []
        with concurrent.futures.ThreadPoolExecutor(args.verify_workers) as ex:
            for gid, rc, text in ex.map(verify, [g for g in finished_ids if g in snapshots]):
                if rc == 0:
                    verified += 1
                else:
                    failures.append((gid, text))
        missing = len(finished_ids) - len(snapshots)
        replay_ok = not failures and missing == 0
        print("replay                %d of %d finished games verified by parlor-engine verify"
              "%s -> %s" % (verified, len(finished_ids),
                            ", %d not found" % missing if missing else "",
                            "OK" if replay_ok else "FAILED"))
        for gid, text in failures[:5]:
            print("  %s: %s" % (gid, text[:300]))
        for c in pools:
            c.close()

    complete = len(stats.games) == expected_games
    if not complete:
        print("load: only %d of %d games completed within the bounds" % (len(stats.games),
                                                                         expected_games))
    ok = complete and ratings_ok and replay_ok
    if not ok and not args.log_dir:  # the services' last words, before the directory goes
        for name in sorted(os.listdir(log_dir)):
            with open(os.path.join(log_dir, name), errors="replace") as f:
                print("--- %s (last lines)\n%s" % (name, "".join(f.readlines()[-15:])))
    print("load: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    import signal
    # SIGTERM and SIGHUP unwind like Ctrl-C, so the services this tool started are stopped and
    # its directory removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    sys.exit(main())
