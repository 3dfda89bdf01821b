-- Voided results: an operator removes a rated game's effects (cheating, abuse) and the players it
-- touched are recomputed by replaying their later results in order (see services/ratings
-- README.md, "Voiding a result").

-- The side (team, or the seat in games without teams) of every rated seat, so that a replay
-- rates a game with the teams it was played in. Rows written before this column existed have
-- NULL: a replay takes the seat as the side on ladders without teams, and groups team-mates by
-- their shared rank on ladders with teams.
ALTER TABLE ratings.rating_history ADD COLUMN side INTEGER CHECK (side BETWEEN 0 AND 63);

-- One row per voided game: who voided it, why, when, and how many later results were replayed.
-- The game stays in processed_results, so a retried report of it changes nothing.
CREATE TABLE ratings.voids (
  game_id        TEXT PRIMARY KEY REFERENCES ratings.processed_results,
  ladder         TEXT NOT NULL REFERENCES ratings.ladders,
  season_id      TEXT NOT NULL REFERENCES ratings.seasons,
  reason         TEXT NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 1000),
  operator_id    TEXT NOT NULL CHECK (char_length(operator_id) BETWEEN 1 AND 128),
  void_time      TIMESTAMPTZ NOT NULL,
  replayed_games INTEGER NOT NULL CHECK (replayed_games >= 0)
);

-- The voided game's own history rows as they were before the void (the effects it removed);
-- rating_history no longer holds them.
CREATE TABLE ratings.voided_history (LIKE ratings.rating_history INCLUDING DEFAULTS);
ALTER TABLE ratings.voided_history ADD PRIMARY KEY (game_id, seat);
ALTER TABLE ratings.voided_history ADD FOREIGN KEY (game_id) REFERENCES ratings.voids;

-- Every rating row (player, season) a void changed, as it was before and after. A row the void
-- emptied (the voided game was the player's only rated game of that season) is removed from
-- ratings.ratings; its `after` is the rating the player starts that season with again, with
-- season_games_after 0.
CREATE TABLE ratings.void_effects (
  game_id             TEXT NOT NULL REFERENCES ratings.voids,
  account_id          UUID NOT NULL,
  season_id           TEXT NOT NULL REFERENCES ratings.seasons,
  rating_before       DOUBLE PRECISION NOT NULL,
  deviation_before    DOUBLE PRECISION NOT NULL,
  volatility_before   DOUBLE PRECISION NOT NULL,
  games_before        BIGINT NOT NULL,
  season_games_before BIGINT NOT NULL,
  rating_after        DOUBLE PRECISION NOT NULL,
  deviation_after     DOUBLE PRECISION NOT NULL,
  volatility_after    DOUBLE PRECISION NOT NULL,
  games_after         BIGINT NOT NULL,
  season_games_after  BIGINT NOT NULL,
  PRIMARY KEY (game_id, account_id, season_id)
);
