-- Every move rewrites its game's snapshot, which is large enough to be compressed out of line.
-- PostgreSQL's default pglz compression was the largest single cost of a move inside the
-- database (about a tenth of its CPU in the sessions load test); lz4 compresses several times
-- faster at a similar ratio. Existing values stay as they are until their row is next written.
ALTER TABLE sessions.games ALTER COLUMN snapshot SET COMPRESSION lz4;
