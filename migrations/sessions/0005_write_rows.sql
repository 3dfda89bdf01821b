-- The rows one state change writes (kWriteMutations in services/sessions/store/sql.h), as typed composite values: the
-- statement then takes one array per table instead of one array per column. Times travel as
-- microseconds since the Unix epoch (BIGINT keeps libpq's conversions exact); byte strings as an
-- offset and a length into the statement's one binary parameter. NULL where the column is NULL.
CREATE TYPE sessions.game_write AS (
  game_id      UUID,
  status       TEXT,
  version      BIGINT,
  snapshot_at  INTEGER,
  snapshot_len INTEGER,
  acting_seats BIGINT,
  deadline_us  BIGINT,
  ranks        INTEGER[],
  scores       BIGINT[],
  end_reason   TEXT,
  at_us        BIGINT
);

CREATE TYPE sessions.seat_write AS (
  game_id          UUID,
  seat             INTEGER,
  forfeited        BOOLEAN,
  my_turn          BOOLEAN,
  turn_started_us  BIGINT,
  deadline_us      BIGINT,
  reminders_sent   SMALLINT,
  time_bank_ms     BIGINT,
  vacation_used_ms BIGINT,
  status           TEXT,
  at_us            BIGINT
);

CREATE TYPE sessions.action_write AS (
  game_id    UUID,
  version    BIGINT,
  kind       TEXT,
  cause      TEXT,
  seat       INTEGER,
  action     BIGINT,
  account_id UUID,
  entry_at   INTEGER,
  entry_len  INTEGER,
  at_us      BIGINT
);

CREATE TYPE sessions.key_write AS (
  game_id      UUID,
  account_id   UUID,
  key          TEXT,
  hash_at      INTEGER,
  hash_len     INTEGER,
  version      BIGINT,
  response_at  INTEGER,
  response_len INTEGER,
  at_us        BIGINT
);

CREATE TYPE sessions.notification_write AS (
  game_id    UUID,
  account_id UUID,
  kind       TEXT,
  version    BIGINT,
  dedupe_key TEXT,
  payload    JSONB,
  at_us      BIGINT
);

CREATE TYPE sessions.result_write AS (
  game_id UUID,
  game    TEXT,
  ranked  BOOLEAN,
  payload JSONB,
  at_us   BIGINT
);

-- Microseconds since the Unix epoch as a timestamp (NULL stays NULL). A plain SQL expression,
-- which the planner inlines: no function call per row.
CREATE FUNCTION sessions.from_us(us BIGINT) RETURNS TIMESTAMPTZ
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_timestamp(us::double precision / 1000000) $$;

-- A timestamp as microseconds since the Unix epoch (NULL stays NULL). STABLE as extract() is.
CREATE FUNCTION sessions.to_us(t TIMESTAMPTZ) RETURNS BIGINT
  LANGUAGE sql STABLE STRICT PARALLEL SAFE
  AS $$ SELECT (extract(epoch FROM t) * 1000000)::bigint $$;
