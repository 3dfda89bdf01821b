"""Starts the whole Parlor back end (accounts, sessions, matchmaking, ratings) on loopback
against a PostgreSQL server, wired to each other as in production: matchmaking calls accounts
and sessions, sessions reports results to ratings (--ratings_address). Used by the five-games
client test and the load tool; scripts/dev demo starts the same set itself.

Binaries: <build>/services/<name>/parlor-<name>, or PARLOR_BIN_<NAME> (e.g. PARLOR_BIN_SESSIONS)
when set; the token tool is <build>/services/common/core/parlor-token or PARLOR_BIN_TOKEN.
"""
import os
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import parlor_grpc  # noqa: E402

SERVICES = ("accounts", "ratings", "sessions", "matchmaking")
# The fifth service, started when asked for (Stack(..., services=ALL_SERVICES)): sessions and
# matchmaking then hand their pushes to it instead of logging them.
ALL_SERVICES = SERVICES + ("notifications",)


def binary(build_dir, name):
    override = os.environ.get("PARLOR_BIN_" + name.upper())
    if override:
        return override
    if name == "token":
        return os.path.join(build_dir, "services", "common", "core", "parlor-token")
    if name == "engine":
        return os.path.join(build_dir, "engine", "tool", "parlor-engine")
    return os.path.join(build_dir, "services", name, "parlor-" + name)


def keygen(build_dir):
    pairs = dict(line.split("=", 1) for line in subprocess.check_output(
        [binary(build_dir, "token"), "keygen"], text=True).split())
    return pairs["PRIVATE_KEY"], pairs["PUBLIC_KEY"]


def create_database(server_conninfo, prefix="e2e"):
    name = "%s_%s" % (prefix, uuid.uuid4().hex[:12])
    subprocess.check_call(["psql", "-q", server_conninfo + " dbname=postgres", "-c",
                           "CREATE DATABASE %s" % name])
    return server_conninfo + " dbname=" + name


class PortTaken(RuntimeError):
    """A service exited because its chosen port was taken before it could bind it."""


class Stack:
    """The four services (or `services`) as child processes. Use as a context manager."""

    def __init__(self, build_dir, db_url, log_dir, extra_env=None, services=SERVICES):
        self.services = services
        self.build_dir = build_dir
        self.db_url = db_url
        self.log_dir = log_dir
        self.extra_env = extra_env or {}
        self.processes = []
        self.grpc = {}
        self.metrics = {}

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def address(self, name):
        return "127.0.0.1:%d" % self.grpc[name]

    def start(self, attempts=3):
        """Starts every service; when one cannot bind its port (another test took it between
        choosing and binding), stops what started and tries again on fresh ports."""
        for attempt in range(attempts):
            try:
                self._start_once()
                return
            except PortTaken:
                self.stop()
                if attempt + 1 == attempts:
                    raise

    def _start_once(self):
        os.makedirs(self.log_dir, exist_ok=True)
        access_private, access_public = keygen(self.build_dir)
        self.service_private, service_public = keygen(self.build_dir)
        for name in self.services:
            self.grpc[name] = parlor_grpc.free_port()
            self.metrics[name] = parlor_grpc.free_port()
        peers = {"PARLOR_%s_ADDRESS" % n.upper(): self.address(n) for n in self.services}
        for name in self.services:
            env = dict(os.environ)
            env.update(peers)
            env.update({
                "PARLOR_DB_URL": self.db_url,
                "PARLOR_LISTEN_HOST": "127.0.0.1",
                "PARLOR_GRPC_PORT": str(self.grpc[name]),
                "PARLOR_METRICS_PORT": str(self.metrics[name]),
                "PARLOR_MIGRATIONS_DIR": os.path.join(ROOT, "migrations"),
                "PARLOR_ACCESS_TOKEN_PUBLIC_KEY": access_public,
                "PARLOR_SERVICE_TOKEN_PUBLIC_KEY": service_public,
                "PARLOR_SERVICE_TOKEN_PRIVATE_KEY": self.service_private,
                "PARLOR_DRAIN_TIMEOUT": "2s",
            })
            if name == "accounts":
                env["PARLOR_ACCESS_TOKEN_PRIVATE_KEY"] = access_private
            env.update(self.extra_env.get(name, {}))
            log_path = os.path.join(self.log_dir, name + ".log")
            with open(os.path.join(self.log_dir, name + "-migrate.log"), "w") as log:
                subprocess.check_call([binary(self.build_dir, name), "migrate"], env=env,
                                      stdout=log, stderr=log, stdin=subprocess.DEVNULL)
            log = open(log_path, "w")
            process = subprocess.Popen([binary(self.build_dir, name)], env=env, stdout=log,
                                       stderr=log, stdin=subprocess.DEVNULL)
            self.processes.append((name, process, log))
            try:
                parlor_grpc.wait_serving(self.address(name), timeout=60, process=process)
            except Exception:
                with open(log_path) as f:
                    tail = f.read()[-4000:]
                sys.stderr.write(tail)
                if "cannot listen" in tail or "cannot serve metrics" in tail:
                    raise PortTaken(name) from None
                raise

    def service_token(self, subject="e2e"):
        return subprocess.check_output(
            [binary(self.build_dir, "token"), "service",
             "--private_key=" + self.service_private, "--subject=" + subject], text=True).strip()

    def stop(self):
        for _, process, _ in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for name, process, log in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()
        self.processes = []


def main():
    """parlor_stack.py BUILD_DIR SERVER_CONNINFO LOG_DIR: starts the stack on a fresh database,
    prints the addresses as NAME=host:port lines, runs until SIGTERM/SIGINT."""
    import signal
    build_dir, server, log_dir = sys.argv[1:4]
    with Stack(build_dir, create_database(server, "stack"), log_dir) as stack:
        for name in SERVICES:
            print("%s=%s metrics=http://127.0.0.1:%d/metrics" % (
                name.upper(), stack.address(name), stack.metrics[name]), flush=True)
        print("SERVICE_TOKEN=%s" % stack.service_token(), flush=True)
        signal.sigwait([signal.SIGTERM, signal.SIGINT])


if __name__ == "__main__":
    import signal as _signal
    _signal.pthread_sigmask(_signal.SIG_BLOCK, [_signal.SIGTERM, _signal.SIGINT])
    main()
