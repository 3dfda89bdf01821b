-- What matchmaking tells players through the notifications service (its AcceptEvents), kept as
-- an outbox: each row is written in the transaction of the change it reports, by the triggers
-- below, and a relay in every replica hands due rows over (at least once; notifications is
-- idempotent on dedupe_key) and marks them sent.
--   match_found         a queue match's game was created: one row per seated player
--   challenge_received  a player was named in a challenge: one row per invitee
--   challenge_accepted  every invitee accepted: one row for the challenger
-- Times are those of the change (the service's clock, as stored in the changed row).
CREATE TABLE matchmaking.notification_outbox (
  id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      TEXT NOT NULL,
  kind            TEXT NOT NULL
                  CHECK (kind IN ('match_found', 'challenge_received', 'challenge_accepted')),
  dedupe_key      TEXT NOT NULL UNIQUE,
  game            TEXT NOT NULL,
  game_id         TEXT NOT NULL DEFAULT '',
  -- Whose name the text shows: the challenger (received), an invitee (accepted).
  from_account    TEXT NOT NULL DEFAULT '',
  -- The other side's players (match found: "against Tess").
  other_accounts  TEXT[] NOT NULL DEFAULT '{}',
  created_at      TIMESTAMPTZ NOT NULL,
  next_attempt_at TIMESTAMPTZ NOT NULL,
  attempts        INT NOT NULL DEFAULT 0,
  sent_at         TIMESTAMPTZ,
  last_error      TEXT
);
CREATE INDEX notification_outbox_due_idx ON matchmaking.notification_outbox (next_attempt_at)
  WHERE sent_at IS NULL;

CREATE FUNCTION matchmaking.notify_match_found() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO matchmaking.notification_outbox (account_id, kind, dedupe_key, game, game_id,
                                               other_accounts, created_at, next_attempt_at)
  SELECT s.account, 'match_found', 'matchmaking:match:' || NEW.match_id || ':' || s.account,
         NEW.game, NEW.game_id,
         ARRAY(SELECT o.account
               FROM unnest(NEW.seat_accounts, NEW.seat_teams) WITH ORDINALITY AS o(account, team, n)
               WHERE o.team <> s.team ORDER BY o.n),
         NEW.game_create_time, NEW.game_create_time
  FROM unnest(NEW.seat_accounts, NEW.seat_teams) AS s(account, team)
  ON CONFLICT (dedupe_key) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER matches_notify_found AFTER UPDATE OF game_id ON matchmaking.matches
  FOR EACH ROW WHEN (OLD.game_id IS NULL AND NEW.game_id IS NOT NULL AND NEW.source = 'queue')
  EXECUTE FUNCTION matchmaking.notify_match_found();

-- An invitee is written not yet accepted (the challenger and code holders who join accept as
-- they are written: nobody else needs telling).
CREATE FUNCTION matchmaking.notify_challenge_received() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO matchmaking.notification_outbox (account_id, kind, dedupe_key, game, from_account,
                                               created_at, next_attempt_at)
  SELECT NEW.account_id, 'challenge_received',
         'matchmaking:challenge:' || c.challenge_id || ':' || NEW.account_id, c.game,
         c.challenger_id, c.create_time, c.create_time
  FROM matchmaking.challenges c WHERE c.challenge_id = NEW.challenge_id
  ON CONFLICT (dedupe_key) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER challenge_players_notify_received AFTER INSERT ON matchmaking.challenge_players
  FOR EACH ROW WHEN (NOT NEW.accepted)
  EXECUTE FUNCTION matchmaking.notify_challenge_received();

-- The challenger hears from the first other player in seat order (the invitee of a duel).
CREATE FUNCTION matchmaking.notify_challenge_accepted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO matchmaking.notification_outbox (account_id, kind, dedupe_key, game, from_account,
                                               other_accounts, created_at, next_attempt_at)
  SELECT NEW.challenger_id, 'challenge_accepted',
         'matchmaking:accepted:' || NEW.challenge_id, NEW.game,
         coalesce((SELECT p.account_id FROM matchmaking.challenge_players p
                   WHERE p.challenge_id = NEW.challenge_id AND p.account_id <> NEW.challenger_id
                   ORDER BY p.seat LIMIT 1), ''),
         ARRAY(SELECT p.account_id FROM matchmaking.challenge_players p
               WHERE p.challenge_id = NEW.challenge_id AND p.account_id <> NEW.challenger_id
               ORDER BY p.seat),
         NEW.update_time, NEW.update_time
  ON CONFLICT (dedupe_key) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER challenges_notify_accepted AFTER UPDATE OF state ON matchmaking.challenges
  FOR EACH ROW WHEN (OLD.state = 'open' AND NEW.state = 'accepted')
  EXECUTE FUNCTION matchmaking.notify_challenge_accepted();
