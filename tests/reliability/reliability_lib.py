"""Shared by the reliability tests: a PostgreSQL server of the test's own (so it can be
restarted or stopped without disturbing any other test), service processes that can be
SIGKILLed and restarted on the same port, and the google.rpc.RetryInfo decoder.

Uses Debian's python3-grpcio and the stubs parlor_client generates (PARLOR_PY_STUBS_DIR).
"""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))

import parlor_grpc  # noqa: E402
import parlor_stack  # noqa: E402

PG_LIB = os.path.join(ROOT, "scripts", "lib", "postgres.sh")
PG_BIN = os.environ.get("PG_BIN_DIR", "/usr/lib/postgresql/15/bin")

# Client channels that notice a restarted server quickly (the defaults back off for up to 2 min).
FAST_RECONNECT = [("grpc.initial_reconnect_backoff_ms", 100),
                  ("grpc.min_reconnect_backoff_ms", 100),
                  ("grpc.max_reconnect_backoff_ms", 500)]


def _as_postgres(argv):
    return (["runuser", "-u", "postgres", "--"] + argv) if os.getuid() == 0 else argv


class Postgres:
    """A throwaway PostgreSQL 15 (scripts/lib/postgres.sh) that can be stopped and started again
    with its data, as a restart or failover would. Durable by default (fsync, synchronous_commit
    and full_page_writes on, PostgreSQL's defaults), so a crash test can tell a lost commit of
    the service from one the test cluster's settings threw away."""

    def __init__(self, work_dir, durable=True):
        self.dir = os.path.join(work_dir, "pg")
        self.durable = durable
        self.pooler = None
        # Stopped and removed when the process exits, also when it fails to start or the test
        # fails before its own clean-up (destroy may run twice).
        atexit.register(self.destroy)
        subprocess.check_call(["bash", "-c", 'source "$0"; pg_local_start "$1" "$2"', PG_LIB,
                               self.dir, "durable" if durable else "fast"],
                              stdout=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "conninfo")) as f:
            self.conninfo = f.read().strip()
        with open(os.path.join(self.dir, "pg_root")) as f:
            self.root = f.read().strip()
        self.data = os.path.join(self.root, "data")
        # pg_ctl start needs the original options again (socket dir, port, test settings).
        with open(os.path.join(self.data, "postmaster.opts")) as f:
            self.opts = f.read().strip()

    def stop(self, mode="fast"):
        subprocess.check_call(_as_postgres([os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-m",
                                            mode, "-w", "stop"]), stdout=subprocess.DEVNULL)

    def start(self):
        # postmaster.opts: '/usr/lib/.../postgres' "-D" "..." "-k" "..." ...: reuse its options.
        import shlex
        words = shlex.split(self.opts)[1:]
        options = []
        skip = False
        for i, w in enumerate(words):
            if skip:
                skip = False
                continue
            if w == "-D":
                skip = True
                continue
            options.append(shlex.quote(w))
        subprocess.check_call(_as_postgres([os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l",
                                            os.path.join(self.root, "server.log"), "-w", "-o",
                                            " ".join(options), "start"]),
                              stdout=subprocess.DEVNULL)

    def destroy(self):
        if getattr(self, "pooler", None) is not None:
            self.pooler.stop()
        subprocess.call(["bash", "-c", 'source "$0"; pg_local_stop "$1"', PG_LIB, self.dir],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def settings(self):
        """"fsync=on synchronous_commit=on full_page_writes=on" as the running server reports."""
        names = ("fsync", "synchronous_commit", "full_page_writes")
        return " ".join("%s=%s" % (n, self.psql(self.conninfo + " dbname=postgres",
                                                 "SHOW %s" % n).strip()) for n in names)

    def psql(self, db_url, sql):
        return subprocess.check_output(["psql", "-X", "-q", "-At", "-F", "\t", db_url, "-c", sql],
                                       text=True)


class Service:
    """One service process with a fixed gRPC port, so it can be killed and started again at the
    same address."""

    def __init__(self, build_dir, name, env, log_dir, label=None):
        self.build_dir = build_dir
        self.name = name
        self.label = label or name
        self.env = env
        self.port = int(env["PARLOR_GRPC_PORT"])
        self.log_path = os.path.join(log_dir, self.label + ".log")
        self.process = None
        self.starts = 0

    @property
    def address(self):
        return "127.0.0.1:%d" % self.port

    def start(self, wait=True):
        log = open(self.log_path, "a")
        self.process = subprocess.Popen([parlor_stack.binary(self.build_dir, self.name)],
                                        env=self.env, stdout=log, stderr=log,
                                        stdin=subprocess.DEVNULL)
        log.close()
        self.starts += 1
        if wait:
            self.wait_serving()

    def wait_serving(self, timeout=60):
        try:
            parlor_grpc.wait_serving(self.address, timeout=timeout, process=self.process)
        except Exception:
            with open(self.log_path) as f:
                sys.stderr.write(f.read()[-4000:])
            raise

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """SIGKILL: no drain, no goodbye, as a crashed node."""
        if self.alive():
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def service_env(db_url, name, port, access_public, service_public, service_private,
                access_private=None, extra=None):
    env = dict(os.environ)
    env.update({
        "PARLOR_DB_URL": db_url,
        "PARLOR_LISTEN_HOST": "127.0.0.1",
        "PARLOR_GRPC_PORT": str(port),
        "PARLOR_METRICS_PORT": "0",
        "PARLOR_MIGRATIONS_DIR": os.path.join(ROOT, "migrations"),
        "PARLOR_ACCESS_TOKEN_PUBLIC_KEY": access_public,
        "PARLOR_SERVICE_TOKEN_PUBLIC_KEY": service_public,
        "PARLOR_SERVICE_TOKEN_PRIVATE_KEY": service_private,
        "PARLOR_DRAIN_TIMEOUT": "1s",
    })
    if access_private:
        env["PARLOR_ACCESS_TOKEN_PRIVATE_KEY"] = access_private
    env.update(extra or {})
    if POOLER is not None:
        env.update(POOLER.service_env(db_url))
    return env


# Set by use_pgbouncer(): every service_env() then reaches PostgreSQL through it.
POOLER = None


def use_pgbouncer(pg):
    """Puts Debian's PgBouncer in transaction mode between every service started from now on
    and `pg` (scripts/lib/pgbouncer.py); LISTEN and session locks go to `pg` directly. Stopped by
    pg.destroy()."""
    global POOLER
    import pgbouncer
    POOLER = pgbouncer.PgBouncer(pg.conninfo, pg.root)
    pg.pooler = POOLER
    return POOLER


def work_dir(prefix):
    """A new /tmp directory for one run, removed when the process exits however it exits:
    normally, on an exception, or on SIGTERM, SIGHUP or SIGINT (which unwind as SystemExit /
    KeyboardInterrupt, so the test's `finally` stops its services and PostgreSQL first)."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, lambda number, _: sys.exit(128 + number))
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


def health(address):
    """The overall health status number of the server at address (1 SERVING, 2 NOT_SERVING), or
    None when it does not answer."""
    import grpc
    with grpc.insecure_channel(address) as channel:
        return parlor_grpc.health(channel)


def retry_delay(error):
    """The google.rpc.RetryInfo delay (seconds) of a grpc.RpcError, from the
    grpc-status-details-bin trailer, or None when it carries none."""
    import parlor_client  # late: importing it generates the stubs

    return parlor_client.retry_delay(error, default=None)
