-- Ratings: ladders, seasons, every player's rating per ladder and season, the history of every
-- change, processed results (idempotency on game id) and leaderboard snapshots.
-- Applied by the ratings service's migration runner into schema `ratings`.

-- The ladders the service knows (synchronised from the code's ladder registry at start-up, so
-- rows referencing a ladder always name a real one).
CREATE TABLE ratings.ladders (
  ladder      TEXT PRIMARY KEY CHECK (ladder ~ '^[a-z][a-z0-9-]{0,63}$'),
  game        TEXT NOT NULL CHECK (game ~ '^[a-z][a-z0-9_]{0,63}$'),
  model       TEXT NOT NULL CHECK (model IN ('glicko2', 'weng-lin')),
  create_time TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Seasons are contiguous: a season runs from its start_time to the next season's start_time (the
-- latest one is open-ended). Results count for the season current when they are processed.
CREATE TABLE ratings.seasons (
  season_id    TEXT PRIMARY KEY CHECK (season_id ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
  display_name TEXT NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 64),
  start_time   TIMESTAMPTZ NOT NULL UNIQUE,
  create_time  TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO ratings.seasons (season_id, display_name, start_time)
VALUES ('s1', 'Season 1', '2020-01-01T00:00:00Z');

-- One row per (ladder, season, player) who has played the ladder in that season. A player's first
-- game in a new season creates the row from their latest earlier season, soft-reset.
-- Glicko-2: rating = r, deviation = RD, volatility = σ. Weng-Lin: rating = μ, deviation = σ,
-- volatility = 0. `conservative` (r − 2·RD or μ − 3σ) orders the leaderboard.
CREATE TABLE ratings.ratings (
  ladder        TEXT NOT NULL REFERENCES ratings.ladders,
  season_id     TEXT NOT NULL REFERENCES ratings.seasons,
  account_id    UUID NOT NULL,
  rating        DOUBLE PRECISION NOT NULL CHECK (rating BETWEEN -1e9 AND 1e9),
  deviation     DOUBLE PRECISION NOT NULL CHECK (deviation > 0 AND deviation <= 1e6),
  volatility    DOUBLE PRECISION NOT NULL CHECK (volatility >= 0 AND volatility < 100),
  conservative  DOUBLE PRECISION NOT NULL CHECK (conservative BETWEEN -1e10 AND 1e10),
  games         BIGINT NOT NULL CHECK (games >= 0),
  season_games  BIGINT NOT NULL CHECK (season_games >= 0 AND season_games <= games),
  provisional   BOOLEAN NOT NULL,
  last_game_time TIMESTAMPTZ,
  update_time   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (ladder, season_id, account_id)
);
-- GetMyRatings and the carry-over lookup at a new season.
CREATE INDEX ratings_account_idx ON ratings.ratings (account_id, ladder);
-- Snapshot builds walk the public board in order.
CREATE INDEX ratings_board_idx ON ratings.ratings (ladder, season_id, conservative DESC, account_id)
  WHERE NOT provisional;

-- Every rated game processed, keyed by game id: a replay finds its row and answers from the
-- history instead of rating the game again. `digest` is SHA-256 of the canonical result, so a
-- different result under the same game id is told apart from a retry. `seq` is taken after the
-- players' rows are locked, so for any two results sharing a player it orders them as applied.
CREATE SEQUENCE ratings.result_seq;
CREATE TABLE ratings.processed_results (
  game_id      TEXT PRIMARY KEY CHECK (char_length(game_id) BETWEEN 1 AND 128),
  digest       BYTEA NOT NULL CHECK (octet_length(digest) = 32),
  game         TEXT NOT NULL,
  ladder       TEXT NOT NULL REFERENCES ratings.ladders,
  season_id    TEXT NOT NULL REFERENCES ratings.seasons,
  ranked       BOOLEAN NOT NULL,
  seq          BIGINT UNIQUE,
  finish_time  TIMESTAMPTZ NOT NULL,
  process_time TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK (ranked OR seq IS NULL)
);

-- One row per player per rated game: the change it made.
CREATE TABLE ratings.rating_history (
  account_id        UUID NOT NULL,
  ladder            TEXT NOT NULL REFERENCES ratings.ladders,
  season_id         TEXT NOT NULL REFERENCES ratings.seasons,
  seq               BIGINT NOT NULL,
  game_id           TEXT NOT NULL REFERENCES ratings.processed_results,
  seat              INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 63),
  rank              INTEGER NOT NULL CHECK (rank BETWEEN 1 AND 64),
  rating_before     DOUBLE PRECISION NOT NULL,
  deviation_before  DOUBLE PRECISION NOT NULL CHECK (deviation_before > 0),
  rating_after      DOUBLE PRECISION NOT NULL CHECK (rating_after BETWEEN -1e9 AND 1e9),
  deviation_after   DOUBLE PRECISION NOT NULL CHECK (deviation_after > 0),
  volatility_after  DOUBLE PRECISION NOT NULL CHECK (volatility_after >= 0),
  conservative_after DOUBLE PRECISION NOT NULL,
  finish_time       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, ladder, seq),
  UNIQUE (game_id, seat)
);
-- "Has the board changed since its last snapshot?"
CREATE INDEX rating_history_ladder_seq_idx ON ratings.rating_history (ladder, season_id, seq);

-- Leaderboard snapshots. Each snapshot's rows live in their own table ratings.board_<snapshot_id>
-- (position, account_id and the rating as of the snapshot), created in one go by the snapshot
-- build and dropped whole when it expires, so a walk through the pages of one snapshot is stable
-- and old snapshots leave no dead rows behind. The latest snapshot of every (ladder, season) is
-- never dropped: it is that season's final board once the season is over.
--
-- board_changes counts the rating changes of every board, spread over a few shards per board so
-- concurrent results rarely wait on the same counter row. It is written in the same transaction
-- as the ratings, so a snapshot taken in one REPEATABLE READ transaction that records the sum it
-- saw is exactly up to date when the sum is unchanged (a sequence value could not say that: they
-- are handed out before commit, so commits can land out of order).
CREATE TABLE ratings.board_changes (
  ladder    TEXT NOT NULL REFERENCES ratings.ladders,
  season_id TEXT NOT NULL REFERENCES ratings.seasons,
  shard     SMALLINT NOT NULL CHECK (shard BETWEEN 0 AND 63),
  changes   BIGINT NOT NULL CHECK (changes >= 0),
  PRIMARY KEY (ladder, season_id, shard)
);

CREATE TABLE ratings.board_snapshots (
  snapshot_id  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ladder       TEXT NOT NULL REFERENCES ratings.ladders,
  season_id    TEXT NOT NULL REFERENCES ratings.seasons,
  -- sum(board_changes.changes) of the board as the snapshot saw it.
  changes      BIGINT NOT NULL CHECK (changes >= 0),
  -- Players on the board (provisional ones are left off).
  players      BIGINT NOT NULL CHECK (players >= 0),
  take_time    TIMESTAMPTZ NOT NULL,
  -- Set when a newer snapshot of the same board replaces this one; dropped some time after.
  superseded_time TIMESTAMPTZ
);
CREATE INDEX board_snapshots_board_idx
  ON ratings.board_snapshots (ladder, season_id, snapshot_id DESC);
