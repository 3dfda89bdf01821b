#!/usr/bin/python3
"""Create + resign flood from one account, run by hand: what one player can make the sessions
service store in a minute.

Starts the back end (clients/python/parlor_stack.py) on a throwaway PostgreSQL with its default
durability (fsync, synchronous_commit and full_page_writes on), with the sessions settings of
k8s/base/config.env (quotas, computer moves per request) unless --no-shipped-settings, signs up
one account, and for --seconds runs --loops threads of: CreateBotGame (KA'DICE, 4 seats,
max_rounds=--max-rounds, refused above 100 against the computer, then retried with 100), then
Resign. A refusal with RetryInfo is retried after min(delay, 1 s). Prints the calls made and
refused, the games and log entries stored, and the database's growth.

usage: flood.py BUILD_DIR [--seconds 60] [--loops 2] [--max-rounds 500] [--no-shipped-settings]
"""
import argparse
import os
import re
import shutil
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reliability"))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

SESSIONS_SETTINGS = re.compile(r"^PARLOR_(MAX_ACTIVE_GAMES|MAX_BOT_GAMES_PER_HOUR|"
                               r"MAX_ACTIONS_PER_DAY|AUTO_MOVES_PER_REQUEST|RATE_LIMIT_\w+)$")


def shipped_sessions_settings():
    settings = {}
    with open(os.path.join(ROOT, "k8s", "base", "config.env")) as f:
        for line in f:
            m = re.match(r"^(PARLOR_\w+)=(.*)$", line.strip())
            if m and SESSIONS_SETTINGS.match(m.group(1)):
                settings[m.group(1)] = m.group(2)
    return settings


def retry_delay(error):
    import reliability_lib
    delay = reliability_lib.retry_delay(error)
    return min(delay if delay else 0.05, 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--loops", type=int, default=2)
    parser.add_argument("--max-rounds", default="500")
    parser.add_argument("--no-shipped-settings", action="store_true")
    args = parser.parse_args()
    import grpc
    import parlor_stack
    import reliability_lib
    from parlor_client import agrpc, apb, sgrpc, spb

    work = reliability_lib.work_dir("parlor-flood-")
    pg = None
    try:
        pg = reliability_lib.Postgres(work, durable=True)
        db_url = parlor_stack.create_database(pg.conninfo, "flood")
        extra = {} if args.no_shipped_settings else shipped_sessions_settings()
        print("flood: PostgreSQL %s; sessions settings: %s" %
              (pg.settings(), " ".join("%s=%s" % kv for kv in sorted(extra.items())) or
               "(binary defaults)"), flush=True)
        with parlor_stack.Stack(os.path.abspath(args.build_dir), db_url, os.path.join(work, "logs"),
                                extra_env={"sessions": extra}) as stack:
            accounts = agrpc.AccountsServiceStub(grpc.insecure_channel(stack.address("accounts")))
            sessions = sgrpc.SessionsServiceStub(grpc.insecure_channel(stack.address("sessions")))
            answer = accounts.AuthenticateDevice(
                apb.AuthenticateDeviceRequest(device_id="flood-" + uuid.uuid4().hex), timeout=30)
            md = (("authorization", "Bearer " + answer.tokens.access_token),)

            def size():
                row = pg.psql(db_url, "SELECT pg_database_size(current_database()), "
                                      "(SELECT count(*) FROM sessions.games), "
                                      "(SELECT count(*) FROM sessions.actions)").split("\t")
                return [int(x) for x in row]

            before = size()
            counts = {}
            lock = threading.Lock()
            stop = threading.Event()

            def count(what):
                with lock:
                    counts[what] = counts.get(what, 0) + 1

            def loop():
                rounds = args.max_rounds
                while not stop.is_set():
                    request = spb.CreateBotGameRequest(request_id=uuid.uuid4().hex, game="kadice",
                                                       num_players=4, my_seat=0)
                    request.options["max_rounds"] = rounds
                    try:
                        game = sessions.CreateBotGame(request, metadata=md, timeout=60).game
                        count("CreateBotGame ok")
                    except grpc.RpcError as error:
                        count("CreateBotGame %s" % error.code().name)
                        if error.code() == grpc.StatusCode.INVALID_ARGUMENT and rounds != "100":
                            print("flood: %s; retrying with max_rounds=100" % error.details(),
                                  flush=True)
                            rounds = "100"
                        else:
                            time.sleep(retry_delay(error))
                        continue
                    started = time.monotonic()
                    try:
                        sessions.Resign(spb.ResignRequest(game_id=game.game_id), metadata=md,
                                        timeout=60)
                        count("Resign ok")
                    except grpc.RpcError as error:
                        count("Resign %s" % error.code().name)
                    with lock:
                        counts["resign seconds"] = (counts.get("resign seconds", 0) +
                                                    time.monotonic() - started)

            threads = [threading.Thread(target=loop, daemon=True) for _ in range(args.loops)]
            started = time.monotonic()
            for t in threads:
                t.start()
            time.sleep(args.seconds)
            stop.set()
            for t in threads:
                t.join(timeout=120)
            elapsed = time.monotonic() - started
            after = size()
            resigns = counts.pop("resign seconds", 0)
            print("flood: %.0f s, %d loops, one account" % (elapsed, args.loops))
            for what in sorted(counts):
                print("  %-32s %d" % (what, counts[what]))
            if counts.get("Resign ok"):
                print("  mean Resign time              %.1f ms" %
                      (1000 * resigns / counts["Resign ok"]))
            print("  games stored                  %d" % (after[1] - before[1]))
            print("  action rows stored            %d" % (after[2] - before[2]))
            print("  database growth               %.1f MB" % ((after[0] - before[0]) / 1e6))
    finally:
        if pg is not None:
            pg.destroy()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
