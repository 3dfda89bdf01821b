#!/usr/bin/python3
"""The `parlor` CLI around the board: two people (two signed-in CLIs) meet by an invite code,
chat, nudge, report a message, one resigns, both see the record, and a rematch is offered and
accepted into a new game with the first seat rotated. Everything goes through the real services.

usage: cli_table_talk_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import re
import sys
import time
import unittest

from two_cli_players import TwoCliPlayers  # reads BUILD_DIR SOURCE_DIR from the command line


class CliTableTalk(TwoCliPlayers):
    name = "talk"

    def wait_for_game(self, who, not_in=()):
        """The id of `who`'s game created by matchmaking (it arrives through its outbox)."""
        deadline = time.time() + 30
        while time.time() < deadline:
            ids = [line.split()[0] for line in self.cli(who, "games").splitlines()
                   if line.split()[1:2] == ["picadice"]]
            fresh = [i for i in ids if not any(i.startswith(n[:8]) for n in not_in)]
            if fresh:
                return fresh[0]
            time.sleep(0.3)
        self.fail("no game for %s: %s" % (who, self.cli(who, "games")))

    def test_chat_nudge_resign_record_and_rematch(self):
        out = self.cli("Tess", "challenge", "picadice", "--code", "--count", "2")
        code = re.search(r"code (\S+)", out).group(1)
        self.cli("Ugo", "accept", "--code", code)
        game = self.wait_for_game("Tess")
        self.assertEqual(self.wait_for_game("Ugo"), game)

        # Chat, both ways, oldest first with the writers' names.
        self.assertIn("sent (message", self.cli("Tess", "chat", game, "good", "luck!"))
        self.cli("Ugo", "chat", game, "you too")
        lines = [line for line in self.cli("Ugo", "chat", game).splitlines() if "#" in line]
        self.assertEqual(len(lines), 2, lines)
        self.assertRegex(lines[0], r"Tess\s+good luck!$")
        self.assertRegex(lines[1], r"Ugo \(you\)\s+you too$")
        message_id = re.search(r"#(\d+)", lines[0]).group(1)
        self.assertIn("reported message " + message_id,
                      self.cli("Ugo", "report", game, message_id, "just", "testing"))
        # A message over 500 characters is refused with the server's reason.
        self.assertIn("INVALID_ARGUMENT", self.cli("Tess", "chat", game, "x" * 501, ok=False))

        # Whoever waits nudges the player to move; a second nudge the same day is refused.
        waiting = "Ugo" if game in self.cli("Tess", "games", "my-turn") else "Tess"
        self.assertIn("next nudge", self.cli(waiting, "nudge", game))
        self.assertIn("RESOURCE_EXHAUSTED", self.cli(waiting, "nudge", game, ok=False))

        # Tess resigns: the game is over, and her record says so.
        self.cli("Tess", "resign", game)
        self.assertIn("0 finished, 1 resigned, 0 timed out", self.cli("Tess", "record"))
        self.assertIn("1 finished, 0 resigned, 0 timed out", self.cli("Tess", "record", "Ugo"))

        # Rematch: offered by Ugo, accepted by Tess, a new game linked to this one.
        self.assertIn("rematch offered by Ugo: waiting", self.cli("Ugo", "rematch", game))
        out = self.cli("Tess", "rematch", game, "accept")
        self.assertIn("the rematch has started", out)
        again = self.wait_for_game("Tess", not_in=(game,))
        self.assertIn("played: the new game is " + again[:8],
                      self.cli("Ugo", "rematch", game, "status"))
        self.assertNotEqual(again[:8], game[:8])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
