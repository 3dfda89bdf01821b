"""Two people, Tess and Ugo, each with a signed-in `parlor` CLI of their own (a state file each),
against the real services (parlor_stack, on a database of their own in the `pg` fixture's
PostgreSQL): the setup the CLI's two-player end-to-end tests share.

A test module imports this before anything else (it reads BUILD_DIR SOURCE_DIR from the command
line, as ctest passes them) and subclasses TwoCliPlayers, naming its database with `name`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(BUILD_DIR, "gen", "python-clients"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
import parlor_stack  # noqa: E402

CLI = os.path.join(SOURCE_DIR, "clients", "cli", "parlor")


class TwoCliPlayers(unittest.TestCase):
    # The test's database and the prefix of its temporary folder and device ids.
    name = "cli"

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.tmp = tempfile.mkdtemp(prefix="cli-%s-" % cls.name)
        cls.stack = parlor_stack.Stack(
            BUILD_DIR, parlor_stack.create_database(server, "cli" + cls.name),
            os.path.join(cls.tmp, "logs"))
        cls.stack.__enter__()
        cls.env = {}
        cls.account = {}
        for who in ("Tess", "Ugo"):
            state = os.path.join(cls.tmp, who + ".json")
            env = dict(os.environ, PARLOR_STATE=state, NO_COLOR="1", COLUMNS="200")
            for service in parlor_stack.SERVICES:
                env["PARLOR_" + service.upper()] = cls.stack.address(service)
            cls.env[who] = env
            out = cls.cli(who, "login", "%s-%s-%s" % (cls.name, who, uuid.uuid4().hex[:8]), who)
            assert "signed in as " + who in out, out
            with open(state) as f:
                cls.account[who] = json.load(f)["account_id"]

    @classmethod
    def tearDownClass(cls):
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def cli(cls, who, *args, ok=True):
        """Runs `parlor ARGS` as `who`: its output when it succeeds (ok), or its output and error
        text when it fails (not ok); the other outcome fails the test."""
        out = subprocess.run([sys.executable, CLI] + list(args), env=cls.env[who], text=True,
                             capture_output=True, timeout=60)
        if ok:
            assert out.returncode == 0, (who, args, out.stdout, out.stderr)
            return out.stdout
        assert out.returncode != 0, (who, args, out.stdout)
        return out.stdout + out.stderr
