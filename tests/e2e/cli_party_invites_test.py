#!/usr/bin/python3
"""The `parlor` CLI's party invitations: two people (two signed-in CLIs) against the real
services. Tess creates a party and invites Ugo by account id; Ugo sees it in `party invites`,
declines it (then joining by the party's id is refused), is invited again and joins by the id;
later Tess, the leader, leaves, which disbands the party, and Ugo's open invitation goes with it.

usage: cli_party_invites_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import re
import sys
import unittest

from two_cli_players import TwoCliPlayers  # reads BUILD_DIR SOURCE_DIR from the command line


class CliPartyInvites(TwoCliPlayers):
    name = "party"

    def create_party(self):
        out = self.cli("Tess", "party", "create", "--size", "3")
        return re.search(r"party (\S+): others join", out).group(1)

    def test_invite_decline_join_by_id_and_disband(self):
        ugo = self.account["Ugo"]
        party = self.create_party()
        self.assertIn("no open party invitations", self.cli("Ugo", "party", "invites"))

        # Tess invites Ugo: he sees it, with the command to join.
        self.assertIn("invited %s to party %s; they join with `parlor party join %s`" % (
            ugo, party, party), self.cli("Tess", "party", "invite", ugo))
        lines = self.cli("Ugo", "party", "invites").splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("party %s from " % party, lines[0])
        self.assertIn("(1/3 players): `parlor party join %s`" % party, lines[0])

        # Ugo declines: the invitation is gone and the party's id no longer lets him in.
        self.assertIn("declined the invitation to party " + party,
                      self.cli("Ugo", "party", "decline", party))
        self.assertIn("no open party invitations", self.cli("Ugo", "party", "invites"))
        refused = self.cli("Ugo", "party", "join", party, ok=False)
        self.assertIn("NOT_FOUND", refused)
        self.assertIn("no open invitation to party " + party, refused)
        self.assertIn("NOT_FOUND", self.cli("Ugo", "party", "decline", party, ok=False))

        # Invited again, Ugo joins by the party's id (no code); the invitation is used up.
        self.cli("Tess", "party", "invite", ugo)
        self.assertIn("joined party %s (2 members)" % party, self.cli("Ugo", "party", "join", party))
        self.assertIn("no open party invitations", self.cli("Ugo", "party", "invites"))
        self.assertIn("already in your party",
                      self.cli("Tess", "party", "invite", ugo, ok=False))

        # Ugo leaves and is invited once more; then Tess, the leader, leaves: the party is
        # disbanded and takes the open invitation with it.
        self.assertIn("left the party", self.cli("Ugo", "party", "leave"))
        self.cli("Tess", "party", "invite", ugo)
        self.assertIn("party " + party, self.cli("Ugo", "party", "invites"))
        self.assertIn("left the party", self.cli("Tess", "party", "leave"))
        self.assertIn("no open party invitations", self.cli("Ugo", "party", "invites"))
        refused = self.cli("Ugo", "party", "join", party, ok=False)
        self.assertIn("NOT_FOUND", refused)
        self.assertIn("no open invitation to party " + party, refused)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
