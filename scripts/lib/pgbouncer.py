"""Debian's PgBouncer in transaction mode in front of a local test PostgreSQL (postgres.sh), as
CloudNativePG's Pooler runs it in k8s/database: each transaction may get a different server
connection, so named prepared statements and session state do not survive between them.

    bouncer = PgBouncer(server_conninfo, pg_root)   # pg_root: the server's /tmp/parlor-pg.* dir
    env.update(bouncer.service_env(db_url))         # PARLOR_DB_URL via the pooler, and the rest
    ...
    bouncer.stop()

service_env() points PARLOR_DB_URL at the pooler, keeps the direct URL for LISTEN and session
locks (PARLOR_DB_DIRECT_URL) and turns named prepared statements off, which is what the services
need behind such a pooler (docs/OPERATIONS.md "Database").
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parlor_grpc  # noqa: E402


class PgBouncer:
    def __init__(self, server_conninfo, pg_root, pool_size=20):
        binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        if not os.path.exists(binary):
            raise RuntimeError("pgbouncer not installed (Debian package pgbouncer)")
        fields = dict(re.findall(r"(\w+)=(\S+)", server_conninfo))
        self.port = parlor_grpc.free_port()
        # Files next to the server's data (owned by its user, removed with it): PgBouncer will
        # not run as root and switches to that user when started by root.
        self.dir = os.path.join(pg_root, "pgbouncer")
        os.makedirs(self.dir, exist_ok=True)
        user = fields.get("user", "postgres")
        ini = os.path.join(self.dir, "pgbouncer.ini")
        with open(ini, "w") as f:
            f.write("\n".join([
                "[databases]",
                "* = host=%s port=%s" % (fields["host"], fields["port"]),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = %d" % self.port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = %s" % os.path.join(self.dir, "userlist.txt"),
                "pool_mode = transaction",
                "default_pool_size = %d" % pool_size,
                "max_client_conn = 1000",
                # Back quickly after a PostgreSQL restart (the default waits 15 s between
                # login attempts).
                "server_login_retry = 1",
                "server_connect_timeout = 3",
                # A query waiting for a server connection (PostgreSQL down or restarting) fails
                # after 1 s instead of 120 s, so the services report UNAVAILABLE and NOT_SERVING
                # as they do on a direct connection.
                "query_wait_timeout = 1",
                "log_connections = 0",
                "log_disconnections = 0",
                "",
            ]))
        with open(os.path.join(self.dir, "userlist.txt"), "w") as f:
            f.write('"%s" ""\n' % user)
        argv = [binary, ini]
        if os.getuid() == 0:
            import pwd
            owner = pwd.getpwuid(os.stat(pg_root).st_uid)
            for name in os.listdir(self.dir) + [""]:
                os.chown(os.path.join(self.dir, name), owner.pw_uid, owner.pw_gid)
            argv = [binary, "-u", owner.pw_name, ini]
        self.log = open(os.path.join(self.dir, "pgbouncer.log"), "a")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                break
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError("pgbouncer did not start: " + self.log_tail())
                time.sleep(0.05)
        self.version = subprocess.run([binary, "--version"], capture_output=True,
                                      text=True).stdout.split("\n")[0].strip()

    def pooled_url(self, db_url):
        """db_url with host and port replaced by the pooler's (database and user kept)."""
        rest = re.sub(r"\b(host|port)=\S+\s*", "", db_url).strip()
        return "host=127.0.0.1 port=%d %s" % (self.port, rest)

    def service_env(self, db_url):
        return {"PARLOR_DB_URL": self.pooled_url(db_url),
                "PARLOR_DB_DIRECT_URL": db_url,
                "PARLOR_DB_PREPARED_STATEMENTS": "false"}

    def log_tail(self):
        try:
            with open(os.path.join(self.dir, "pgbouncer.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
