#!/usr/bin/python3
"""Database faults, against real service binaries and a PostgreSQL server of
this test's own:

1. PostgreSQL restarted mid-load (pg_ctl stop -m fast, down for --down seconds, start again)
   under accounts, sessions and ratings: every call during the outage is OK or UNAVAILABLE (never
   INTERNAL or another code, never a crash), both services report NOT_SERVING on health while it
   is down, and each answers again and reports SERVING within 10 s of PostgreSQL being back,
   without a restart. Prints the measured recovery times.
2. A statement timeout (accounts with --db_statement_timeout=1s behind a table lock held by
   another session) gives UNAVAILABLE, and a full pool (--db_max_connections=1,
   --db_acquire_timeout=200ms, its one connection stuck behind the same lock) gives
   RESOURCE_EXHAUSTED; both carry a google.rpc.RetryInfo; the service serves again once the lock
   is gone.

usage: db_faults_test.py BUILD_DIR [--down SECONDS]
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability_lib as rl  # noqa: E402

RECOVERY_LIMIT_S = 10.0
failures = []


def check(condition, what):
    print("  %-4s %s" % ("ok" if condition else "FAIL", what), flush=True)
    if not condition:
        failures.append(what)


class Load:
    """Calls against accounts, sessions and ratings from a few threads, recording
    (time, service, code)."""

    def __init__(self, stubs, token_md, game_id):
        self.stubs = stubs
        self.md = token_md
        self.game_id = game_id
        self.events = []
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def record(self, service, code):
        with self.lock:
            self.events.append((time.time(), service, code))

    def call(self, service, fn):
        import grpc
        try:
            fn()
            self.record(service, "OK")
        except grpc.RpcError as error:
            self.record(service, error.code().name)
            if error.code().name not in ("UNAVAILABLE", "RESOURCE_EXHAUSTED"):
                print("    %s: %s %s" % (service, error.code().name, error.details()), flush=True)

    def run(self, worker):
        from parlor_client import apb, rpb, spb
        accounts, sessions, ratings = self.stubs
        n = 0
        while not self.stop.is_set():
            n += 1
            device = "faults-%d-%d-%s" % (worker, n, uuid.uuid4().hex[:6])
            self.call("accounts", lambda: accounts.AuthenticateDevice(
                apb.AuthenticateDeviceRequest(device_id=device), timeout=10))
            self.call("accounts", lambda: accounts.GetMe(apb.GetMeRequest(), metadata=self.md,
                                                         timeout=10))
            self.call("sessions", lambda: sessions.GetGame(
                spb.GetGameRequest(game_id=self.game_id), metadata=self.md, timeout=10))
            self.call("sessions", lambda: sessions.CreateBotGame(
                spb.CreateBotGameRequest(request_id=uuid.uuid4().hex, game="pico",
                                         num_players=2), metadata=self.md, timeout=10))
            self.call("ratings", lambda: ratings.GetMyRatings(rpb.GetMyRatingsRequest(),
                                                              metadata=self.md, timeout=10))
            time.sleep(0.02)


def restart_test(pg, db_url, build_dir, log_dir, keys, down_seconds):
    import grpc
    from parlor_client import agrpc, apb, rgrpc, sgrpc, spb
    access_private, access_public, service_private, service_public = keys
    services = {}
    # The client makes a game against the computer per write, far faster than a person: lift
    # the per-account game quotas, which are not what this test is about.
    quotas = {"PARLOR_MAX_BOT_GAMES_PER_HOUR": "1000000", "PARLOR_MAX_ACTIVE_GAMES": "1000000"}
    for name in ("accounts", "sessions", "ratings"):
        env = rl.service_env(db_url, name, rl.parlor_grpc.free_port(), access_public,
                             service_public, service_private,
                             access_private if name == "accounts" else None,
                             quotas if name == "sessions" else None)
        services[name] = rl.Service(build_dir, name, env, log_dir)
        services[name].start()
    try:
        channels = [grpc.insecure_channel(services[n].address, options=rl.FAST_RECONNECT)
                    for n in ("accounts", "sessions", "ratings")]
        accounts = agrpc.AccountsServiceStub(channels[0])
        sessions = sgrpc.SessionsServiceStub(channels[1])
        ratings = rgrpc.RatingsServiceStub(channels[2])
        me = accounts.AuthenticateDevice(apb.AuthenticateDeviceRequest(
            device_id="faults-test-device"), timeout=10)
        md = (("authorization", "Bearer " + me.tokens.access_token),)
        game = sessions.CreateBotGame(spb.CreateBotGameRequest(
            request_id="faults-game", game="pico", num_players=2), metadata=md, timeout=10).game

        # A WatchMyGames stream opened before the outage must still deliver moves after it
        # (sessions' LISTEN connection reconnects on its own).
        pushes = []
        stream = sessions.WatchMyGames(spb.WatchMyGamesRequest(), metadata=md)

        def pump():
            try:
                for change in stream:
                    pushes.append((time.time(), change.game.game_id, change.game.version))
            except grpc.RpcError as error:
                pushes.append((time.time(), "ended", error.code().name))
        threading.Thread(target=pump, daemon=True).start()

        load = Load((accounts, sessions, ratings), md, game.game_id)
        health = []  # (time, service, status)

        def poll_health():
            while not load.stop.is_set():
                for name, service in services.items():
                    health.append((time.time(), name, rl.health(service.address)))
                time.sleep(0.1)

        threads = [threading.Thread(target=load.run, args=(w,)) for w in range(3)]
        threads.append(threading.Thread(target=poll_health))
        for t in threads:
            t.start()
        time.sleep(2)
        t_down = time.time()
        pg.stop("fast")
        print("  PostgreSQL stopped (fast shutdown); down for %.0f s" % down_seconds, flush=True)
        time.sleep(down_seconds)
        t_start = time.time()
        pg.start()
        t_up = time.time()
        print("  PostgreSQL started again (pg_ctl start took %.1f s)" % (t_up - t_start),
              flush=True)
        # Run until both services have answered OK and reported SERVING again, at most 15 s,
        # then 2 s more to see they stay healthy.
        while time.time() < t_up + 15:
            recovered = all(
                any(t > t_up and s == name and c == "OK" for t, s, c in load.events[-400:]) and
                any(t > t_up and s == name and h == rl.parlor_grpc.SERVING
                    for t, s, h in health[-40:])
                for name in services)
            if recovered:
                break
            time.sleep(0.1)
        time.sleep(2)
        load.stop.set()
        for t in threads:
            t.join()
        got = sessions.GetGame(spb.GetGameRequest(game_id=game.game_id), metadata=md, timeout=10)
        submit = spb.SubmitActionRequest(game_id=game.game_id, expected_version=got.game.version,
                                         idempotency_key=uuid.uuid4().hex)
        submit.action.CopyFrom(got.legal_actions[0])
        moved = time.time()
        version = sessions.SubmitAction(submit, metadata=md, timeout=10).game.version
        while time.time() < moved + 5 and not any(
                t >= moved and g == game.game_id and v >= version for t, g, v in pushes):
            time.sleep(0.05)
        pushed = [t for t, g, v in pushes if t >= moved and g == game.game_id and v >= version]
        ended = [v for _, g, v in pushes if g == "ended"]
        check(bool(pushed) and not ended,
              "sessions: a WatchMyGames stream opened before the outage delivers a move made "
              "after it (%s)" % ("in %.2f s" % (min(pushed) - moved) if pushed else
                                 "stream ended: %s" % ended if ended else "nothing in 5 s"))
        stream.cancel()
        for c in channels:
            c.close()

        print("  calls by phase and code:")
        phases = {"before": lambda t: t < t_down, "outage": lambda t: t_down <= t < t_up,
                  "after": lambda t: t >= t_up}
        for name in services:
            for phase, within in phases.items():
                codes = collections.Counter(c for t, s, c in load.events if s == name and
                                            within(t))
                print("    %-8s %-6s %s" % (name, phase, dict(sorted(codes.items()))))
        for name, service in services.items():
            codes = collections.Counter(c for _, s, c in load.events if s == name)
            check(set(codes) <= {"OK", "UNAVAILABLE"},
                  "%s: only OK and UNAVAILABLE, never INTERNAL or another code (%s)" %
                  (name, ", ".join("%s %d" % kv for kv in sorted(codes.items()))))
            outage = collections.Counter(c for t, s, c in load.events
                                         if s == name and t_down + 0.5 <= t < t_up)
            # (A call that needs no database, e.g. a token check, may still answer OK.)
            check(outage.get("UNAVAILABLE", 0) > 0,
                  "%s: UNAVAILABLE while PostgreSQL is down (%d of %d calls)" %
                  (name, outage.get("UNAVAILABLE", 0), sum(outage.values())))
            not_serving = [t for t, s, h in health if s == name and t_down <= t < t_up and
                           h == 2]
            check(bool(not_serving),
                  "%s: health NOT_SERVING during the outage (first %.1f s after the stop)" %
                  (name, (min(not_serving) - t_down) if not_serving else -1))
            first_ok = min([t for t, s, c in load.events if s == name and c == "OK" and
                            t >= t_up] or [float("inf")])
            serving = min([t for t, s, h in health if s == name and t >= t_up and
                           h == rl.parlor_grpc.SERVING] or [float("inf")])
            print("  %s recovery after PostgreSQL is back: first OK call %.2f s, health SERVING"
                  " %.2f s" % (name, first_ok - t_up, serving - t_up), flush=True)
            check(first_ok - t_up <= RECOVERY_LIMIT_S and serving - t_up <= RECOVERY_LIMIT_S,
                  "%s: recovered by itself within %.0f s" % (name, RECOVERY_LIMIT_S))
            last = [c for t, s, c in load.events if s == name and t >= first_ok + 1]
            check(bool(last) and all(c == "OK" for c in last),
                  "%s: every call OK from 1 s after recovery on (%d calls)" % (name, len(last)))
            check(service.alive(), "%s: the process never exited (same pid, no restart)" % name)
    finally:
        for service in services.values():
            service.stop()


def timeout_and_pool_test(pg, db_url, build_dir, log_dir, keys):
    import grpc
    from parlor_client import agrpc, apb
    access_private, access_public, service_private, service_public = keys
    env = rl.service_env(db_url, "accounts", rl.parlor_grpc.free_port(), access_public,
                         service_public, service_private, access_private,
                         extra={"PARLOR_DB_MAX_CONNECTIONS": "1",
                                "PARLOR_DB_ACQUIRE_TIMEOUT": "200ms",
                                "PARLOR_DB_STATEMENT_TIMEOUT": "1s"})
    service = rl.Service(build_dir, "accounts", env, log_dir, label="accounts-small-pool")
    service.start()
    locker = None
    try:
        channel = grpc.insecure_channel(service.address)
        accounts = agrpc.AccountsServiceStub(channel)
        me = accounts.AuthenticateDevice(apb.AuthenticateDeviceRequest(
            device_id="pool-test-device"), timeout=10)
        md = (("authorization", "Bearer " + me.tokens.access_token),)
        # Another session holds the accounts table for 4 s: every statement on it waits.
        locker = subprocess.Popen(
            ["psql", "-X", "-q", db_url, "-c",
             "BEGIN; LOCK TABLE accounts.accounts IN ACCESS EXCLUSIVE MODE; "
             "SELECT pg_sleep(4); COMMIT;"], stdout=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline and not pg.psql(db_url, (
                "SELECT count(*) FROM pg_locks WHERE relation = 'accounts.accounts'::regclass "
                "AND mode = 'AccessExclusiveLock' AND granted")).strip() == "1":
            time.sleep(0.05)
        results = {}

        def get_me(label):
            started = time.time()
            try:
                accounts.GetMe(apb.GetMeRequest(), metadata=md, timeout=5)
                results[label] = ("OK", None, time.time() - started, "")
            except grpc.RpcError as error:
                results[label] = (error.code().name, rl.retry_delay(error),
                                  time.time() - started, error.details())

        slow = threading.Thread(target=get_me, args=("statement",))
        slow.start()
        time.sleep(0.3)  # the first call now holds the pool's only connection, waiting
        get_me("pool")
        slow.join()
        for label, what, want in (("statement", "statement timeout (1s)", "UNAVAILABLE"),
                                  ("pool", "full pool (1 connection, 200ms wait)",
                                   "RESOURCE_EXHAUSTED")):
            code, delay, seconds, details = results[label]
            print("  %s: %s after %.2f s, retry delay %s, \"%s\"" % (
                what, code, seconds, "%.1f s" % delay if delay is not None else "none", details))
            check(code == want and delay is not None and delay > 0,
                  "%s gives %s with a google.rpc.RetryInfo" % (what, want))
        locker.wait(timeout=10)
        get_me("after")
        check(results["after"][0] == "OK", "the service answers OK once the lock is released")
        check(service.alive(), "the service never exited")
        channel.close()
    finally:
        if locker is not None and locker.poll() is None:
            locker.kill()
        service.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--down", type=float, default=3.0)
    parser.add_argument("--pgbouncer", action="store_true",
                        help="services reach PostgreSQL through PgBouncer in transaction mode")
    args = parser.parse_args()
    os.environ.setdefault("PARLOR_PY_STUBS_DIR",
                          os.path.join(args.build_dir, "gen", "python-dbfaults"))
    import parlor_client  # noqa: F401  (generates the stubs)
    work = rl.work_dir("parlor-dbfaults-")
    log_dir = os.path.join(work, "logs")
    os.makedirs(log_dir)
    print("db faults: logs in %s" % log_dir, flush=True)
    pg = rl.Postgres(work)
    print("db faults: PostgreSQL %s" % pg.settings(), flush=True)
    try:
        if args.pgbouncer:
            bouncer = rl.use_pgbouncer(pg)
            print("db faults: services reach PostgreSQL via %s (transaction pooling), port %d"
                  % (bouncer.version, bouncer.port), flush=True)
        db_url = rl.parlor_stack.create_database(pg.conninfo, "faults")
        access_private, access_public = rl.parlor_stack.keygen(args.build_dir)
        service_private, service_public = rl.parlor_stack.keygen(args.build_dir)
        keys = (access_private, access_public, service_private, service_public)
        print("== statement timeout and full pool (accounts)", flush=True)
        timeout_and_pool_test(pg, db_url, args.build_dir, log_dir, keys)
        print("== PostgreSQL restart under load (accounts, sessions, ratings)", flush=True)
        restart_test(pg, db_url, args.build_dir, log_dir, keys, args.down)
    finally:
        pg.destroy()
        if failures:  # the services' last words, before the work directory goes
            for name in sorted(os.listdir(log_dir)):
                with open(os.path.join(log_dir, name), errors="replace") as f:
                    print("--- %s (last lines)\n%s" % (name, "".join(f.readlines()[-15:])))
        shutil.rmtree(work, ignore_errors=True)
    print("db faults: %s" % ("PASS" if not failures else "FAIL (%d checks)" % len(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
