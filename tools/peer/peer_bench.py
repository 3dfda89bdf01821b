#!/usr/bin/env python3
"""The peer's side of the durable-move benchmark (docs/BENCHMARKS.md).

Two-player Pico on boardgame.io 0.50.2 with bgio-postgres 1.0.16 (tools/peer/pico.js), the system
a team might pick instead of Parlor, on the PostgreSQL cluster given, driven by its own client
(drive.js), measured as parlor-sessions-load measures Parlor: the machine's busy share over 2 s
before the run (above 15 % no ratio is printed), then for each count of concurrent games the same
pgbench baseline (one single-row UPDATE + one INSERT per transaction, as many clients as games),
the moves, and pgbench again; the ratio is moves/s over the mean of the two baselines. Then, per
move and per pgbench transaction: the CPU of the peer's server, PostgreSQL, the client and every
other process, PostgreSQL commits and WAL bytes.

    tools/peer/peer_bench.py --db_url="host=DIR port=N user=postgres" [--games=1,8,32]
        [--seconds=10] [--json_out=FILE]
    tools/peer/peer_bench.py --compare PEER_JSON PARLOR_LOG...   # the two side by side

The database `peer_bench` is made afresh on the cluster (and dropped after). NODE_PATH must name
the node_modules that `scripts/dev bench --peer` installs from tools/peer/package.json.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
MAX_BUSY_PERCENT_FOR_RATIO = 15
DATABASE = "peer_bench"
TICK = os.sysconf("SC_CLK_TCK")
# PostgreSQL 15 flushes an idle backend's statistics after 10 s.
STATS_FLUSH_SECONDS = 11


def psql(conninfo, sql):
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", conninfo, "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def process_seconds(pid, with_reaped_children=False):
    """User + system CPU seconds of a live process (and of its reaped children), or 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if with_reaped_children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / TICK


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def postgres_seconds(postmaster):
    total = process_seconds(postmaster, with_reaped_children=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and parent_of(int(entry)) == postmaster:
            total += process_seconds(int(entry))
    return total


def machine_ticks():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = values
    busy = user + nice + system + irq + softirq + steal
    return busy, busy + idle + iowait


def busy_share_before():
    busy0, total0 = machine_ticks()
    time.sleep(2)
    busy1, total1 = machine_ticks()
    return 100.0 * (busy1 - busy0) / max(1, total1 - total0)


class Cpu:
    """CPU seconds so far of the server, PostgreSQL and the machine; the client's come from wait4."""

    def __init__(self, server_pid, postmaster):
        self.server = process_seconds(server_pid)
        self.postgres = postgres_seconds(postmaster)
        busy, total = machine_ticks()
        self.busy = busy / TICK
        self.total = total / TICK


def per_unit(a, b, client_seconds, units, with_server):
    units = max(1, units)
    server = (b.server - a.server) if with_server else 0.0
    postgres = b.postgres - a.postgres
    busy = b.busy - a.busy
    other = max(0.0, busy - server - postgres - client_seconds)
    return {
        "server_us": 1e6 * server / units,
        "postgres_us": 1e6 * postgres / units,
        "client_us": 1e6 * client_seconds / units,
        "other_us": 1e6 * other / units,
        "busy_percent": 100.0 * busy / max(1e-9, b.total - a.total),
    }


def run_child(argv, **kwargs):
    """Runs argv to its end; returns (stdout, CPU seconds of it and its children)."""
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, **kwargs)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited with {child.returncode}:\n{out}")
    return out, usage.ru_utime + usage.ru_stime


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def pgbench(conninfo, clients, seconds):
    """pgbench's UPDATE + INSERT at `clients` clients: (tps, p50 ms, p99 ms, count, CPU s).

    The same tables, script and flags as Baseline() in services/sessions/load/sessions_load.cc:
    change both together, or the two systems' ratios stop being comparable.
    """
    psql(conninfo, "DROP TABLE IF EXISTS load_rows, load_log; "
         "CREATE TABLE load_rows (id integer PRIMARY KEY, version bigint NOT NULL); "
         "INSERT INTO load_rows SELECT g, 0 FROM generate_series(1, 1000) g; "
         "CREATE TABLE load_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, row_id integer "
         "NOT NULL, version bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())")
    with tempfile.TemporaryDirectory(prefix="peer-pgbench.") as scratch:
        with open(os.path.join(scratch, "txn.sql"), "w") as f:
            # Each client works on its own rows, as each game is its own row.
            f.write("\\set id random(1, 1000)\nBEGIN;\n"
                    "UPDATE load_rows SET version = version + 1 WHERE id = :id;\n"
                    "INSERT INTO load_log (row_id, version) VALUES (:id, 1);\nEND;\n")
        _, cpu = run_child([PGBENCH, "-n", "-f", "txn.sql", "-c", str(clients), "-j",
                            str(min(clients, 4)), "-T", str(seconds), "-l", "--log-prefix=tx",
                            conninfo], cwd=scratch, stderr=subprocess.STDOUT)
        latencies = []
        for name in os.listdir(scratch):
            if name.startswith("tx."):
                with open(os.path.join(scratch, name)) as log:
                    latencies += [int(line.split()[2]) / 1000.0 for line in log if line.strip()]
    latencies.sort()
    return {"per_second": len(latencies) / seconds, "p50_ms": percentile(latencies, 0.5),
            "p99_ms": percentile(latencies, 0.99), "count": len(latencies), "cpu_s": cpu}


def wal_lsn_bytes(conninfo):
    return int(psql(conninfo, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"))


def commits(conninfo):
    return int(psql(conninfo, "SELECT xact_commit FROM pg_stat_database "
                    f"WHERE datname = '{DATABASE}'"))


def listening_port(process, output, seconds=30):
    """The port the peer server prints once it listens (server.js binds port 0)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        output.seek(0)
        m = re.search(r"^peer server listening on (\d+)$", output.read(), re.MULTILINE)
        if m:
            return int(m[1])
        if process.poll() is not None:
            raise RuntimeError(f"the peer server exited with {process.returncode}")
        time.sleep(0.1)
    raise RuntimeError(f"the peer server did not listen within {seconds} s")


def conninfo_fields(conninfo):
    return dict(field.split("=", 1) for field in conninfo.split())


def bench(args):
    fields = conninfo_fields(args.db_url)
    cluster = f"{args.db_url} dbname=postgres"
    db = f"{args.db_url} dbname={DATABASE}"
    counts = [int(n) for n in args.games.split(",")]
    busy_before = busy_share_before()
    load_before = " ".join(open("/proc/loadavg").read().split()[:3])
    settings = {name: psql(cluster, f"SHOW {name}")
                for name in ("fsync", "synchronous_commit", "full_page_writes")}
    with open(os.path.join(psql(cluster, "SHOW data_directory"), "postmaster.pid")) as f:
        postmaster = int(f.readline())
    durable = all(v == "on" for v in settings.values())
    print("peer: boardgame.io 0.50.2 + bgio-postgres 1.0.16 (tools/peer), two-player Pico; "
          f"{args.seconds} s per count")
    print("cluster: " + ", ".join(f"{k} {v}" for k, v in settings.items()) + " — " +
          ("PostgreSQL's default durability" if durable else
           "NOT durable: a crash of PostgreSQL loses acknowledged moves"))
    print(f"machine before the run: {busy_before:.0f} % busy over 2 s (all {os.cpu_count()} "
          f"cores), load average {load_before}")
    ratios = busy_before <= MAX_BUSY_PERCENT_FOR_RATIO
    if not ratios:
        print(f"machine busy ({busy_before:.0f} %) before the run: no ratio")
    psql(cluster, f"DROP DATABASE IF EXISTS {DATABASE}")
    psql(cluster, f"CREATE DATABASE {DATABASE}")
    node = shutil.which("node") or "node"
    # As the peer runs in production: boardgame.io logs nothing per move with NODE_ENV=production.
    env = dict(os.environ, NODE_ENV="production")
    server_log = tempfile.TemporaryFile(mode="w+")
    server = subprocess.Popen(
        [node, os.path.join(HERE, "server.js"), f"--db_host={fields['host']}",
         f"--db_port={fields['port']}", f"--db_name={DATABASE}",
         f"--db_user={fields.get('user', 'postgres')}"],
        stdout=server_log, stderr=subprocess.STDOUT, env=env)
    results = []
    try:
        port = listening_port(server, server_log)
        print(f"\n{'games':<6} | {'pgbench UPDATE+INSERT (tps, p50, p99)':<38} | "
              f"{'peer move (moves/s, p50, p99)':<38} | {'ratio':<7} | pgbench again, after "
              "the moves (the ratio is to the mean of the two)")
        for games in counts:
            results.append(bench_count(args, db, server.pid, postmaster, port, games, ratios, env))
    except RuntimeError:
        server_log.seek(0)
        print("the peer server's output:\n" + server_log.read()[-4000:], file=sys.stderr)
        raise
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        psql(cluster, f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    print("\nper unit of work (a move, or a pgbench transaction): CPU in us of the peer's server, "
          "PostgreSQL,\n  the client (drive.js, or pgbench) and every other process; busy: the "
          "machine's busy share; commits\n  and WAL bytes per unit (PostgreSQL's commits and WAL "
          "position over the run)")
    print(f"{'games':<6} | {'unit':<9} | {'server':>7} {'postgres':>8} {'client':>7} {'else':>6}"
          f" {'busy':>5} | {'commits':>7} {'WAL B':>7}")
    for r in results:
        for unit, row in (("move", r["move_cpu"]), ("pgbench", r["pgbench_cpu"])):
            print(f"{r['games']:<6} | {unit:<9} | {row['server_us']:7.0f} {row['postgres_us']:8.0f}"
                  f" {row['client_us']:7.0f} {row['other_us']:6.0f} {row['busy_percent']:4.0f}%"
                  f" | {row.get('commits', 0):7.2f} {row.get('wal_bytes', 0):7.0f}")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"settings": settings, "busy_before": busy_before, "ratios": ratios,
                       "results": results}, f, indent=1)
    return 0 if all(r["errors"] == 0 for r in results) else 1


def bench_count(args, db, server_pid, postmaster, port, games, ratios, env):
    cpu0 = Cpu(server_pid, postmaster)
    wal0 = wal_lsn_bytes(db)
    before = pgbench(db, games, args.seconds)
    cpu1 = Cpu(server_pid, postmaster)
    wal1 = wal_lsn_bytes(db)
    time.sleep(STATS_FLUSH_SECONDS)  # every backend's commits counted before the moves
    commits1 = commits(db)
    cpu_moves0 = Cpu(server_pid, postmaster)
    out, client_cpu = run_child(
        ["node", os.path.join(HERE, "drive.js"), f"--server=127.0.0.1:{port}",
         f"--games={games}", f"--seconds={args.seconds}"], stderr=subprocess.STDOUT, env=env)
    cpu2 = Cpu(server_pid, postmaster)
    wal2 = wal_lsn_bytes(db)
    moves = json.loads(out.strip().splitlines()[-1])
    time.sleep(STATS_FLUSH_SECONDS)
    commits2 = commits(db)
    after = pgbench(db, games, args.seconds)
    mean_baseline = (before["per_second"] + after["per_second"]) / 2
    ratio = (f"{100.0 * moves['moves_per_second'] / mean_baseline:5.1f} %" if ratios else "   -   ")
    print(f"{games:<6} | {before['per_second']:5.0f} tps  p50 {before['p50_ms']:5.2f} ms  p99 "
          f"{before['p99_ms']:5.2f} ms | {moves['moves_per_second']:5.0f} /s  p50 "
          f"{moves['p50_ms']:5.2f} ms  p99 {moves['p99_ms']:6.2f} ms | {ratio} | "
          f"{after['per_second']:5.0f} tps", flush=True)
    if moves["errors"]:
        print(f"       {moves['errors']} games broke off (a move unanswered for 10 s)")
    move_cpu = per_unit(cpu_moves0, cpu2, client_cpu, moves["moves"], True)
    move_cpu["commits"] = (commits2 - commits1) / max(1, moves["moves"])
    move_cpu["wal_bytes"] = (wal2 - wal1) / max(1, moves["moves"])
    pgbench_cpu = per_unit(cpu0, cpu1, before["cpu_s"], before["count"], False)
    pgbench_cpu["commits"] = 1.0
    pgbench_cpu["wal_bytes"] = (wal1 - wal0) / max(1, before["count"])
    return {"games": games, "pgbench_before": before, "pgbench_after": after, "moves": moves,
            "ratio_percent": 100.0 * moves["moves_per_second"] / mean_baseline if ratios else None,
            "move_cpu": move_cpu, "pgbench_cpu": pgbench_cpu, "errors": moves["errors"]}


# A line of parlor-sessions-load's table: "32     |  8569 tps ... |  2106 /s  p50 9.75 ms  p99
# 33.53 ms | 24.4 % | ...".
PARLOR_LINE = re.compile(r"^(\d+) +\|.*?\| +(\d+) /s +p50 +([\d.]+) ms +p99 +([\d.]+) ms")


def compare(peer_json, parlor_logs):
    with open(peer_json) as f:
        peer = {r["games"]: r for r in json.load(f)["results"]}
    parlor = {}
    for path in parlor_logs:
        with open(path) as f:
            for line in f:
                m = PARLOR_LINE.match(line)
                if m:
                    parlor.setdefault(int(m[1]), []).append((int(m[2]), float(m[4])))
    print("\nParlor (parlor-sessions-load --mode=pvp, each run) against the peer, durable, "
          "two-player Pico:")
    print(f"{'games':<6} | {'Parlor moves/s, p99 (each run)':<36} | {'peer moves/s, p99':<17} | "
          "Parlor / peer (moves/s; p99)")
    for games in sorted(set(parlor) & set(peer)):
        runs = parlor[games]
        theirs = peer[games]["moves"]
        mine = ", ".join(f"{rate:,} / {p99:.1f} ms" for rate, p99 in runs)
        rate = sum(r for r, _ in runs) / len(runs)
        p99 = sum(p for _, p in runs) / len(runs)
        times = rate / max(1e-9, theirs["moves_per_second"])
        faster = theirs["p99_ms"] / max(1e-9, p99)
        print(f"{games:<6} | {mine:<36} | {theirs['moves_per_second']:6,.0f} / "
              f"{theirs['p99_ms']:5.1f} ms | {times:4.1f}x the moves/s; p99 {faster:4.1f}x lower")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db_url", help="libpq conninfo of the cluster (no dbname)")
    parser.add_argument("--games", default="1,8,32")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--json_out", help="write the figures here as JSON")
    parser.add_argument("--compare", nargs="+", metavar="FILE",
                        help="PEER_JSON PARLOR_LOG...: print the two side by side and stop")
    args = parser.parse_args()
    if args.compare:
        if len(args.compare) < 2:
            parser.error("--compare takes the peer's JSON and at least one Parlor log")
        return compare(args.compare[0], args.compare[1:])
    if not args.db_url:
        parser.error("--db_url is required")
    for n in args.games.split(","):
        if not n.isdigit() or not 1 <= int(n) <= 1000:
            parser.error(f"--games: '{n}' is not a count from 1 to 1000")
    if args.seconds < 1:
        parser.error("--seconds must be at least 1")
    return bench(args)


if __name__ == "__main__":
    sys.exit(main())
