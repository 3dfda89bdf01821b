-- Public games that anyone signed in may watch, and the retention of idempotency keys.

-- 'public': any signed-in player may watch the game (GetGame, GetHistory, WatchGame with the
-- spectator view) and find it with ListPublicGames. 'private' (the default, and every game
-- created before this migration): only its seated players may see it.
ALTER TABLE sessions.games
  ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public'));

-- ListPublicGames: keyset pages of public games by status, newest activity first.
CREATE INDEX games_public_activity_idx ON sessions.games (status, updated_at DESC, game_id DESC)
  WHERE visibility = 'public';

-- The sweeper deletes idempotency keys older than the retention window in small batches. Keys are
-- inserted in time order, so a BRIN index finds the old ones while costing SubmitAction's insert
-- next to nothing (a B-tree on created_at would add a page write per move).
CREATE INDEX idempotency_keys_created_brin ON sessions.idempotency_keys USING brin (created_at);
