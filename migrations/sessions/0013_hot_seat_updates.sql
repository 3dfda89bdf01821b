-- A move rewrites its game's seat rows (whose turn it is, the clocks, updated_at). Until now the
-- inbox index, seats_account_activity_idx (account_id, updated_at DESC, game_id), named
-- updated_at, so every one of those updates was non-HOT: a new entry in each of the three
-- indexes of the table, per seat, per move. ListMyGames now finds a player's games through two
-- indexes whose columns a move never changes:
--   seats_account_active_idx    the player's games in progress (few: bounded by what one person
--                               plays at once), sorted by the game's updated_at as they are read;
--   seats_account_finished_idx  the player's finished games by finished_at, newest first, for
--                               keyset pages however many there are.
-- A move's seat updates then touch no indexed column and stay on their page (HOT); fillfactor
-- leaves every page room for the next versions of its rows.

-- When the seat's game ended: the updated_at of the write that finished the seat (every player
-- seat is written with its game, so this is the game's finished_at); NULL while it runs. Computed
-- by PostgreSQL, so that a server that predates this migration (a rolling deploy) writes it too.
ALTER TABLE sessions.seats ADD COLUMN finished_at TIMESTAMPTZ
  GENERATED ALWAYS AS (CASE WHEN status = 'finished' THEN updated_at END) STORED;

CREATE INDEX seats_account_active_idx ON sessions.seats (account_id, game_id)
  WHERE account_id IS NOT NULL AND status = 'active';
CREATE INDEX seats_account_finished_idx
  ON sessions.seats (account_id, finished_at DESC, game_id DESC)
  WHERE account_id IS NOT NULL AND status = 'finished';
DROP INDEX sessions.seats_account_activity_idx;

ALTER TABLE sessions.seats SET (fillfactor = 60);
