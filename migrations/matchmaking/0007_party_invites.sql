-- Party invitations: a party member invites a friend (by account id); while the invitation is
-- open the friend may join the party by its id, without the code, or decline. An invitation
-- ends when it is accepted (the friend joined, by id or by code), declined, or expires (marked
-- 'expired' when the player is invited again); it goes with its party (the leader leaving
-- disbands it). One open invitation per party and player: inviting again while it is open
-- changes nothing.
CREATE TABLE matchmaking.party_invites (
  invite_id   UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  party_id    UUID NOT NULL REFERENCES matchmaking.parties ON DELETE CASCADE,
  account_id  TEXT NOT NULL CHECK (char_length(account_id) BETWEEN 1 AND 64),
  inviter_id  TEXT NOT NULL CHECK (char_length(inviter_id) BETWEEN 1 AND 64),
  state       TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'declined', 'expired')),
  create_time TIMESTAMPTZ NOT NULL,
  expire_time TIMESTAMPTZ NOT NULL,
  update_time TIMESTAMPTZ NOT NULL,
  CHECK (expire_time > create_time)
);
CREATE UNIQUE INDEX party_invites_open_idx ON matchmaking.party_invites (party_id, account_id)
  WHERE state = 'open';
CREATE INDEX party_invites_account_idx ON matchmaking.party_invites (account_id, create_time);

-- Whoever joins a party, by its code or by its id, accepts their open invitation to it.
CREATE FUNCTION matchmaking.accept_party_invite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE matchmaking.party_invites SET state = 'accepted', update_time = NEW.join_time
  WHERE party_id = NEW.party_id AND account_id = NEW.account_id AND state = 'open';
  RETURN NULL;
END $$;
CREATE TRIGGER party_members_accept_invite AFTER INSERT ON matchmaking.party_members
  FOR EACH ROW EXECUTE FUNCTION matchmaking.accept_party_invite();

-- The invitee hears of it through the notification outbox (migration 0002), in the invitation's
-- own transaction: kind party_invite, from the inviter, naming the party.
ALTER TABLE matchmaking.notification_outbox
  ADD COLUMN party_id TEXT NOT NULL DEFAULT '';
ALTER TABLE matchmaking.notification_outbox
  DROP CONSTRAINT notification_outbox_kind_check;
ALTER TABLE matchmaking.notification_outbox
  ADD CONSTRAINT notification_outbox_kind_check
  CHECK (kind IN ('match_found', 'challenge_received', 'challenge_accepted', 'party_invite'));

CREATE FUNCTION matchmaking.notify_party_invite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO matchmaking.notification_outbox (account_id, kind, dedupe_key, game, from_account,
                                               party_id, created_at, next_attempt_at)
  VALUES (NEW.account_id, 'party_invite', 'matchmaking:party_invite:' || NEW.invite_id, '',
          NEW.inviter_id, NEW.party_id::text, NEW.create_time, NEW.create_time)
  ON CONFLICT (dedupe_key) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER party_invites_notify AFTER INSERT ON matchmaking.party_invites
  FOR EACH ROW EXECUTE FUNCTION matchmaking.notify_party_invite();
