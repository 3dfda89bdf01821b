-- A leaderboard snapshot is published only once its board table has been vacuumed (frozen, hint
-- bits and visibility map set) and analyzed. Readers then never dirty the pages of a fresh board
-- while setting hint bits, never race the first autovacuum of a million-row table, and the
-- account -> position lookup is an index-only scan from the first read. Rows of existing
-- snapshots were built before this rule and stay readable.
ALTER TABLE ratings.board_snapshots ADD COLUMN ready BOOLEAN NOT NULL DEFAULT true;
