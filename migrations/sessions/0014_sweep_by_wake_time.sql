-- The sweeper's work list by the moment each game next needs it.
--
-- Until now the sweeper listed due games by walking games_deadline_idx from the earliest
-- deadline and testing every active game's seats for a due deadline or reminder: a reminder falls
-- due long before the deadline, so the walk could not stop at "now", and a sweep with nothing due
-- read every game in progress (102,034 active games: 424 ms and ~500,000 buffers per sweep, on
-- every replica, every 10 s). wake_at is that moment, computed by the server with every write of
-- the game (NextSweepAt in services/sessions/store/rows.h: the earliest deadline or next reminder
-- of a running turn); NULL when there is none. A sweep reads the index from its start to "now".
ALTER TABLE sessions.games
  ADD COLUMN wake_at TIMESTAMPTZ,
  -- The version wake_at was computed for (see the trigger below).
  ADD COLUMN wake_version BIGINT;

UPDATE sessions.games g
SET wake_at = (
      SELECT min(LEAST(s.deadline,
                       CASE WHEN s.reminders_sent < 2 THEN
                         GREATEST(s.turn_started_at + (s.deadline - s.turn_started_at) *
                                    CASE WHEN s.reminders_sent = 0 THEN 0.5 ELSE 0.9 END,
                                  s.paused_until)
                       END))
      FROM sessions.seats s
      WHERE s.game_id = g.game_id AND s.my_turn AND s.deadline IS NOT NULL
        AND s.turn_started_at IS NOT NULL),
    wake_version = g.version
WHERE g.status = 'active';

CREATE INDEX games_wake_idx ON sessions.games (wake_at) WHERE status = 'active';
DROP INDEX sessions.games_deadline_idx;

-- The game row as a state change writes it: game_write with wake_at. A new type rather than a
-- new attribute, so that servers of the previous version keep writing game_write during a
-- rolling update.
CREATE TYPE sessions.game_write_v2 AS (
  game_id      UUID,
  status       TEXT,
  version      BIGINT,
  snapshot_at  INTEGER,
  snapshot_len INTEGER,
  acting_seats BIGINT,
  deadline_us  BIGINT,
  ranks        INTEGER[],
  scores       BIGINT[],
  end_reason   TEXT,
  at_us        BIGINT,
  wake_us      BIGINT
);

-- A server of the previous version (a rolling update) writes games without wake_at: its writes
-- leave wake_version behind the version, and the game is then due at once ('-infinity'), so that
-- the next sweep looks at it and writes its wake_at. Servers of this version always write both,
-- and the condition keeps the function from running for their writes.
CREATE FUNCTION sessions.games_wake_unknown() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.wake_at := CASE WHEN NEW.status = 'active' THEN '-infinity'::timestamptz END;
  RETURN NEW;
END
$$;
CREATE TRIGGER games_wake_unknown BEFORE INSERT OR UPDATE ON sessions.games
  FOR EACH ROW WHEN (NEW.wake_version IS DISTINCT FROM NEW.version)
  EXECUTE FUNCTION sessions.games_wake_unknown();
