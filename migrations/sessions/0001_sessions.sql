-- The sessions service's schema: games, their seats, the append-only action log, idempotency
-- keys, deadlines and vacations, and the notification and result outboxes.
--
-- Every table that belongs to one game is keyed by game_id first, so a distributed Postgres
-- (Citus) can shard them all by game_id and keep a game's rows together. Per-player lookups
-- (ListMyGames) go through seats(account_id, ...), which such a setup serves by fan-out.

CREATE SCHEMA IF NOT EXISTS sessions;

-- One row per game. `snapshot` is the engine's GameRecord (protobuf bytes, with the secret seed
-- and all hidden state); it never leaves the server while the game runs. `version` counts the
-- log entries after the setup and equals the highest actions.version.
CREATE TABLE sessions.games (
  game_id            UUID PRIMARY KEY,
  game               TEXT NOT NULL CHECK (game ~ '^[a-z][a-z0-9_]{0,63}$'),
  match_id           TEXT CHECK (char_length(match_id) BETWEEN 1 AND 200),
  ranked             BOOLEAN NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('active', 'finished')),
  version            BIGINT NOT NULL CHECK (version >= 0),
  num_players        INTEGER NOT NULL CHECK (num_players BETWEEN 1 AND 32),
  -- Readable option values by name, e.g. {"rounds": "2"}.
  options            JSONB NOT NULL CHECK (jsonb_typeof(options) = 'object'),
  snapshot           BYTEA NOT NULL CHECK (octet_length(snapshot) > 0),
  seed_commitment    TEXT NOT NULL CHECK (seed_commitment ~ '^[0-9a-f]{64}$'),
  -- Bit i set = seat i must act now. 0 once finished.
  acting_seats       BIGINT NOT NULL CHECK (acting_seats >= 0),
  -- Time control: a per-move limit, or a time bank (initial = cap, increment per move).
  tc_kind            TEXT NOT NULL CHECK (tc_kind IN ('per_move', 'time_bank')),
  tc_per_move_s      BIGINT CHECK (tc_per_move_s BETWEEN 3600 AND 14 * 86400),
  tc_bank_initial_s  BIGINT CHECK (tc_bank_initial_s BETWEEN 3600 AND 30 * 86400),
  tc_bank_increment_s BIGINT CHECK (tc_bank_increment_s >= 0),
  vacation_days      INTEGER NOT NULL CHECK (vacation_days BETWEEN 0 AND 30),
  -- The earliest deadline among the acting seats; NULL once finished.
  deadline           TIMESTAMPTZ,
  -- Outcome, once finished (per seat, index = seat).
  ranks              INTEGER[],
  scores             BIGINT[],
  end_reason         TEXT,
  created_at         TIMESTAMPTZ NOT NULL,
  updated_at         TIMESTAMPTZ NOT NULL,
  finished_at        TIMESTAMPTZ,
  CHECK ((tc_kind = 'per_move') = (tc_per_move_s IS NOT NULL)),
  CHECK ((tc_kind = 'time_bank') = (tc_bank_initial_s IS NOT NULL AND tc_bank_increment_s IS NOT NULL)),
  CHECK (tc_bank_increment_s IS NULL OR tc_bank_increment_s <= tc_bank_initial_s),
  CHECK ((status = 'finished') = (finished_at IS NOT NULL)),
  CHECK ((status = 'finished') = (ranks IS NOT NULL)),
  CHECK (status = 'finished' OR deadline IS NOT NULL),
  CHECK (status = 'active' OR (deadline IS NULL AND acting_seats = 0)),
  CHECK (updated_at >= created_at)
);
-- The sweeper's work list.
CREATE INDEX games_deadline_idx ON sessions.games (deadline) WHERE status = 'active';

-- match id -> game, for CreateGame's idempotency (a separate table so that `games` needs no
-- unique constraint beyond its shard key). `request_hash` detects a different request reusing
-- a match id.
CREATE TABLE sessions.matches (
  match_id     TEXT PRIMARY KEY CHECK (char_length(match_id) BETWEEN 1 AND 200),
  -- Deferred: CreateGame claims the match id before it inserts the game.
  game_id      UUID NOT NULL REFERENCES sessions.games (game_id) DEFERRABLE INITIALLY DEFERRED,
  request_hash BYTEA NOT NULL CHECK (octet_length(request_hash) = 32),
  created_at   TIMESTAMPTZ NOT NULL
);

-- The seats of a game. Exactly one of account_id (a player) and bot (a computer seat) is set.
-- status, my_turn and updated_at copy the game's so that ListMyGames is one index scan.
CREATE TABLE sessions.seats (
  game_id          UUID NOT NULL REFERENCES sessions.games (game_id),
  seat             INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 31),
  account_id       UUID,
  bot              TEXT CHECK (bot ~ '^[a-z][a-z0-9_]{0,31}$'),
  display_name     TEXT NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 64),
  team             INTEGER NOT NULL CHECK (team BETWEEN 0 AND 31),
  forfeited        BOOLEAN NOT NULL DEFAULT false,
  status           TEXT NOT NULL CHECK (status IN ('active', 'finished')),
  my_turn          BOOLEAN NOT NULL,
  -- When this seat's current turn began (NULL while it need not act).
  turn_started_at  TIMESTAMPTZ,
  -- This seat's deadline for its current turn (NULL while it need not act).
  deadline         TIMESTAMPTZ,
  -- Reminders sent for the current turn: 0, 1 (half the time) or 2 (90 %).
  reminders_sent   SMALLINT NOT NULL DEFAULT 0 CHECK (reminders_sent BETWEEN 0 AND 2),
  -- Time bank left, in milliseconds (time bank games only).
  time_bank_ms     BIGINT CHECK (time_bank_ms >= 0),
  vacation_used_ms BIGINT NOT NULL DEFAULT 0 CHECK (vacation_used_ms >= 0),
  updated_at       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (game_id, seat),
  CHECK ((account_id IS NULL) <> (bot IS NULL)),
  CHECK (NOT my_turn OR deadline IS NOT NULL)
);
CREATE UNIQUE INDEX seats_account_game_idx ON sessions.seats (account_id, game_id)
  WHERE account_id IS NOT NULL;
CREATE INDEX seats_account_activity_idx ON sessions.seats (account_id, updated_at DESC, game_id)
  WHERE account_id IS NOT NULL;

-- The append-only log: one row per version. Version 0 is the setup. `entry` is the engine's
-- LogEntry (protobuf bytes, with the chance outcomes drawn); kind/seat/action repeat it for SQL.
CREATE TABLE sessions.actions (
  game_id      UUID NOT NULL REFERENCES sessions.games (game_id),
  version      BIGINT NOT NULL CHECK (version >= 0),
  kind         TEXT NOT NULL CHECK (kind IN ('setup', 'action', 'forfeit')),
  cause        TEXT NOT NULL CHECK (cause IN ('system', 'player', 'bot', 'timeout')),
  seat         INTEGER NOT NULL CHECK (seat BETWEEN -1 AND 31),
  action       BIGINT NOT NULL,
  -- The player who submitted it (NULL for setup, bots and timeouts).
  account_id   UUID,
  entry        BYTEA NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (game_id, version),
  CHECK ((kind = 'setup') = (version = 0)),
  CHECK ((kind = 'setup') = (seat = -1))
);

CREATE FUNCTION sessions.reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'sessions.% is append-only', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER actions_append_only BEFORE UPDATE OR DELETE ON sessions.actions
  FOR EACH ROW EXECUTE FUNCTION sessions.reject_change();

-- SubmitAction's idempotency keys, per game and player, with the first answer (a serialized
-- parlor.sessions.v1.SubmitActionResponse) and a hash of the request it answered.
CREATE TABLE sessions.idempotency_keys (
  game_id      UUID NOT NULL REFERENCES sessions.games (game_id),
  account_id   UUID NOT NULL,
  key          TEXT NOT NULL CHECK (char_length(key) BETWEEN 1 AND 128),
  request_hash BYTEA NOT NULL CHECK (octet_length(request_hash) = 32),
  version      BIGINT NOT NULL CHECK (version >= 1),
  response     BYTEA NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (game_id, account_id, key)
);

-- Vacations: while one runs, the player's clocks are paused (within each game's allowance).
CREATE TABLE sessions.vacations (
  account_id UUID PRIMARY KEY,
  started_at TIMESTAMPTZ NOT NULL,
  ends_at    TIMESTAMPTZ NOT NULL,
  CHECK (ends_at > started_at)
);

-- Push notifications to send, written in the transaction of the change they announce and
-- drained at least once by the dispatcher. `dedupe_key` lets the push gateway drop repeats.
CREATE TABLE sessions.notification_outbox (
  id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  game_id         UUID NOT NULL REFERENCES sessions.games (game_id),
  account_id      UUID NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('your_turn', 'reminder', 'game_over', 'timeout')),
  version         BIGINT NOT NULL CHECK (version >= 0),
  dedupe_key      TEXT NOT NULL UNIQUE CHECK (char_length(dedupe_key) BETWEEN 1 AND 200),
  payload         JSONB NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
  created_at      TIMESTAMPTZ NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at TIMESTAMPTZ NOT NULL,
  sent_at         TIMESTAMPTZ,
  last_error      TEXT
);
CREATE INDEX notification_outbox_pending_idx ON sessions.notification_outbox (next_attempt_at)
  WHERE sent_at IS NULL;

-- Finished games' outcomes for ratings.ReportResult, retried until acknowledged; one per game
-- (the ratings service is idempotent on game_id). `payload` is the report in JSON.
CREATE TABLE sessions.result_outbox (
  game_id         UUID PRIMARY KEY REFERENCES sessions.games (game_id),
  game            TEXT NOT NULL,
  ranked          BOOLEAN NOT NULL,
  payload         JSONB NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
  created_at      TIMESTAMPTZ NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at TIMESTAMPTZ NOT NULL,
  acked_at        TIMESTAMPTZ,
  last_error      TEXT
);
CREATE INDEX result_outbox_pending_idx ON sessions.result_outbox (next_attempt_at)
  WHERE acked_at IS NULL;
