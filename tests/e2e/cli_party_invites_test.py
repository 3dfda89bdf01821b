#!/usr/bin/python3
"""The `parlor` CLI's party invitations: two people (two signed-in CLIs) against the real
services. Tess creates a party and invites Ugo by account id; Ugo sees it in `party invites`,
declines it (then joining by the party's id is refused), is invited again and joins by the id;
later Tess, the leader, leaves, which disbands the party, and Ugo's open invitation goes with it.

usage: cli_party_invites_test.py BUILD_DIR SOURCE_DIR   (ctest; needs the `pg` fixture)
"""
import json
import os
import re
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


class CliPartyInvites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.environ["PARLOR_TEST_PG_DIR"], "conninfo")) as f:
            server = f.read().strip()
        cls.tmp = tempfile.mkdtemp(prefix="cli-party-")
        cls.stack = parlor_stack.Stack(BUILD_DIR, parlor_stack.create_database(server, "cliparty"),
                                       os.path.join(cls.tmp, "logs"))
        cls.stack.__enter__()
        cls.env = {}
        cls.account = {}
        for who in ("Tess", "Ugo"):
            state = os.path.join(cls.tmp, who + ".json")
            env = dict(os.environ, PARLOR_STATE=state, NO_COLOR="1", COLUMNS="200")
            for name in parlor_stack.SERVICES:
                env["PARLOR_" + name.upper()] = cls.stack.address(name)
            cls.env[who] = env
            out = cls.cli(who, "login", "party-%s-%s" % (who, uuid.uuid4().hex[:8]), who)
            assert "signed in as " + who in out, out
            with open(state) as f:
                cls.account[who] = json.load(f)["account_id"]

    @classmethod
    def tearDownClass(cls):
        cls.stack.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def cli(cls, who, *args, ok=True):
        out = subprocess.run([sys.executable, CLI] + list(args), env=cls.env[who], text=True,
                             capture_output=True, timeout=60)
        if ok:
            assert out.returncode == 0, (who, args, out.stdout, out.stderr)
            return out.stdout
        assert out.returncode != 0, (who, args, out.stdout)
        return out.stdout + out.stderr

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
