-- Clocks that pause for vacations and never lock a seat out, and players' records
-- (services/sessions/README.md, "Time controls, vacations, the sweeper" and "Player records").
--
-- Seats:
--   vacation_until    the seat's player is on vacation until then (shown to everyone); set on
--                     every active seat of the player by StartVacation, cleared by EndVacation.
--   paused_until      the seat's running turn has its clock stopped until then (a vacation,
--                     within the game's allowance): turn_started_at and deadline were moved
--                     forward by the pause, and vacation_used_ms charged with it. Ending the
--                     vacation early (or the turn ending during the pause) gives back the part
--                     not used.
--   timeouts_in_a_row how many of the seat's turns in a row ended by a timeout (a move of its
--                     own resets it); a casual game forfeits the seat at the service's limit.
ALTER TABLE sessions.seats
  ADD COLUMN vacation_until TIMESTAMPTZ,
  ADD COLUMN paused_until TIMESTAMPTZ,
  ADD COLUMN timeouts_in_a_row SMALLINT NOT NULL DEFAULT 0 CHECK (timeouts_in_a_row >= 0);

-- kWriteMutations writes them with the other seat columns.
ALTER TYPE sessions.seat_write
  ADD ATTRIBUTE vacation_until_us BIGINT,
  ADD ATTRIBUTE paused_until_us BIGINT,
  ADD ATTRIBUTE timeouts_in_a_row SMALLINT;

-- Every vacation taken (sessions.vacations keeps only the running one): the yearly allowance is
-- counted from it. ended_at is the planned end, or the time EndVacation ended it early.
CREATE TABLE sessions.vacation_history (
  account_id UUID NOT NULL,
  started_at TIMESTAMPTZ NOT NULL,
  ended_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, started_at),
  CHECK (ended_at >= started_at)
);

-- A player's record in games against people (games with a match id): each finished game counts
-- once per seated player, as finished (played to the end), resigned (the seat forfeited by
-- Resign) or timed_out (the seat forfeited because its clock ran out).
CREATE TABLE sessions.player_records (
  account_id UUID PRIMARY KEY,
  finished   INTEGER NOT NULL DEFAULT 0 CHECK (finished >= 0),
  resigned   INTEGER NOT NULL DEFAULT 0 CHECK (resigned >= 0),
  timed_out  INTEGER NOT NULL DEFAULT 0 CHECK (timed_out >= 0),
  updated_at TIMESTAMPTZ NOT NULL
);

-- Maintained in the transaction that ends the game: the games row's change to 'finished' (the
-- same statement writes the seats and the log entries; an AFTER trigger sees them).
CREATE FUNCTION sessions.count_player_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sessions.player_records AS p (account_id, finished, resigned, timed_out,
                                            updated_at)
  SELECT s.account_id,
         CASE WHEN NOT s.forfeited THEN 1 ELSE 0 END,
         CASE WHEN s.forfeited AND NOT t.timed_out THEN 1 ELSE 0 END,
         CASE WHEN s.forfeited AND t.timed_out THEN 1 ELSE 0 END,
         NEW.updated_at
  FROM sessions.seats s
  CROSS JOIN LATERAL (
    SELECT EXISTS (SELECT 1 FROM sessions.actions a
                   WHERE a.game_id = s.game_id AND a.seat = s.seat AND a.kind = 'forfeit'
                     AND a.cause = 'timeout') AS timed_out) t
  WHERE s.game_id = NEW.game_id AND s.account_id IS NOT NULL
  ON CONFLICT (account_id) DO UPDATE SET
    finished = p.finished + EXCLUDED.finished,
    resigned = p.resigned + EXCLUDED.resigned,
    timed_out = p.timed_out + EXCLUDED.timed_out,
    updated_at = EXCLUDED.updated_at;
  RETURN NULL;
END;
$$;
CREATE TRIGGER games_count_player_records AFTER UPDATE OF status ON sessions.games
  FOR EACH ROW
  WHEN (NEW.status = 'finished' AND OLD.status <> 'finished' AND NEW.match_id IS NOT NULL)
  EXECUTE FUNCTION sessions.count_player_records();
