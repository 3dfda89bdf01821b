-- Time controls and visibility chosen by players (services/matchmaking/README.md, "Time controls
-- and visibility"). Each is a name from the published set (domain/time_controls.h; clients list
-- it with ListTimeControls): a ticket only meets tickets of the same game, options, mode, time
-- control and visibility (the pool key), a challenge keeps what its challenger chose, and the
-- match row carries both to sessions' CreateGame. Constant defaults (today's: 72 hours per move,
-- private): adding the columns rewrites nothing, and existing rows keep what they were made with.
ALTER TABLE matchmaking.tickets
  ADD COLUMN time_control TEXT NOT NULL DEFAULT 'per_move_3d'
    CHECK (time_control IN ('per_move_1h', 'per_move_1d', 'per_move_3d', 'per_move_7d',
                            'bank_3d_plus_1d')),
  ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('private', 'public'));
ALTER TABLE matchmaking.challenges
  ADD COLUMN time_control TEXT NOT NULL DEFAULT 'per_move_3d'
    CHECK (time_control IN ('per_move_1h', 'per_move_1d', 'per_move_3d', 'per_move_7d',
                            'bank_3d_plus_1d')),
  ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('private', 'public'));
ALTER TABLE matchmaking.matches
  ADD COLUMN time_control TEXT NOT NULL DEFAULT 'per_move_3d'
    CHECK (time_control IN ('per_move_1h', 'per_move_1d', 'per_move_3d', 'per_move_7d',
                            'bank_3d_plus_1d')),
  ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'
    CHECK (visibility IN ('private', 'public'));

-- The pass reads one pool at a time: the pool key leads the index.
DROP INDEX matchmaking.tickets_pool_idx;
CREATE INDEX tickets_pool_idx
  ON matchmaking.tickets (game, options, ranked, time_control, visibility, create_time)
  WHERE state = 'waiting';
