#!/usr/bin/python3
"""Crash test: two sessions replicas share one database while clients play
ranked games through both; every --kill-every seconds one replica is killed with SIGKILL (no
drain) and started again. Clients send each move with a fresh idempotency key and, on
UNAVAILABLE or a missed deadline, send the very same request again to the other replica until
it is answered. After --seconds the killing stops, the result outbox drains into ratings, and
the checker reads the database and proves:

  lost            every acknowledged action is in the log once, at the version it was
                  acknowledged with, by the player who sent it, under its idempotency key;
  applied twice   no player action in the log without its own idempotency key, no key claiming
                  two log entries, no answer acknowledging a version other than the log's;
  replay          each game's stored snapshot (sessions.games) agrees with the log of
                  sessions.actions (the entries it holds; it leaves out those after the setup's),
                  and `parlor-engine verify` of that log reproduces the stored state bit for bit;
  rated twice     each finished ranked game is in ratings.processed_results once, with one
                  rating_history row per seat, and no (game, player) has two rows.

With --crash postgres, the replicas stay up and PostgreSQL itself crashes instead: every
--kill-every seconds `pg_ctl stop -m immediate` (no checkpoint, no clean shutdown: crash recovery
from the WAL at the next start), down for --pg-down seconds, then started again on its data.
Every acknowledged move must survive that too, which it can only on a durable cluster: the
test's PostgreSQL runs with fsync, synchronous_commit and full_page_writes on (PostgreSQL's
defaults), and the figures say so.

Prints every figure; exit 0 only when lost, applied twice, replay mismatches, rated twice and
not rated are all 0, no call was answered INTERNAL (a crash of either kind is a lost connection:
UNAVAILABLE, to be retried), and the driver made progress.

usage: crash_test.py BUILD_DIR [--seconds 60] [--games-at-once 6] [--kill-every 3]
                     [--crash sessions|postgres] [--pg-down 1] [--players 24] [--seed 1]
                     [--log-dir DIR]
"""
import argparse
import collections
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability_lib as rl  # noqa: E402

SEATS = {"pico": 2, "pict": 2, "picadice": 2, "pescado": 3, "kadice": 3}
# Documented options that bound a random game's length.
OPTIONS = {"kadice": {"max_rounds": "30"}, "picadice": {"turn_limit_per_seat": "25"}}
RETRYABLE = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "CANCELLED")
CALL_TIMEOUT = 3.0
GIVE_UP_AFTER = 30.0  # a request unanswered this long is reported, not retried forever


class Figures:
    def __init__(self):
        self.lock = threading.Lock()
        self.acks = []  # (game_id, account_id, key, version)
        self.sent_keys = {}  # key -> (game_id, account_id), every key ever sent
        self.retried_actions = 0  # acknowledged only after at least one retry
        self.first_failure = {}  # key -> time the first attempt failed (retried keys)
        self.retries = 0  # re-sent requests (SubmitAction)
        self.other_retries = 0  # re-sent GetGame / CreateGame
        self.unanswered = []  # keys given up on (outcome unknown to the client)
        self.errors = collections.Counter()
        self.games = {}  # game_id -> (game, ranked, [account ids])
        self.finished = set()
        self.kills = 0
        self.restart_seconds = []

    def error(self, what):
        with self.lock:
            self.errors[what] += 1


class Client:
    """A player's or the matchmaker's calls, failing over between the two replicas."""

    def __init__(self, stubs, rng):
        self.stubs = stubs  # [(public stub, internal stub)] per replica
        self.rng = rng

    def call(self, method, request, metadata, figures, internal=False, on_retry=None):
        """Sends `request` until a replica answers it; the same request on every attempt."""
        import grpc
        replica = self.rng.randrange(len(self.stubs))
        started = time.time()
        attempt = 0
        while True:
            stub = self.stubs[replica][1 if internal else 0]
            try:
                return getattr(stub, method)(request, metadata=metadata, timeout=CALL_TIMEOUT)
            except grpc.RpcError as error:
                code = error.code().name
                if code not in RETRYABLE:
                    raise
                figures.error("%s %s (retried)" % (method, code))
                if time.time() - started > GIVE_UP_AFTER:
                    raise
                attempt += 1
                if on_retry:
                    on_retry()
                replica = (replica + 1) % len(self.stubs)
                time.sleep(min(0.05 * attempt, 0.5))


def play_games(worker, args, deadline, clients, players, service_md, figures):
    from parlor_client import spb
    import grpc
    rng = random.Random(args.seed * 7919 + worker)
    client = Client(clients, rng)
    n = 0
    while time.time() < deadline:
        n += 1
        game_name = rng.choice(sorted(SEATS))
        seated = rng.sample(players, SEATS[game_name])
        request = spb.CreateGameRequest(match_id="crash-%d-%d-%s" % (worker, n,
                                                                     uuid.uuid4().hex[:8]),
                                        game=game_name, ranked=True)
        request.options.update(OPTIONS.get(game_name, {}))
        for p in seated:
            request.seats.add(account_id=p["account_id"], display_name=p["name"])
        request.time_control.per_move.limit.seconds = 86400

        def other_retry():
            with figures.lock:
                figures.other_retries += 1
        try:
            game = client.call("CreateGame", request, service_md, figures, internal=True,
                               on_retry=other_retry).game
        except grpc.RpcError as error:
            figures.error("CreateGame %s" % error.code().name)
            continue
        by_account = {p["account_id"]: p for p in seated}
        with figures.lock:
            figures.games[game.game_id] = (game_name, True, [p["account_id"] for p in seated])
        while time.time() < deadline:
            if game.status == spb.GAME_STATUS_FINISHED:
                with figures.lock:
                    figures.finished.add(game.game_id)
                break
            seat = rng.choice(list(game.acting_seats))
            player = by_account[game.seats[seat].account_id]
            try:
                got = client.call("GetGame", spb.GetGameRequest(game_id=game.game_id),
                                  player["md"], figures, on_retry=other_retry)
            except grpc.RpcError as error:
                figures.error("GetGame %s" % error.code().name)
                break
            if got.game.status == spb.GAME_STATUS_FINISHED or not got.legal_actions:
                game = got.game
                continue
            submit = spb.SubmitActionRequest(game_id=game.game_id,
                                             expected_version=got.game.version,
                                             idempotency_key=uuid.uuid4().hex)
            submit.action.CopyFrom(rng.choice(list(got.legal_actions)))
            with figures.lock:
                figures.sent_keys[submit.idempotency_key] = (game.game_id, player["account_id"])
            retried = [0]

            def submit_retry(key=submit.idempotency_key):
                retried[0] += 1
                with figures.lock:
                    figures.retries += 1
                    figures.first_failure.setdefault(key, time.time())
            try:
                answer = client.call("SubmitAction", submit, player["md"], figures,
                                     on_retry=submit_retry)
            except grpc.RpcError as error:
                code = error.code().name
                if code in RETRYABLE:
                    with figures.lock:
                        figures.unanswered.append(submit.idempotency_key)
                figures.error("SubmitAction %s%s" % (code, " after a retry" if retried[0]
                                                     else ""))
                if code in RETRYABLE or retried[0]:
                    print("crash: SubmitAction %s after %d retries: %s" % (
                        code, retried[0], error.details()), flush=True)
                game = got.game
                continue
            with figures.lock:
                figures.acks.append((game.game_id, player["account_id"], submit.idempotency_key,
                                     answer.game.version))
                if retried[0]:
                    figures.retried_actions += 1
            game = answer.game


def crash_postgres_loop(pg, args, stop, figures):
    """Crashes PostgreSQL (immediate shutdown: no checkpoint, recovery from the WAL at the next
    start) every --kill-every seconds and starts it again after --pg-down seconds."""
    while not stop.wait(args.kill_every):
        pg.stop("immediate")
        figures.kills += 1
        killed = time.time()
        time.sleep(args.pg_down)
        pg.start()
        figures.restart_seconds.append(time.time() - killed)


def kill_loop(replicas, args, stop, figures):
    """SIGKILLs the replicas in turn, restarting each at once; never both down together."""
    victim = 0
    while not stop.wait(args.kill_every):
        replica = replicas[victim % len(replicas)]
        victim += 1
        replica.kill()
        figures.kills += 1
        killed = time.time()
        replica.start(wait=False)
        replica.wait_serving(timeout=60)
        figures.restart_seconds.append(time.time() - killed)


def percentile_line(values):
    if not values:
        return "n/a"
    v = sorted(values)
    return "p50 %.2f s, max %.2f s (n=%d)" % (v[len(v) // 2], v[-1], len(v))


def check_database(pg, db_url, build_dir, figures, verify_workers):
    """The checker: returns {figure name: count}."""
    from google.protobuf import json_format
    from parlor.engine.v1 import record_pb2
    psql = lambda sql: [line.split("\t") for line in pg.psql(db_url, sql).split("\n")  # noqa
                        if line]
    result = {}

    # --- Lost: every acknowledged action is in the log, once, where it was acknowledged ------
    keys, created = {}, {}
    for g, a, k, v, t in psql("SELECT game_id, account_id, key, version, "
                              "extract(epoch FROM created_at) FROM sessions.idempotency_keys"):
        keys[(g, a, k)] = int(v)
        created[k] = float(t)
    log = {}
    for g, v, kind, cause, account in psql(
            "SELECT game_id, version, kind, cause, coalesce(account_id::text, '') "
            "FROM sessions.actions"):
        log[(g, int(v))] = (kind, cause, account)
    lost, misplaced = [], []
    for game_id, account, key, version in figures.acks:
        stored = keys.get((game_id, account, key))
        entry = log.get((game_id, version))
        if stored is None or entry is None or entry[0] != "action" or entry[2] != account:
            lost.append((game_id, key, version))
        elif stored != version:
            misplaced.append((game_id, key, version, stored))
    result["lost"] = len(lost)
    for item in lost[:5]:
        print("  lost: game %s key %s version %d" % item)

    # --- Applied twice -----------------------------------------------------------------------
    by_version = collections.Counter((g, v) for (g, _, _), v in keys.items())
    two_keys_one_entry = sum(1 for n in by_version.values() if n > 1)
    keyed_versions = set(by_version)
    player_entries_without_key = [(g, v) for (g, v), (kind, cause, _) in log.items()
                                  if cause == "player" and (g, v) not in keyed_versions]
    acked_keys = collections.Counter(k for _, _, k, _ in figures.acks)
    acked_twice = sum(1 for n in acked_keys.values() if n > 1)
    result["applied twice"] = (len(player_entries_without_key) + two_keys_one_entry +
                               len(misplaced) + acked_twice)
    for item in player_entries_without_key[:5]:
        print("  player action without its idempotency key: game %s version %d" % item)
    for item in misplaced[:5]:
        print("  acknowledged at another version: game %s key %s acked %d stored %d" % item)
    sent = set(figures.sent_keys)
    stored_keys = {k for (_, _, k) in keys}
    result["applied, answer never received"] = len(stored_keys & sent -
                                                   {k for _, _, k, _ in figures.acks})
    result["log entries not sent by the test"] = len(stored_keys - sent)
    # Retried actions whose first attempt had committed before it failed on the client's side:
    # the retry was answered from the idempotency record, not applied again.
    result["retries answered from the key"] = sum(
        1 for k, t in figures.first_failure.items() if k in created and created[k] <= t)

    # --- Stored state vs replay of the log ---------------------------------------------------
    engine = rl.parlor_stack.binary(build_dir, "engine")
    games = {g: (int(v), bytes.fromhex(s)) for g, v, s in psql(
        "SELECT game_id, version, encode(snapshot, 'hex') FROM sessions.games")}
    entries = collections.defaultdict(list)
    for g, v, e in psql("SELECT game_id, version, encode(entry, 'hex') FROM sessions.actions "
                        "ORDER BY game_id, version"):
        entries[g].append((int(v), bytes.fromhex(e)))

    def verify(game_id):
        version, snapshot = games[game_id]
        record = record_pb2.GameRecord()
        record.ParseFromString(snapshot)
        rows = entries.get(game_id, [])
        if [v for v, _ in rows] != list(range(version + 1)):
            return game_id, "log versions %s do not run 0..%d" % (
                [v for v, _ in rows][:10], version)
        stored_log = [e.SerializeToString() for e in record.log]
        # A snapshot leaves out the entries after the setup's (omitted_entries), which are the
        # log rows alone; one a --snapshot_with_log server wrote holds them all.
        if record.omitted_entries:
            if record.omitted_entries + len(stored_log) - 1 != version:
                return game_id, "the snapshot counts %d moves, its row says version %d" % (
                    record.omitted_entries + len(stored_log) - 1, version)
            held = [e for _, e in rows[:1] + rows[1 + record.omitted_entries:]]
        else:
            held = [e for _, e in rows]
        if stored_log != held:
            return game_id, "the snapshot's log differs from sessions.actions"
        del record.log[:]
        record.omitted_entries = 0
        for _, e in rows:
            record.log.add().ParseFromString(e)
        text = json_format.MessageToJson(record, preserving_proto_field_name=True)
        out = subprocess.run([engine, "verify", "-"], input=text, text=True,
                             capture_output=True, timeout=120)
        return game_id, None if out.returncode == 0 else (out.stdout + out.stderr).strip()

    mismatches = []
    with concurrent.futures.ThreadPoolExecutor(verify_workers) as ex:
        for game_id, problem in ex.map(verify, sorted(games)):
            if problem:
                mismatches.append((game_id, problem))
    result["games checked"] = len(games)
    result["state differs from replay"] = len(mismatches)
    for game_id, problem in mismatches[:5]:
        print("  replay: %s: %s" % (game_id, problem[:300]))

    # --- Ratings: each finished ranked game rated exactly once -------------------------------
    finished_ranked = {g: n for g, n in psql(
        "SELECT game_id, num_players FROM sessions.games WHERE status = 'finished' AND ranked")}
    history = collections.Counter(g for (g,) in psql(
        "SELECT game_id FROM ratings.rating_history"))
    processed = collections.Counter(g for (g,) in psql(
        "SELECT game_id FROM ratings.processed_results"))
    doubled_rows = psql("SELECT count(*) FROM (SELECT game_id, account_id FROM "
                        "ratings.rating_history GROUP BY 1, 2 HAVING count(*) > 1) d")[0][0]
    result["ranked games finished"] = len(finished_ranked)
    result["rated exactly once"] = sum(1 for g, n in finished_ranked.items()
                                       if processed[g] == 1 and history[g] == int(n))
    result["rated twice"] = (sum(1 for g, n in finished_ranked.items()
                                 if processed[g] > 1 or history[g] > int(n)) +
                             int(doubled_rows))
    result["not rated"] = sum(1 for g in finished_ranked if processed[g] == 0)
    return result


def self_check(pg, db_url, args, figures, clean):
    """Proves the checker is not vacuous: plants one fault of each kind it must find."""
    if len(figures.acks) < 2 or len(figures.finished) < 2:
        print("checker self-check: not enough games played to plant faults")
        return False
    figures.acks.append((figures.acks[0][0], figures.acks[0][1], "never-sent-key",
                         figures.acks[0][3] + 1000))  # an acknowledged action the log lacks
    figures.acks.append(figures.acks[1])  # one answer acknowledged twice
    a, b = sorted(figures.finished)[:2]  # a game whose snapshot is another game's
    pg.psql(db_url, "UPDATE sessions.games SET snapshot = (SELECT snapshot FROM sessions.games "
                    "WHERE game_id = '%s') WHERE game_id = '%s'" % (b, a))
    planted = check_database(pg, db_url, args.build_dir, figures, args.verify_workers)
    ok = (planted["lost"] == clean["lost"] + 1 and
          planted["applied twice"] == clean["applied twice"] + 1 and
          planted["state differs from replay"] == clean["state differs from replay"] + 1)
    print("checker self-check           planted 1 lost, 1 doubled, 1 tampered snapshot -> found "
          "%d, %d, %d -> %s" % (planted["lost"], planted["applied twice"],
                                planted["state differs from replay"], "OK" if ok else "FAILED"))
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--games-at-once", type=int, default=6)
    parser.add_argument("--kill-every", type=float, default=3.0)
    parser.add_argument("--crash", choices=("sessions", "postgres"), default="sessions",
                        help="what crashes: a sessions replica (SIGKILL) or PostgreSQL "
                             "(pg_ctl stop -m immediate)")
    parser.add_argument("--pg-down", type=float, default=1.0,
                        help="--crash postgres: seconds PostgreSQL stays down each time")
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verify-workers", type=int, default=2)
    parser.add_argument("--log-dir", default="")
    parser.add_argument("--pgbouncer", action="store_true",
                        help="services reach PostgreSQL through PgBouncer in transaction mode")
    parser.add_argument("--self-check", action="store_true",
                        help="afterwards, plant a lost action, a doubled answer and a tampered "
                             "snapshot, and check that the checker counts each")
    args = parser.parse_args()
    os.environ.setdefault("PARLOR_PY_STUBS_DIR",
                          os.path.join(args.build_dir, "gen", "python-crash"))
    import grpc
    import parlor_client  # noqa: F401  (generates the stubs)
    from parlor_client import agrpc, apb, sgrpc
    # The engine's per-game state protos, so GameRecord.state (an Any) converts to JSON.
    import importlib
    stub_dir = os.environ["PARLOR_PY_STUBS_DIR"]
    games_dir = os.path.join(rl.ROOT, "engine", "games")
    states = sorted(os.path.relpath(os.path.join(d, f), games_dir)
                    for d, _, fs in os.walk(games_dir) for f in fs if f.endswith("_state.proto"))
    subprocess.check_call(["protoc", "-I", games_dir, "-I", os.path.join(rl.ROOT, "protos"),
                           "--python_out", stub_dir] + states)
    for state in states:
        importlib.import_module(state[:-len(".proto")].replace("/", ".") + "_pb2")

    work = rl.work_dir("parlor-crash-")
    log_dir = args.log_dir or os.path.join(work, "logs")
    os.makedirs(log_dir, exist_ok=True)
    victim = ("one of two sessions replicas SIGKILLed" if args.crash == "sessions" else
              "PostgreSQL crashed (pg_ctl stop -m immediate, down %.1f s)" % args.pg_down)
    print("crash: %.0f s of play, %d games at once, %s every %.1f s; logs in %s" % (
        args.seconds, args.games_at_once, victim, args.kill_every, log_dir), flush=True)
    pg = rl.Postgres(work)
    print("crash: PostgreSQL %s" % pg.settings(), flush=True)
    services = []
    ok = False
    if args.pgbouncer:
        bouncer = rl.use_pgbouncer(pg)
        print("crash: services reach PostgreSQL through %s (transaction pooling) on port %d"
              % (bouncer.version, bouncer.port), flush=True)
    try:
        db_url = rl.parlor_stack.create_database(pg.conninfo, "crash")
        access_private, access_public = rl.parlor_stack.keygen(args.build_dir)
        service_private, service_public = rl.parlor_stack.keygen(args.build_dir)

        def make(name, label=None, extra=None):
            env = rl.service_env(db_url, name, rl.parlor_grpc.free_port(), access_public,
                                 service_public, service_private,
                                 access_private if name == "accounts" else None, extra)
            service = rl.Service(args.build_dir, name, env, log_dir, label)
            services.append(service)
            return service

        accounts = make("accounts")
        ratings = make("ratings")
        for s in (accounts, ratings):
            subprocess.check_call([rl.parlor_stack.binary(args.build_dir, s.name), "migrate"],
                                  env=s.env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            s.start()
        sessions_env = {"PARLOR_RATINGS_ADDRESS": ratings.address,
                        "PARLOR_DISPATCH_INTERVAL": "200ms"}
        replicas = [make("sessions", "sessions-a", sessions_env),
                    make("sessions", "sessions-b", sessions_env)]
        subprocess.check_call([rl.parlor_stack.binary(args.build_dir, "sessions"), "migrate"],
                              env=replicas[0].env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        for r in replicas:
            r.start()
        service_md = (("authorization", "Bearer " + subprocess.check_output(
            [rl.parlor_stack.binary(args.build_dir, "token"), "service",
             "--private_key=" + service_private, "--subject=crash-test"], text=True).strip()),)

        channel = grpc.insecure_channel(accounts.address)
        accounts_stub = agrpc.AccountsServiceStub(channel)
        players = []
        for i in range(args.players):
            answer = accounts_stub.AuthenticateDevice(apb.AuthenticateDeviceRequest(
                device_id="crash-%d-%s" % (i, uuid.uuid4().hex[:6])), timeout=10)
            players.append({"account_id": answer.account.account_id,
                            "name": answer.account.display_name,
                            "md": (("authorization", "Bearer " + answer.tokens.access_token),)})
        channel.close()

        figures = Figures()
        channels = [grpc.insecure_channel(r.address, options=rl.FAST_RECONNECT)
                    for r in replicas for _ in range(2)]
        stubs = [(sgrpc.SessionsServiceStub(c), sgrpc.SessionsInternalServiceStub(c))
                 for c in channels]
        stop_killing = threading.Event()
        if args.crash == "sessions":
            killer = threading.Thread(target=kill_loop,
                                      args=(replicas, args, stop_killing, figures))
        else:
            killer = threading.Thread(target=crash_postgres_loop,
                                      args=(pg, args, stop_killing, figures))
        started = time.time()
        deadline = started + args.seconds
        killer.start()
        workers = [threading.Thread(target=play_games,
                                    args=(w, args, deadline, stubs, players, service_md,
                                          figures)) for w in range(args.games_at_once)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=max(1, deadline - time.time() + GIVE_UP_AFTER + 10))
        stop_killing.set()
        killer.join()
        played = time.time() - started
        for r in replicas:
            if not r.alive():
                r.start()
        for c in channels:
            c.close()

        # Let the result outbox drain into ratings. A result claimed by a replica that was then
        # killed waits for its claim's lease to expire (60 s, OutboxDispatcher::Options::lease)
        # before the other replica sends it, so allow a little more than that.
        drain_started = time.time()
        pending = -1
        at_stop = int(pg.psql(db_url, "SELECT count(*) FROM sessions.result_outbox "
                                      "WHERE acked_at IS NULL AND ranked").strip())
        while time.time() < drain_started + 90:
            pending = int(pg.psql(db_url, "SELECT count(*) FROM sessions.result_outbox "
                                          "WHERE acked_at IS NULL AND ranked").strip())
            if pending == 0:
                break
            time.sleep(0.5)
        drained = time.time() - drain_started

        print("\n== crash test figures")
        if args.crash == "sessions":
            print("played                       %.1f s, %d SIGKILLs, replica restart to SERVING %s"
                  % (played, figures.kills, percentile_line(figures.restart_seconds)))
        else:
            print("played                       %.1f s, %d PostgreSQL crashes (-m immediate), "
                  "down to accepting again %s" % (played, figures.kills,
                                                  percentile_line(figures.restart_seconds)))
        print("PostgreSQL                   %s" % pg.settings())
        print("games                        %d created, %d finished" % (
            len(figures.games), len(figures.finished)))
        print("actions acknowledged         %d (%d of them only after a retry)" % (
            len(figures.acks), figures.retried_actions))
        print("SubmitAction retries         %d (same request, same idempotency key, other "
              "replica); GetGame/CreateGame retries %d" % (figures.retries, figures.other_retries))
        print("SubmitAction given up        %d" % len(figures.unanswered))
        print("calls failed by code         %s" % (dict(sorted(figures.errors.items())) or "none"))
        print("result outbox                %d pending when play stopped, %s after %.1f s "
              "(a killed replica's claims wait out their 60 s lease)" % (
                  at_stop, "drained" if pending == 0 else "%d still pending" % pending, drained))
        result = check_database(pg, db_url, args.build_dir, figures, args.verify_workers)
        print("lost                         %d   (must be 0)" % result["lost"])
        print("applied twice                %d   (must be 0)" % result["applied twice"])
        print("retried after a commit       %d   (first attempt committed, its answer lost "
              "with the replica; the retry got the stored answer)" %
              result["retries answered from the key"])
        print("applied, answer not received %d   (client gave up at the end; allowed)" %
              result["applied, answer never received"])
        print("log entries not from test    %d   (must be 0)" %
              result["log entries not sent by the test"])
        print("games checked by replay      %d" % result["games checked"])
        print("state differs from replay    %d   (must be 0)" % result["state differs from replay"])
        print("ranked games finished        %d, rated exactly once %d" % (
            result["ranked games finished"], result["rated exactly once"]))
        print("results rated twice          %d   (must be 0)" % result["rated twice"])
        print("results not rated            %d   (must be 0)" % result["not rated"])
        ok = (result["lost"] == 0 and result["applied twice"] == 0 and
              result["log entries not sent by the test"] == 0 and
              result["state differs from replay"] == 0 and result["rated twice"] == 0 and
              result["not rated"] == 0 and len(figures.acks) > 0 and figures.kills > 0 and
              not figures.unanswered)
        internal = {what: n for what, n in figures.errors.items() if "INTERNAL" in what}
        if internal:
            print("answered INTERNAL            %s   (must be none)" % internal)
            ok = False
        if ok and args.self_check:
            ok = self_check(pg, db_url, args, figures, result)
        crashed = [s.label for s in services
                   if (s not in replicas or args.crash == "postgres") and not s.alive()]
        if crashed:
            print("services that exited on their own: %s" % ", ".join(crashed))
            ok = False
    finally:
        for s in reversed(services):
            s.stop()
        pg.destroy()
        # Logs stay only where --log-dir put them.
        shutil.rmtree(work, ignore_errors=True)
    print("crash: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
