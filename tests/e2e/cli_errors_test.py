#!/usr/bin/python3
"""The `parlor` CLI when a person gets it wrong: typos, missing and bad values for every command
end in one line on stderr and exit code 2 (never a traceback); unreachable services are one
clear line without gRPC's own log lines; a closed pipe ends quietly; the state file is private
(0600) and an expired or refused access token is refreshed with the kept refresh token.

The table of every command's bad arguments runs the CLI's own entry point in this process (the
same code path as the command line, without a Python start per case); a sample of them, the
pipe, the unreachable services and the tokens run it as a separate program.

usage: cli_errors_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(BUILD_DIR, "gen", "python-clients"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
import parlor_stack  # noqa: E402

CLI = os.path.join(SOURCE_DIR, "clients", "cli", "parlor")
COMMANDS = ["login", "logout", "whoami", "rename", "new", "games", "show", "moves", "move", "play",
            "resign", "history", "watch", "queue", "tickets", "cancel", "challenge",
            "challenges", "accept", "decline", "party", "ratings", "ladders", "leaderboard",
            "rating-history", "vacation", "help"]
NEED_AN_ARGUMENT = ["login", "rename", "new", "show", "moves", "move", "play", "resign",
                    "history", "watch", "queue", "cancel", "challenge", "decline", "party",
                    "leaderboard", "rating-history", "vacation"]


class CliErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.tmp = tempfile.mkdtemp(prefix="cli-errors-")
        cls.stack = parlor_stack.Stack(BUILD_DIR, parlor_stack.create_database(server, "clierr"),
                                       os.path.join(cls.tmp, "logs"))
        cls.stack.__enter__()
        cls.state = os.path.join(cls.tmp, "state.json")
        cls.env = dict(os.environ, PARLOR_STATE=cls.state)
        for name in parlor_stack.SERVICES:
            cls.env["PARLOR_" + name.upper()] = cls.stack.address(name)
        cls.run_cli("login", "cli-err-" + uuid.uuid4().hex[:8], "Errol", code=0)
        cls.game = cls.run_cli("new", "pict", code=0).split()[0]
        os.environ.update(cls.env)
        loader = importlib.machinery.SourceFileLoader("parlor_cli", CLI)
        spec = importlib.util.spec_from_loader("parlor_cli", loader)
        cls.module = importlib.util.module_from_spec(spec)
        loader.exec_module(cls.module)

    @classmethod
    def tearDownClass(cls):
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def run_cli(cls, *args, code=None, env=None):
        out = subprocess.run([sys.executable, CLI] + list(args), env=env or cls.env, text=True,
                             capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        if code is not None and out.returncode != code:
            raise AssertionError("parlor %s: exit %d, wanted %d\n%s%s" % (
                " ".join(args), out.returncode, code, out.stdout, out.stderr))
        return out.stdout

    def refused(self, *args, code=2, separate=False):
        """Runs `parlor ARGS` (in this process, or as a program) and checks the one-line error
        and the exit code."""
        if separate:
            out = subprocess.run([sys.executable, CLI] + list(args), env=self.env, text=True,
                                 capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
            returncode, stderr = out.returncode, out.stderr
        else:
            err, saved = io.StringIO(), sys.argv
            sys.argv = ["parlor"] + list(args)
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    returncode = self.module.run()
            finally:
                sys.argv = saved
            stderr = err.getvalue()
        where = "parlor %s -> %r" % (" ".join(args), stderr)
        self.assertEqual(returncode, code, where)
        self.assertNotIn("Traceback", stderr, where)
        self.assertEqual(len(stderr.strip().splitlines()), 1, where)
        self.assertTrue(stderr.startswith("parlor"), where)
        return stderr

    def test_every_command_has_help(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                out = io.StringIO()
                with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as done:
                    self.module.main([command, "--help"])
                self.assertEqual(done.exception.code, 0)
                self.assertIn("usage: parlor " + command, out.getvalue())
        self.assertIn("usage: parlor login", self.run_cli("login", "--help", code=0))

    def test_unknown_flags_and_missing_values(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                self.refused(command, "--bogus")
        for command in NEED_AN_ARGUMENT:
            with self.subTest(command=command):
                self.refused(command)

    def test_typos_and_bad_values(self):
        self.assertIn("did you mean 'move'", self.refused("mvoe", self.game, "x", separate=True))
        self.refused("new", "pico", "--players", "three", separate=True)
        self.refused("move", self.game[:8], "#9999", separate=True)
        prefix = self.game[:8]
        for args in (["games", "bogus"], ["new", "pico", "--players", "three"],
                     ["new", "chess"], ["new", "pico", "--option", "rounds"],
                     ["new", "pico", "--level", "impossible"],
                     ["show", "not-a-game!"], ["show", "ffffffff"], ["moves", "zz"],
                     ["move", prefix, "#9999"], ["move", prefix, "#x"],
                     ["move", prefix, "paint Z9 at q7"], ["move", prefix, "fill A1 purple"],
                     ["move", prefix, "dance"], ["move", prefix, "{not json"],
                     ["queue", "pico", "--players", "two"], ["queue", "chess"],
                     ["games", "--limit", "many"], ["help", "moves", "chess"],
                     ["help", "nonsense"], ["cancel", "ffff"], ["decline", "ffff"],
                     ["accept"], ["challenge", "pico"], ["challenge", "pico", "Nobody-Here"],
                     ["party", "dance"], ["party", "join"], ["party", "invite"],
                     ["party", "decline"], ["vacation", "forever"],
                     ["leaderboard", "pico", "--size", "ten"]):
            with self.subTest(args=args):
                self.refused(*args)

    def test_refused_moves_and_unknown_ladders_are_one_line(self):
        # A move the notation reads but the rules refuse: the server's reason, exit 1.
        self.refused("move", self.game[:8], "paint A1 C3 at a1", code=1, separate=True)
        self.refused("leaderboard", "no-such-ladder", code=1)

    def test_services_out_of_reach(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed = "127.0.0.1:%d" % s.getsockname()[1]
        env = dict(self.env, PARLOR_SESSIONS=closed)
        out = subprocess.run([sys.executable, CLI, "games"], env=env, text=True,
                             capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stderr.strip().splitlines(),
                         ["parlor: cannot reach the sessions service at %s (is it running? "
                          "set PARLOR_SESSIONS)" % closed])
        env = dict(self.env, PARLOR_STATE=os.path.join(self.tmp, "nobody.json"))
        env.pop("PARLOR_ACCOUNTS")
        out = subprocess.run([sys.executable, CLI, "login", "x"], env=env, text=True,
                             capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertIn("no address for the accounts service", out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1)

    def test_closed_pipe(self):
        for args in (["help", "moves", "pescado"], ["--help"], ["moves", self.game[:8]]):
            process = subprocess.Popen([sys.executable, CLI] + args, env=self.env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            process.stdout.readline()
            process.stdout.close()
            stderr = process.stderr.read().decode()
            process.wait(timeout=30)
            process.stderr.close()
            self.assertNotIn("Traceback", stderr, args)
            self.assertNotIn("Error", stderr, args)

    def test_state_is_private_and_tokens_refresh(self):
        self.assertEqual(stat.S_IMODE(os.stat(self.state).st_mode), 0o600)
        with open(self.state) as f:
            state = json.load(f)
        self.assertTrue(state["refresh_token"])
        # An access token past its expiry is replaced before the call, with a new refresh token.
        state["access_expire"] = 1
        with open(self.state, "w") as f:
            json.dump(state, f)
        self.assertIn(self.game, self.run_cli("games", code=0))
        with open(self.state) as f:
            renewed = json.load(f)
        self.assertNotEqual(renewed["refresh_token"], state["refresh_token"])
        self.assertGreater(renewed["access_expire"], 1)
        self.assertEqual(stat.S_IMODE(os.stat(self.state).st_mode), 0o600)
        # A token the server refuses (UNAUTHENTICATED) is refreshed once and the call retried.
        renewed["access_token"] = "not-a-token"
        with open(self.state, "w") as f:
            json.dump(renewed, f)
        self.assertIn(self.game, self.run_cli("games", code=0))
        # A refresh token that no longer works: one line asking to sign in again.
        with open(self.state) as f:
            broken = json.load(f)
        broken.update(access_token="not-a-token", refresh_token="spent")
        with open(self.state, "w") as f:
            json.dump(broken, f)
        self.assertIn("login", self.refused("games", code=1, separate=True))
        self.run_cli("login", "cli-err-again-" + uuid.uuid4().hex[:8], "Errol2", code=0)
        type(self).game = self.run_cli("new", "pict", code=0).split()[0]

    def person(self, state, *args):
        """`parlor ARGS` for the player whose state file is `state`, in this process; its
        output."""
        out, err, saved = io.StringIO(), io.StringIO(), (sys.argv, self.module.STATE)
        sys.argv, self.module.STATE = ["parlor"] + list(args), state
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = self.module.run()
        finally:
            sys.argv, self.module.STATE = saved
        self.assertEqual(code, 0, (args, err.getvalue()))
        return out.getvalue()

    def test_commands_for_people(self):
        ann, ben = (os.path.join(self.tmp, n + ".json") for n in ("ann", "ben"))
        tag = uuid.uuid4().hex[:6]
        self.person(ann, "login", "people-ann-" + tag, "Ann" + tag)
        ben_id = re.search(r"account ([0-9a-f-]{36})",
                           self.person(ben, "login", "people-ben-" + tag, "Ben" + tag)).group(1)
        # A challenge declined, another accepted: the game is created for both.
        sent = self.person(ann, "challenge", "pico", ben_id).split()[2]
        self.assertIn("declined", self.person(ben, "decline", sent[:8]))
        sent = self.person(ann, "challenge", "pict", ben_id, "--ranked").split()[2]
        self.assertIn("accepted", self.person(ben, "accept", sent[:8]))
        game_id, deadline = None, time.time() + 20
        while not game_id and time.time() < deadline:
            found = re.search(sent + r".* game ([0-9a-f-]{36})", self.person(ann, "challenges"))
            game_id = found.group(1) if found else time.sleep(0.3)
        self.assertTrue(game_id, "the accepted challenge's game")
        board = self.person(ann, "show", game_id[:8])
        self.assertIn("Ann%s (you)" % tag, board)
        self.assertIn("Ben" + tag, board)
        # Ben resigns: Ann wins; the history names the players.
        self.assertRegex(self.person(ben, "resign", game_id[:8]), r"Winner: Ann%s\b" % tag)
        self.assertIn("Ben" + tag, self.person(ann, "history", game_id[:8]))
        self.assertIn("Ben" + tag, self.person(ann, "challenges"))  # a name met in a game
        # Matchmaking: a ticket queued, listed and withdrawn.
        ticket = self.person(ann, "queue", "pescado").split()[1]
        self.assertIn("waiting", self.person(ann, "tickets"))
        self.assertIn("cancelled", self.person(ann, "cancel", ticket[:8]))
        # Ratings and ladders answer (the ranked result reaches ratings asynchronously).
        self.assertIn("pict", self.person(ann, "ladders"))
        self.assertRegex(self.person(ann, "leaderboard", "pict"), r"pict: \d+ players")
        self.person(ann, "ratings")
        self.person(ann, "rating-history", "pict")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
