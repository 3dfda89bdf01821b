#!/usr/bin/python3
"""Hostile-neighbour benchmark: how much one attacking account slows everybody else down.

Starts the whole back end (accounts, sessions, matchmaking, ratings; clients/python/
parlor_stack.py) on a PostgreSQL of its own with PostgreSQL's default durability (fsync,
synchronous_commit and full_page_writes on), with the limits of the shipped configuration
(every PARLOR_* setting of k8s/base/config.env and the literal env values of
k8s/base/sessions.yaml, except addresses and start-up settings).

  phase "quiet":  --normal-games pairs of ordinary players play pico against each other: the
                  acting player reads the game (GetGame) and moves (SubmitAction), pausing
                  --think-ms after each call; every call's latency is recorded.
  then one phase per attack, --attack-seconds each, the ordinary players playing on, while ONE
  attacking account (in a process of its own, so its client work does not slow the ordinary
  players' client) runs that attack as hard as the limits let it (a refused call is retried
  after its RetryInfo delay, at most 1 s):
    streams   --streams WatchGame(after_version=0) streams on a finished public game of
              ~--big-versions versions: half read everything and reopen, half never read;
    flood     CreateBotGame (KA'DICE, 4 seats, max_rounds=500, or the largest the server
              accepts) + Resign, in --flooders loops;
    sign-ups  AuthenticateDevice with a new device each time, from the same address;
  after each attack the servers' memory is read again --settle seconds later.

Prints per phase the ordinary players' p50/p99 (every call; GetGame and SubmitAction), the
sessions and accounts servers' CPU seconds and RSS (start, peak, end, after settling), the
database's growth, what the attacker achieved, and the targets against the quiet phase: p99
within 2x, RSS growth <= 50 MB, database growth <= 5 MB per attacking account per minute.
A benchmark: it prints figures; its exit status says
only whether it ran (0) or not.

usage: hostile.py BUILD_DIR [--quiet-seconds 30] [--attack-seconds 45] [--normal-games 8]
                  [--think-ms 400] [--streams 300] [--big-versions 12000] [--settle 15]
                  [--log-dir DIR] [--k8s-dir DIR]
"""
import argparse
import atexit
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reliability"))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))

CALL_TIMEOUT = 30.0
MAX_BACKOFF = 1.0
ATTACKS = ["streams", "flood", "sign-ups"]
# Settings of the shipped configuration the benchmark does not take over: where things are, and
# how a pod starts and stops.
NOT_APPLIED = re.compile(r"_ADDRESS$|^PARLOR_(LOG_FORMAT|MIGRATE_ON_START|UNREADY_DELAY|"
                         r"DRAIN_TIMEOUT|DB_URL|DB_DIRECT_URL|DB_PREPARED_STATEMENTS|"
                         r"LISTEN_HOST|GRPC_PORT|METRICS_PORT)$")


def shipped_settings(k8s_dir):
    """{service or "*": {PARLOR_X: value}} from k8s/base: the ConfigMap for every service
    (config.env, KEY=value lines; or an older checkout's config.yaml), the literal env entries of
    sessions.yaml for sessions. Where PostgreSQL is and how the pooler is reached are not taken
    over: the benchmark talks to its own PostgreSQL directly."""
    settings = {"*": {}, "sessions": {}}
    env_file = os.path.join(k8s_dir, "config.env")
    if os.path.exists(env_file):
        with open(env_file) as f:
            for line in f:
                m = re.match(r"^(PARLOR_\w+)=(.*)$", line.strip())
                if m and not NOT_APPLIED.search(m.group(1)):
                    settings["*"][m.group(1)] = m.group(2)
    else:
        in_data = False
        with open(os.path.join(k8s_dir, "config.yaml")) as f:
            for line in f:
                if line.startswith("data:"):
                    in_data = True
                    continue
                m = re.match(r"^  (PARLOR_\w+):\s*\"?([^\"#]*?)\"?\s*(#.*)?$", line)
                if in_data and m and not NOT_APPLIED.search(m.group(1)):
                    settings["*"][m.group(1)] = m.group(2)
    with open(os.path.join(k8s_dir, "sessions.yaml")) as f:
        for m in re.finditer(r"\{name:\s*(PARLOR_\w+),\s*value:\s*\"?([^\"}]*)\"?\}", f.read()):
            if not NOT_APPLIED.search(m.group(1)):
                settings["sessions"][m.group(1)] = m.group(2)
    return settings


def retry_delay(error):
    import reliability_lib
    delay = reliability_lib.retry_delay(error)
    return min(MAX_BACKOFF, delay if delay else 0.2)


def pick(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] * 1000 if v else float("nan")


# --------------------------------------------------------------------------------------------
# The attacker (its own process: `hostile.py --attacker SPEC_JSON RESULT_JSON`)

def attacker_main(spec_path, result_path):
    with open(spec_path) as f:
        spec = json.load(f)
    import grpc
    from parlor_client import agrpc, apb, sgrpc, spb
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    md = (("authorization", "Bearer " + spec["token"]),)
    lock = threading.Lock()
    counts = collections.Counter()

    def count(what, n=1):
        with lock:
            counts[what] += n

    sessions_channel = grpc.insecure_channel(spec["sessions"], options=[
        ("grpc.max_receive_message_length", 64 << 20)])
    sessions = sgrpc.SessionsServiceStub(sessions_channel)
    accounts_channel = grpc.insecure_channel(spec["accounts"])
    accounts = agrpc.AccountsServiceStub(accounts_channel)
    live_calls = set()

    def refused(error, what):
        count("%s refused %s" % (what, error.code().name))
        stop.wait(retry_delay(error) if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                  else 0.2)

    def reader():
        while not stop.is_set():
            call = sessions.WatchGame(spb.WatchGameRequest(game_id=spec["big_game"],
                                                           after_version=0), metadata=md)
            with lock:
                live_calls.add(call)
            count("streams opened (reading)")
            try:
                for message in call:
                    count("stream messages read")
                    if message.event.version >= spec["big_version"] or stop.is_set():
                        break
                else:
                    count("streams ended by the server")
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    refused(error, "WatchGame")
            finally:
                call.cancel()
                with lock:
                    live_calls.discard(call)

    def holder():
        while not stop.is_set():
            call = sessions.WatchGame(spb.WatchGameRequest(game_id=spec["big_game"],
                                                           after_version=0), metadata=md)
            with lock:
                live_calls.add(call)
            count("streams opened (never read)")
            # Never read; notice only when the server ends or refuses it.
            while not stop.is_set() and call.is_active():
                stop.wait(0.5)
            if not stop.is_set() and call.code() is not None:
                if call.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    count("WatchGame refused RESOURCE_EXHAUSTED")
                    stop.wait(MAX_BACKOFF)
                else:
                    count("streams ended by the server (unread) %s" % call.code().name)
            call.cancel()
            with lock:
                live_calls.discard(call)

    rounds = ["500"]  # the largest KA'DICE game the server accepts against the computer

    def flood():
        while not stop.is_set():
            request = spb.CreateBotGameRequest(request_id="flood-%s" % uuid.uuid4().hex,
                                               game="kadice", num_players=4, my_seat=0)
            request.options["max_rounds"] = rounds[0]
            try:
                game = sessions.CreateBotGame(request, metadata=md, timeout=CALL_TIMEOUT).game
                count("flood games created (max_rounds=%s)" % rounds[0])
            except grpc.RpcError as error:
                if (error.code() == grpc.StatusCode.INVALID_ARGUMENT and
                        "max_rounds" in (error.details() or "") and rounds[0] == "500"):
                    rounds[0] = "100"
                    continue
                refused(error, "CreateBotGame")
                continue
            try:
                sessions.Resign(spb.ResignRequest(game_id=game.game_id), metadata=md,
                                timeout=CALL_TIMEOUT)
                count("flood games resigned")
            except grpc.RpcError as error:
                refused(error, "Resign")

    def signups():
        while not stop.is_set():
            try:
                answer = accounts.AuthenticateDevice(apb.AuthenticateDeviceRequest(
                    device_id="hostile-%s" % uuid.uuid4().hex), timeout=CALL_TIMEOUT)
                count("sign-ups created" if answer.created else "sign-ups signed in")
            except grpc.RpcError as error:
                refused(error, "AuthenticateDevice")

    threads = []
    if "streams" in spec["attacks"]:
        for i in range(spec["streams"]):
            threads.append(threading.Thread(target=reader if i % 2 == 0 else holder,
                                            daemon=True))
    if "flood" in spec["attacks"]:
        for _ in range(spec["flooders"]):
            threads.append(threading.Thread(target=flood, daemon=True))
    if "sign-ups" in spec["attacks"]:
        threads.append(threading.Thread(target=signups, daemon=True))
    for t in threads:
        t.start()
    print("ready", flush=True)
    while not stop.is_set():
        stop.wait(0.2)
    with lock:
        for call in list(live_calls):
            call.cancel()
    for t in threads:
        t.join(timeout=5)
    with open(result_path, "w") as f:
        json.dump(dict(counts), f)
    sessions_channel.close()
    accounts_channel.close()
    return 0


# --------------------------------------------------------------------------------------------
# The ordinary players and the measurements

class Samples:
    def __init__(self):
        self.lock = threading.Lock()
        self.phase = "setup"
        self.latency = collections.defaultdict(list)  # (phase, method) -> [seconds]
        self.errors = collections.Counter()  # (phase, method, code)
        self.moves = collections.Counter()

    def add(self, phase, method, seconds, code="OK"):
        with self.lock:
            if code == "OK":
                self.latency[(phase, method)].append(seconds)
                self.latency[(phase, "all")].append(seconds)
            else:
                self.errors[(phase, method, code)] += 1
                # A failed call is a bad experience too: counted at its full duration.
                self.latency[(phase, "all")].append(seconds)


def normal_player_loop(index, stubs, pair, service_md, samples, stop, think):
    import grpc
    import random
    from parlor_client import spb
    sessions, internal = stubs
    rng = random.Random(index)
    by_account = {p["account_id"]: p for p in pair}

    def timed(method, call, request, md):
        phase = samples.phase
        started = time.perf_counter()
        try:
            answer = call(request, metadata=md, timeout=CALL_TIMEOUT)
            samples.add(phase, method, time.perf_counter() - started)
            return answer
        except grpc.RpcError as error:
            samples.add(phase, method, time.perf_counter() - started, error.code().name)
            return None

    while not stop.is_set():
        request = spb.CreateGameRequest(match_id="hostile-normal-%d-%s" % (index, uuid.uuid4().hex),
                                        game="pico", ranked=False)
        for p in pair:
            request.seats.add(account_id=p["account_id"], display_name=p["name"])
        request.time_control.per_move.limit.seconds = 86400
        try:
            game = internal.CreateGame(request, metadata=service_md, timeout=CALL_TIMEOUT).game
        except grpc.RpcError:
            stop.wait(0.5)
            continue
        while not stop.is_set() and game.status != spb.GAME_STATUS_FINISHED:
            player = by_account[game.seats[rng.choice(list(game.acting_seats))].account_id]
            got = timed("GetGame", sessions.GetGame, spb.GetGameRequest(game_id=game.game_id),
                        player["md"])
            stop.wait(think)
            if got is None:
                continue
            game = got.game
            if not got.legal_actions:
                continue
            submit = spb.SubmitActionRequest(game_id=game.game_id,
                                             expected_version=game.version,
                                             idempotency_key=uuid.uuid4().hex)
            submit.action.CopyFrom(rng.choice(list(got.legal_actions)))
            answer = timed("SubmitAction", sessions.SubmitAction, submit, player["md"])
            if answer is not None:
                game = answer.game
                with samples.lock:
                    samples.moves[samples.phase] += 1
            stop.wait(think)


class ProcessMonitor:
    """Samples each server's CPU time and RSS from /proc every 0.25 s."""

    def __init__(self, processes):
        self.processes = processes  # name -> pid
        self.tick = os.sysconf("SC_CLK_TCK")
        self.lock = threading.Lock()
        self.peak = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def read(self, pid):
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / self.tick
        rss = 0
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024.0
        return cpu, rss

    def snapshot(self):
        return {name: self.read(pid) for name, pid in self.processes.items()}

    def reset_peak(self):
        with self.lock:
            self.peak = {name: rss for name, (_, rss) in self.snapshot().items()}

    def loop(self):
        while not self.stop.wait(0.25):
            try:
                now = self.snapshot()
            except OSError:
                continue
            with self.lock:
                for name, (_, rss) in now.items():
                    self.peak[name] = max(self.peak.get(name, 0), rss)


def machine_cpu():
    """(busy, total) jiffies of the whole machine (every process, also other work)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def database_figures(pg, db_url):
    row = pg.psql(db_url, "SELECT pg_database_size(current_database()), "
                          "(SELECT count(*) FROM sessions.actions), "
                          "(SELECT count(*) FROM sessions.games), "
                          "(SELECT count(*) FROM accounts.accounts)").strip().split("\t")
    return {"bytes": int(row[0]), "actions": int(row[1]), "games": int(row[2]),
            "accounts": int(row[3])}


def sign_up(accounts, device_id):
    import grpc
    from parlor_client import apb
    while True:
        try:
            answer = accounts.AuthenticateDevice(apb.AuthenticateDeviceRequest(
                device_id=device_id), timeout=CALL_TIMEOUT)
            return {"account_id": answer.account.account_id, "name": answer.account.display_name,
                    "token": answer.tokens.access_token,
                    "md": (("authorization", "Bearer " + answer.tokens.access_token),)}
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            time.sleep(retry_delay(error))


def build_big_game(sessions, attacker, target, budget):
    """A finished public game of about `target` versions made by the attacker alone: a 4-seat
    KA'DICE game against the computer with max_rounds=500, then Resign (where the server lets
    the computer play the rest), else the attacker's own moves until `target` or `budget` s."""
    import grpc
    from parlor_client import spb
    started = time.time()
    request = spb.CreateBotGameRequest(request_id="big-" + uuid.uuid4().hex, game="kadice",
                                       num_players=4, my_seat=0,
                                       visibility=spb.VISIBILITY_PUBLIC)
    request.options["max_rounds"] = "500"
    try:
        game = sessions.CreateBotGame(request, metadata=attacker["md"], timeout=60).game
    except grpc.RpcError as error:
        print("big game: CreateBotGame max_rounds=500 refused (%s: %s); trying max_rounds=100" % (
            error.code().name, error.details()), flush=True)
        request.options["max_rounds"] = "100"
        request.request_id = "big-" + uuid.uuid4().hex
        game = sessions.CreateBotGame(request, metadata=attacker["md"], timeout=60).game
    how = "CreateBotGame + Resign"
    try:
        sessions.Resign(spb.ResignRequest(game_id=game.game_id), metadata=attacker["md"],
                        timeout=120)
    except grpc.RpcError as error:
        print("big game: Resign answered %s: %s" % (error.code().name, error.details()))
    got = sessions.GetGame(spb.GetGameRequest(game_id=game.game_id), metadata=attacker["md"],
                           timeout=60)
    if got.game.version < target // 2:
        # Resign no longer plays the game out: play it with the attacker's own moves in a new
        # game (the computer answers each).
        how = "CreateBotGame + the attacker's own SubmitAction moves"
        request.request_id = "big-" + uuid.uuid4().hex
        game = sessions.CreateBotGame(request, metadata=attacker["md"], timeout=60).game
        while time.time() - started < budget:
            got = sessions.GetGame(spb.GetGameRequest(game_id=game.game_id),
                                   metadata=attacker["md"], timeout=60)
            if got.game.status == spb.GAME_STATUS_FINISHED or got.game.version >= target:
                break
            if not got.legal_actions:
                time.sleep(0.05)
                continue
            try:
                sessions.SubmitAction(spb.SubmitActionRequest(
                    game_id=game.game_id, expected_version=got.game.version,
                    idempotency_key=uuid.uuid4().hex, action=got.legal_actions[0]),
                    metadata=attacker["md"], timeout=60)
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    time.sleep(retry_delay(error))
        got = sessions.GetGame(spb.GetGameRequest(game_id=game.game_id),
                               metadata=attacker["md"], timeout=60)
    return game.game_id, got.game.version, got.game.status, how, time.time() - started


def restart_sessions(stack, binary, log_dir):
    """Replaces the running sessions server with `binary` (same settings, same port, same
    database; its migrations applied first)."""
    import parlor_grpc
    for i, (name, process, log) in enumerate(stack.processes):
        if name != "sessions":
            continue
        with open("/proc/%d/environ" % process.pid, "rb") as f:
            env = dict(item.decode().split("=", 1) for item in f.read().split(b"\0") if item)
        process.terminate()
        process.wait(timeout=30)
        log.close()
        with open(os.path.join(log_dir, "sessions-migrate-2.log"), "w") as mlog:
            subprocess.check_call([binary, "migrate"], env=env, stdout=mlog, stderr=mlog,
                                  stdin=subprocess.DEVNULL)
        log = open(os.path.join(log_dir, "sessions-2.log"), "w")
        process = subprocess.Popen([binary], env=env, stdout=log, stderr=log,
                                   stdin=subprocess.DEVNULL)
        stack.processes[i] = (name, process, log)
        parlor_grpc.wait_serving(stack.address("sessions"), timeout=60, process=process)
        return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--quiet-seconds", type=float, default=30)
    parser.add_argument("--attack-seconds", type=float, default=45)
    parser.add_argument("--normal-games", type=int, default=8,
                        help="pairs of ordinary players, each pair playing one game at a time")
    parser.add_argument("--think-ms", type=float, default=400,
                        help="pause after each call of an ordinary player (a person reads, "
                             "then moves): keeps each player well inside the shipped limits")
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--flooders", type=int, default=2,
                        help="attacker threads running CreateBotGame + Resign")
    parser.add_argument("--big-versions", type=int, default=12000)
    parser.add_argument("--big-budget", type=float, default=120,
                        help="seconds allowed for building the big game move by move")
    parser.add_argument("--settle", type=float, default=15)
    parser.add_argument("--big-game-sessions", default="",
                        help="a sessions binary that still lets one account make a ~12,000-"
                             "version game (CreateBotGame + Resign); it makes the big game, then "
                             "the measured sessions server replaces it on the same database")
    parser.add_argument("--attacks", default=",".join(ATTACKS),
                        help="the attacks to run, in order, comma-separated (default: all)")
    parser.add_argument("--log-dir", default="")
    parser.add_argument("--k8s-dir", default=os.path.join(ROOT, "k8s", "base"),
                        help="the shipped configuration to apply (another checkout's k8s/base "
                             "to measure its binaries as shipped)")
    args = parser.parse_args()
    args.attacks = [a for a in args.attacks.split(",") if a]
    unknown = [a for a in args.attacks if a not in ATTACKS]
    if unknown or not args.attacks:
        parser.error("--attacks: choose from %s" % ", ".join(ATTACKS))
    work = tempfile.mkdtemp(prefix="parlor-hostile-")
    # Removed however the tool exits (also before the `try` below, and on SIGTERM / SIGHUP).
    atexit.register(shutil.rmtree, work, True)
    os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(work, "stubs"))
    import grpc
    import reliability_lib as rl
    import parlor_stack
    from parlor_client import agrpc, sgrpc, spb
    log_dir = args.log_dir or os.path.join(work, "logs")
    settings = shipped_settings(args.k8s_dir)
    extra = {name: dict(settings["*"], **settings.get(name, {}))
             for name in parlor_stack.SERVICES}
    pg = rl.Postgres(work, durable=True)
    stack = None
    attacker_process = None
    stop = threading.Event()
    try:
        print("hostile: PostgreSQL %s; shipped settings applied: %s" % (
            pg.settings(), " ".join("%s=%s" % kv for kv in sorted(extra["sessions"].items()))),
            flush=True)
        db_url = parlor_stack.create_database(pg.conninfo, "hostile")
        measured_sessions = parlor_stack.binary(args.build_dir, "sessions")
        if args.big_game_sessions:
            os.environ["PARLOR_BIN_SESSIONS"] = os.path.abspath(args.big_game_sessions)
        stack = parlor_stack.Stack(args.build_dir, db_url, log_dir, extra)
        stack.start()
        service_md = (("authorization", "Bearer " + stack.service_token("hostile")),)
        accounts_channel = grpc.insecure_channel(stack.address("accounts"))
        accounts = agrpc.AccountsServiceStub(accounts_channel)
        sessions_channel = grpc.insecure_channel(stack.address("sessions"))
        sessions = sgrpc.SessionsServiceStub(sessions_channel)
        internal = sgrpc.SessionsInternalServiceStub(sessions_channel)
        normal = [sign_up(accounts, "normal-%d-%s" % (i, uuid.uuid4().hex[:8]))
                  for i in range(2 * args.normal_games)]
        attacker = sign_up(accounts, "attacker-" + uuid.uuid4().hex[:8])
        big_game, big_version, big_status, how, took = build_big_game(
            sessions, attacker, args.big_versions, args.big_budget)
        if args.big_game_sessions:
            how += " on %s" % args.big_game_sessions
            os.environ["PARLOR_BIN_SESSIONS"] = measured_sessions
            restart_sessions(stack, measured_sessions, log_dir)
            sessions_channel.close()
            sessions_channel = grpc.insecure_channel(stack.address("sessions"))
            sessions = sgrpc.SessionsServiceStub(sessions_channel)
            internal = sgrpc.SessionsInternalServiceStub(sessions_channel)
        print("hostile: big public game %s: %d versions (%s) built by %s in %.1f s" % (
            big_game, big_version, "finished" if big_status == spb.GAME_STATUS_FINISHED
            else "status %d" % big_status,
            how, took), flush=True)

        samples = Samples()
        pids = {name: process.pid for name, process, _ in stack.processes}
        monitor = ProcessMonitor(pids)
        threads = [threading.Thread(target=normal_player_loop,
                                    args=(i, (sessions, internal), normal[2 * i:2 * i + 2],
                                          service_md, samples, stop, args.think_ms / 1000.0))
                   for i in range(args.normal_games)]
        for t in threads:
            t.start()
        time.sleep(2)  # warm-up, not measured

        phases = {}

        def run_phase(name, seconds):
            monitor.reset_peak()
            before = {"proc": monitor.snapshot(), "db": database_figures(pg, db_url),
                      "time": time.time(), "machine": machine_cpu(), "client": os.times()}
            samples.phase = name
            time.sleep(seconds)
            samples.phase = "after " + name
            after = {"proc": monitor.snapshot(), "db": database_figures(pg, db_url),
                     "time": time.time(), "machine": machine_cpu(), "client": os.times(),
                     "load": os.getloadavg()[0]}
            if attacker_process is not None:
                after["attacker cpu"] = monitor.read(attacker_process.pid)[0] - attacker_cpu0
            with monitor.lock:
                peak = dict(monitor.peak)
            phases[name] = (before, after, peak)

        print("hostile: quiet phase, %.0f s" % args.quiet_seconds, flush=True)
        run_phase("quiet", args.quiet_seconds)

        attack_counts, settled = {}, {}
        for attack in args.attacks:
            spec_path = os.path.join(work, "attacker.json")
            result_path = os.path.join(work, "attacker-result.json")
            with open(spec_path, "w") as f:
                json.dump({"token": attacker["token"], "sessions": stack.address("sessions"),
                           "accounts": stack.address("accounts"), "big_game": big_game,
                           "big_version": big_version, "streams": args.streams,
                           "flooders": args.flooders, "attacks": [attack]}, f)
            attacker_process = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--attacker", spec_path, result_path],
                stdout=subprocess.PIPE, text=True, env=dict(os.environ))
            attacker_process.stdout.readline()  # "ready"
            attacker_cpu0 = monitor.read(attacker_process.pid)[0]
            print("hostile: attack %s, %.0f s" % (attack, args.attack_seconds), flush=True)
            run_phase(attack, args.attack_seconds)
            attacker_process.send_signal(signal.SIGTERM)
            attacker_process.wait(timeout=60)
            attacker_process = None
            with open(result_path) as f:
                attack_counts[attack] = json.load(f)
            time.sleep(args.settle)
            settled[attack] = monitor.snapshot()
        stop.set()
        for t in threads:
            t.join(timeout=CALL_TIMEOUT + 5)
        monitor.stop.set()
        accounts_channel.close()
        sessions_channel.close()
        report(args, phases, samples, settled, attack_counts, big_version, how)
        print("logs: %s" % log_dir if args.log_dir else "")
    finally:
        stop.set()
        if attacker_process is not None:
            attacker_process.kill()
            attacker_process.wait()
        if stack is not None:
            stack.stop()
        pg.destroy()
        shutil.rmtree(work, ignore_errors=True)  # logs stay only where --log-dir put them
    return 0


def report(args, phases, samples, settled, attack_counts, big_version, how):
    print("\n== hostile-neighbour benchmark (PostgreSQL with fsync, synchronous_commit, "
          "full_page_writes on; client and servers share this machine's cores)")
    print("ordinary players: %d games at once, %.0f ms think time; one attacking account, one "
          "attack at a time, %.0f s each; the big game: %d versions (%s)" % (
              args.normal_games, args.think_ms, args.attack_seconds, big_version, how))
    quiet_p99 = pick(samples.latency[("quiet", "all")], .99)
    print("\n%-9s %8s %9s %9s %9s %7s %7s  %s" % (
        "phase", "p50 ms", "p99 ms", "GetGame", "Submit", "calls", "x quiet", "failed calls"))
    print("%-9s %8s %9s %9s %9s" % ("", "(all)", "(all)", "p99 ms", "p99 ms"))
    for name in ["quiet"] + args.attacks:
        lat = samples.latency[(name, "all")]
        failed = {"%s %s" % (k[1], k[2]): v for k, v in sorted(samples.errors.items())
                  if k[0] == name}
        print("%-9s %8.2f %9.2f %9.2f %9.2f %7d %6.2fx  %s" % (
            name, pick(lat, .5), pick(lat, .99), pick(samples.latency[(name, "GetGame")], .99),
            pick(samples.latency[(name, "SubmitAction")], .99), len(lat),
            pick(lat, .99) / quiet_p99, failed or "none"))
    print("\n%-9s %-12s %9s %11s %10s %9s %11s" % (
        "phase", "server", "CPU s", "RSS start", "RSS peak", "RSS end", "%.0f s after" %
        args.settle))
    for name in ["quiet"] + args.attacks:
        before, after, peak = phases[name]
        for server in ("sessions", "accounts"):
            print("%-9s %-12s %9.1f %11.1f %10.1f %9.1f %11s" % (
                name, server, after["proc"][server][0] - before["proc"][server][0],
                before["proc"][server][1], peak[server], after["proc"][server][1],
                "%.1f" % settled[name][server][1] if name in settled else "-"))
    print("\n%-9s %14s %12s %16s %18s" % ("phase", "machine busy", "load (1 min)",
                                          "players' client", "attacker's client"))
    print("%-9s %14s %12s %16s %18s" % ("", "% of all CPUs", "at the end", "CPU s", "CPU s"))
    for name in ["quiet"] + args.attacks:
        before, after, _ = phases[name]
        busy = after["machine"][0] - before["machine"][0]
        total = max(1, after["machine"][1] - before["machine"][1])
        client = sum(after["client"][:2]) - sum(before["client"][:2])
        print("%-9s %13.0f%% %12.2f %16.1f %18s" % (
            name, 100.0 * busy / total, after["load"], client,
            "%.1f" % after["attacker cpu"] if "attacker cpu" in after else "-"))
    print("\n%-9s %14s %9s %7s %9s" % ("phase", "DB MB/min", "actions", "games", "accounts"))
    rates = {}
    for name in ["quiet"] + args.attacks:
        before, after, _ = phases[name]
        d = {k: after["db"][k] - before["db"][k] for k in before["db"]}
        minutes = (after["time"] - before["time"]) / 60.0
        rates[name] = d["bytes"] / 1e6 / minutes
        print("%-9s %14.2f %9d %7d %9d" % (name, rates[name], d["actions"], d["games"],
                                            d["accounts"]))
    print("\nattacker, per attack:")
    for attack in args.attacks:
        print("  %s: %s" % (attack, ", ".join("%s %d" % kv for kv in
                                              sorted(attack_counts.get(attack, {}).items()))))
    print("\ntargets (each attack against the quiet phase)")
    for attack in args.attacks:
        before, after, peak = phases[attack]
        p99 = pick(samples.latency[(attack, "all")], .99)
        rss = max(peak[n] - before["proc"][n][1] for n in peak)
        kept = max(settled[attack][n][1] - before["proc"][n][1] for n in settled[attack])
        db = rates[attack] - rates["quiet"]
        print("  %-9s p99 %7.2fx (<= 2x) %-8s RSS +%6.1f MB peak, +%6.1f MB kept (<= 50 MB) %-8s "
              "DB %+6.2f MB/min over quiet (<= 5) %s" % (
                  attack, p99 / quiet_p99, "met" if p99 <= 2 * quiet_p99 else "NOT MET", rss,
                  kept, "met" if rss <= 50 else "NOT MET", db, "met" if db <= 5 else "NOT MET"))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--attacker":
        sys.exit(attacker_main(sys.argv[2], sys.argv[3]))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    sys.exit(main())
