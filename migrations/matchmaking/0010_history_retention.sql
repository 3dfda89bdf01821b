-- parlor:no-transaction
-- Finished tickets and challenges are deleted once older than the retention
-- (MatchmakingService::PruneHistory, --history_retention, 30 days by default).
--
-- Every Enqueue and Challenge added rows that were kept forever, though nothing reads a ticket or
-- a challenge a week after its last change (the lists show seven days; a stream reads only the
-- ones that can still change). Each index holds only final rows (a waiting ticket or an open
-- challenge costs it nothing) by their creation, which never changes: a ticket gets its one entry
-- when it leaves 'waiting', an update that already wrote a new entry in every index, and the
-- touch that records its game stays a HOT update. A prune reads the oldest final rows through it;
-- their players' rows go with them (ON DELETE CASCADE). Built CONCURRENTLY: claims, cancels and
-- challenge answers go on while the indexes are built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS tickets_final_idx ON matchmaking.tickets (create_time)
  WHERE state <> 'waiting';
CREATE INDEX CONCURRENTLY IF NOT EXISTS challenges_final_idx ON matchmaking.challenges (create_time)
  WHERE state <> 'open';
