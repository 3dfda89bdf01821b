#!/usr/bin/python3
"""The `parlor` CLI played like a person: in a terminal (a pseudo-terminal driven with pexpect),
one whole game of each of the five games against the computer at the `parlor play` prompt.
Every move is typed in the game's notation (never a listed #N): the player asks for `moves`,
reads the list and types one of them; the board is checked at a few points.

usage: cli_play_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]
os.environ.setdefault("PARLOR_PY_STUBS_DIR", os.path.join(BUILD_DIR, "gen", "python-clients"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "clients", "python"))
import pexpect  # noqa: E402
import parlor_stack  # noqa: E402

CLI = os.path.join(SOURCE_DIR, "clients", "cli", "parlor")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
PROMPT = r"(pico|pict|picadice|pescado|kadice)> "
# Short games where the game has an option for it.
OPTIONS = {"picadice": ["turn_limit_per_seat=25"], "kadice": ["max_rounds=30"]}
# What a person prefers, by the first word of a move (missing words: least preferred).
PREFER = {
    "pico": [],
    "pict": ["fill", "skip", "paint"],
    "picadice": ["use", "nest", "birds", "roll", "discard"],
    "pescado": ["take", "end", "claim", "pass", "rethrow", "throw"],
    "kadice": ["eliminate", "hold", "roll"],
}


def plain(text):
    return ANSI.sub("", text)


class CliPlaysFiveGames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.tmp = tempfile.mkdtemp(prefix="cli-play-")
        cls.stack = parlor_stack.Stack(BUILD_DIR, parlor_stack.create_database(server, "cliplay"),
                                       os.path.join(cls.tmp, "logs"))
        cls.stack.__enter__()
        cls.env = dict(os.environ, PARLOR_STATE=os.path.join(cls.tmp, "state.json"),
                       TERM="xterm-256color", COLUMNS="200", LINES="60")
        for name in parlor_stack.SERVICES:
            cls.env["PARLOR_" + name.upper()] = cls.stack.address(name)
        cls.env.pop("NO_COLOR", None)
        out = cls.cli("login", "cli-play-" + uuid.uuid4().hex[:8], "Tess")
        assert "signed in as Tess" in out, out
        cls.rng = random.Random(25)
        cls.timings = {}

    @classmethod
    def tearDownClass(cls):
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        for game, (seconds, moves) in sorted(cls.timings.items()):
            print("  %-9s %3d moves typed in %5.1f s" % (game, moves, seconds))

    @classmethod
    def cli(cls, *args):
        out = subprocess.run([sys.executable, CLI] + list(args), env=cls.env, text=True,
                             capture_output=True, timeout=60)
        assert out.returncode == 0, (args, out.stderr)
        return out.stdout

    def choose(self, game, moves):
        order = PREFER[game]
        rank = {w: i for i, w in enumerate(order)}
        best = min(rank.get(m.split()[0], len(order)) for m in moves)
        pool = [m for m in moves if rank.get(m.split()[0], len(order)) == best]
        if game == "pescado" and best == order.index("rethrow"):
            pool = [m for m in pool if m == "rethrow"] or pool
        if game == "kadice" and best in (order.index("hold"), order.index("roll")):
            pool = [m for m in pool if m in ("hold", "roll")] or pool
        return self.rng.choice(pool)

    def play(self, game, checks):
        """Plays `game` at the prompt to its end. checks(board, move_number) looks at the board
        shown before each move. Returns the last screen (with the game-over lines)."""
        started = time.time()
        args = ["new", game] + sum((["--option", o] for o in OPTIONS.get(game, [])), [])
        game_id = self.cli(*args).split()[0]
        child = pexpect.spawn(sys.executable, [CLI, "play", game_id[:8]], env=self.env,
                              encoding="utf-8", timeout=30, dimensions=(60, 200))
        typed = 0
        try:
            while True:
                got = child.expect([PROMPT, pexpect.EOF])
                board = plain(child.before)
                if got == 1:
                    break
                checks(board, typed)
                # The board lists the moves in full when there are few; otherwise ask.
                shown = board.split("your moves")[-1].splitlines()[1:]
                moves = [m.group(1) for m in (re.match(r"^\s*#\d+\s+(.+?)\s*$", line)
                                              for line in shown) if m]
                if not moves or len(moves) != len([x for x in shown if x.strip()]):
                    child.sendline("moves")
                    child.expect(PROMPT)
                    listing = plain(child.before)
                    moves = re.findall(r"^\s*#\d+\s+(.+?)\s*$", listing, re.M)
                self.assertTrue(moves, board[-2000:])
                move = self.choose(game, moves)
                child.sendline(move)
                typed += 1
                self.assertLess(typed, 400, "the game does not end")
        finally:
            child.close(force=True)
        self.assertEqual(child.exitstatus, 0, board[-2000:])
        self.assertIn("Game over", board)
        self.assertRegex(board, r"(Winner|Shared first place): ")
        self.assertNotIn("Traceback", board)
        self.timings[game] = (time.time() - started, typed)
        return board

    def test_pico(self):
        def checks(board, n):
            self.assertRegex(board, r"Pico\s+round \d of 2, trick \d+")
            self.assertIn("Tess (you)", board)
            self.assertRegex(board, r"hand (\d+\(\d\) ?)+")
            if n == 0:
                self.assertIn("your turn", board)
        board = self.play("pico", checks)
        self.assertIn("both rounds played", board)

    def test_pict(self):
        seen = {}

        def checks(board, n):
            self.assertIn("palette", board)
            self.assertRegex(board, r"\n1  [RYB.] [RYB.] [RYB.] ")
            self.assertIn("Tess (you): ", board)
            if n == 0:
                self.assertIn("palette holds", board)
            filled = re.search(r"Tess \(you\): (\d+) pts", board)
            seen["score"] = int(filled.group(1))
            if n == 4:
                self.assertRegex(board, r"filled ([1-9]|1[0-6])/16")
        board = self.play("pict", checks)
        self.assertRegex(board, r"filled the canvas and ended the game|Game over")

    def test_picadice(self):
        def checks(board, n):
            self.assertIn("Picadice", board)
            for row in ("orange", "yellow", "green", "blue", "purple"):
                self.assertIn(row, board)
            self.assertIn("nest: ", board)
            self.assertRegex(board, r"to act: Tess \(you\)")
            if "after roll" in board:
                self.assertRegex(board, r"dice: (\w+ ){3}")
        board = self.play("picadice", checks)
        self.assertRegex(board, r"game over: (grid filled|turn limit)")

    def test_pescado(self):
        def checks(board, n):
            self.assertIn("Pescado", board)
            self.assertRegex(board, r"pool:  0:")
            self.assertIn("tiles in the stack", board)
            if "first throw resolved" in board or "second throw resolved" in board:
                self.assertRegex(board, r"dice:  0:\w+")
        board = self.play("pescado", checks)
        self.assertIn("game over:", board)

    def test_kadice(self):
        def checks(board, n):
            self.assertIn("KA'DICE", board)
            self.assertRegex(board, r"round \d+ of at most 30")
            self.assertRegex(board, r"Tess \(you\)\s+(GHOST|[A-Z' 0-9]+ dies to )")
            self.assertRegex(board, r"dice 0:[-1-6] 1:[-1-6] 2:[-1-6] 3:[-1-6] 4:[-1-6]")
        board = self.play("kadice", checks)
        self.assertIn("game over:", board)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
