-- A move's update of its game row names no indexed column that changes, so PostgreSQL can keep
-- the new row version on its page without an entry in any of the table's indexes (a HOT update),
-- as migration 0013 did for the seats.
--
-- Until now every move changed two indexed columns of its game: updated_at, a key of the public
-- listing's index, and wake_at, the sweeper's index. Each move then added an entry to each of
-- games' three indexes (the primary key too) and left the old ones for VACUUM: ~140 B of WAL per
-- move (two-player Pico, measured), and more work for every index scan until VACUUM came.
--
-- - The public listing reads listed_at: the updated_at of a public game, NULL for any other, set
--   by the trigger below whatever server writes the row (a server of the previous version
--   during a rolling update too). A private game's listed_at stays NULL, so its moves leave the
--   index alone. ListPublicGames orders by it exactly as it did by updated_at; a server of the
--   previous version still lists correctly, by updated_at, without an index.
-- - wake_at (migration 0014) may now be earlier than the game's next deadline or reminder: a
--   move keeps the stored wake time while it is still ahead of the move and no later than the
--   new one (kWriteMutations). The sweeper then looks at the game early, finds nothing due and
--   stores the exact time (its write always does), once per reminder interval rather than once
--   per move. A game is never looked at late.
--
-- No table is rewritten: listed_at has no default, and only public games' rows get a value. The
-- new index is built under the table's share lock (writes wait, reads go on), like 0002's.
-- fillfactor leaves room on new pages for the next versions of their rows.

ALTER TABLE sessions.games ADD COLUMN listed_at TIMESTAMPTZ;

CREATE FUNCTION sessions.games_listed_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.listed_at := NEW.updated_at;
  RETURN NEW;
END
$$;
CREATE TRIGGER games_listed_at BEFORE INSERT OR UPDATE ON sessions.games
  FOR EACH ROW WHEN (NEW.visibility = 'public')
  EXECUTE FUNCTION sessions.games_listed_at();

UPDATE sessions.games SET listed_at = updated_at WHERE visibility = 'public';

CREATE INDEX games_public_listing_idx ON sessions.games (status, listed_at DESC, game_id DESC)
  WHERE visibility = 'public';
DROP INDEX sessions.games_public_activity_idx;

ALTER TABLE sessions.games SET (fillfactor = 70);
