#!/usr/bin/python3
"""Migrations behind PgBouncer in transaction mode (as behind CloudNativePG's Pooler) leave no
lock behind: each service's `migrate` runs twice, the second time while another client holds a
pooled server connection in an open transaction, so a lock left on the connection the first run
used would make the second run wait forever. Checked with the direct URL beside the pooled one
(what the deployment sets, and what migrations then use) and with the pooled URL alone.

usage: migrations_through_pooler_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import os
import re
import subprocess
import sys
import time
import unittest

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "lib"))
import parlor_stack  # noqa: E402
import pgbouncer  # noqa: E402

# Long enough for a cold migrate on a slow machine, far shorter than the test's own timeout.
MIGRATE_TIMEOUT_S = 60


def psql(db_url, sql):
    return subprocess.check_output(["psql", "-X", "-q", "-At", db_url, "-c", sql],
                                   text=True).strip()


class MigrationsThroughPoolerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pg_dir = os.environ["PARLOR_TEST_PG_DIR"]
        with open(os.path.join(pg_dir, "conninfo")) as f:
            cls.server = f.read().strip()
        with open(os.path.join(pg_dir, "pg_root")) as f:
            cls.bouncer = pgbouncer.PgBouncer(cls.server, f.read().strip())
        _, cls.public_key = parlor_stack.keygen(BUILD_DIR)

    @classmethod
    def tearDownClass(cls):
        cls.bouncer.stop()

    def migrate(self, name, db_env):
        env = dict(os.environ)
        env.update({
            "PARLOR_MIGRATIONS_DIR": os.path.join(SOURCE_DIR, "migrations"),
            "PARLOR_ACCESS_TOKEN_PUBLIC_KEY": self.public_key,
            "PARLOR_SERVICE_TOKEN_PUBLIC_KEY": self.public_key,
        })
        env.update(db_env)
        try:
            run = subprocess.run([parlor_stack.binary(BUILD_DIR, name), "migrate"], env=env,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=MIGRATE_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            self.fail("%s migrate did not finish in %d s (waiting for a lock left behind?): %s"
                      % (name, MIGRATE_TIMEOUT_S, (e.stderr or b"")[-2000:]))
        self.assertEqual(run.returncode, 0, "%s migrate failed: %s" % (name, run.stderr[-2000:]))
        return run.stdout + run.stderr

    def advisory_locks(self, db_url):
        database = re.search(r"dbname=(\S+)", db_url).group(1)
        return int(psql(db_url, "SELECT count(*) FROM pg_locks l JOIN pg_database d ON "
                                "d.oid = l.database WHERE l.locktype = 'advisory' AND "
                                "d.datname = '%s'" % database))

    def hold_pooled_transaction(self, db_url):
        """A client in an open transaction through the pooler: it keeps the idle server connection
        (the one a previous runner used), so the next runner gets another."""
        holder = subprocess.Popen(["psql", "-X", "-q", self.bouncer.pooled_url(db_url)],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, text=True)
        holder.stdin.write("BEGIN;\nSELECT 1;\n")
        holder.stdin.flush()
        deadline = time.time() + 10
        while psql(db_url, "SELECT count(*) FROM pg_stat_activity WHERE state = "
                           "'idle in transaction' AND datname = current_database()") == "0":
            self.assertLess(time.time(), deadline, "the holder never opened its transaction")
            time.sleep(0.05)
        return holder

    def release(self, holder):
        holder.stdin.write("COMMIT;\n\\q\n")
        holder.stdin.close()
        holder.wait(timeout=10)

    def check_twice(self, db_env_for):
        db_url = parlor_stack.create_database(self.server, "pooler")
        for name in parlor_stack.SERVICES:
            with self.subTest(service=name):
                self.assertRegex(self.migrate(name, db_env_for(db_url)),
                                 r"migrate: [1-9][0-9]* applied, 0 already applied")
                self.assertEqual(self.advisory_locks(db_url), 0,
                                 "%s migrate left an advisory lock behind" % name)
                holder = self.hold_pooled_transaction(db_url)
                try:
                    self.assertRegex(self.migrate(name, db_env_for(db_url)),
                                     r"migrate: 0 applied, [1-9][0-9]* already applied")
                finally:
                    self.release(holder)

    def test_with_the_direct_url_migrations_use_it(self):
        self.check_twice(self.bouncer.service_env)

    def test_through_the_pooler_alone_the_lock_is_released(self):
        self.check_twice(lambda db_url: {"PARLOR_DB_URL": self.bouncer.pooled_url(db_url),
                                         "PARLOR_DB_PREPARED_STATEMENTS": "false"})


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
