-- What players do around a game besides moving: chat (and reports of it), rematch offers, nudges
-- and what each player has seen. Written by services/sessions/store/table_store.cc.

-- Per-game chat. Seated players write; seated players (and spectators of a public game) read.
-- A message is never edited; the sender's id is kept for moderation and blocks.
CREATE TABLE sessions.chat_messages (
  message_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  game_id    UUID NOT NULL REFERENCES sessions.games (game_id),
  seat       INTEGER NOT NULL CHECK (seat >= 0),
  account_id UUID NOT NULL,
  text       TEXT NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
  -- The game's version when it was sent (what the message is about).
  game_version BIGINT NOT NULL CHECK (game_version >= 0),
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX chat_messages_game_idx ON sessions.chat_messages (game_id, message_id);
-- The sender's rate limit counts its recent messages in one game.
CREATE INDEX chat_messages_sender_idx ON sessions.chat_messages (game_id, account_id, created_at);

-- Messages reported by a reader, for moderators: one report per reader and message.
CREATE TABLE sessions.chat_reports (
  message_id          BIGINT NOT NULL REFERENCES sessions.chat_messages (message_id),
  reporter_account_id UUID NOT NULL,
  reason              TEXT NOT NULL CHECK (char_length(reason) <= 500),
  created_at          TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (message_id, reporter_account_id)
);
CREATE INDEX chat_reports_time_idx ON sessions.chat_reports (created_at);

-- At most one rematch offer per finished game. `accepted_by` holds every player who wants it
-- (the offerer first); once every seated player is in it the new game is created under the
-- match key 'rematch:<game_id>' and `new_game_id` is set. A declined or expired offer may be
-- replaced by a new one.
CREATE TABLE sessions.rematch_offers (
  game_id     UUID PRIMARY KEY REFERENCES sessions.games (game_id),
  offered_by  UUID NOT NULL,
  accepted_by UUID[] NOT NULL,
  declined_by UUID,
  offered_at  TIMESTAMPTZ NOT NULL,
  expires_at  TIMESTAMPTZ NOT NULL,
  new_game_id UUID
);

-- The last nudge of a game (at most one per period per game, whoever sends it).
CREATE TABLE sessions.nudges (
  game_id    UUID PRIMARY KEY REFERENCES sessions.games (game_id),
  account_id UUID NOT NULL,
  version    BIGINT NOT NULL,
  sent_at    TIMESTAMPTZ NOT NULL
);

-- The last version of a game each seated player has seen (MarkSeen); none = nothing seen.
CREATE TABLE sessions.seen_versions (
  game_id    UUID NOT NULL REFERENCES sessions.games (game_id),
  account_id UUID NOT NULL,
  version    BIGINT NOT NULL CHECK (version >= 0),
  updated_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, game_id)
);

-- Pushes of the new kinds go through the same outbox: 'nudge' (sent to notifications as a
-- reminder) and 'rematch_offer' (as a challenge received). NOT VALID then VALIDATE: the check of
-- existing rows does not block writes.
ALTER TABLE sessions.notification_outbox DROP CONSTRAINT notification_outbox_kind_check;
ALTER TABLE sessions.notification_outbox ADD CONSTRAINT notification_outbox_kind_check
  CHECK (kind IN ('your_turn', 'reminder', 'game_over', 'timeout', 'turn_over', 'nudge',
                  'rematch_offer')) NOT VALID;
ALTER TABLE sessions.notification_outbox VALIDATE CONSTRAINT notification_outbox_kind_check;
