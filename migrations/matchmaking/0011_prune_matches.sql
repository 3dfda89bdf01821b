-- parlor:no-transaction
-- Matches whose game was created are deleted once older than the retention, after their tickets
-- and challenge (MatchmakingService::PruneHistory, --history_retention, 30 days by default).
--
-- A match row is read while its game is being created (the outbox) and, after that, only through
-- its tickets and challenge, which show its game; those are pruned by 0010, and a match then
-- stayed forever with its players' account ids. This index holds only matches whose game exists,
-- by when it was created, which never changes afterwards. Its cost: one entry per match, written
-- by the update that records the game, which already writes a new entry in every index (it
-- leaves matches_outbox_idx's predicate, so it is never a HOT update). Built CONCURRENTLY: games
-- are recorded while it is built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS matches_created_idx ON matchmaking.matches
  (game_create_time) WHERE game_id IS NOT NULL;
