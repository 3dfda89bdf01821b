-- A state change's write checks in its own statement that it wrote a row for every game, seat and
-- log entry it meant to, and fails (rolling its transaction back) otherwise.
--
-- The server used to read the counts the statement returned and roll back itself when they were
-- wrong, which needed the answer of the write before the COMMIT could be sent. A batch of moves
-- now goes out as two round trips (libpq's pipeline mode: the locked read; then the write with
-- the end of the transaction), so the check moves to where the write happens. Only the new
-- statement calls the function: servers of the previous version are unaffected.
CREATE FUNCTION sessions.expect_rows_written(games BIGINT, expected_games BIGINT,
                                             seats BIGINT, expected_seats BIGINT,
                                             actions BIGINT, expected_actions BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  IF games <> expected_games OR seats <> expected_seats OR actions <> expected_actions THEN
    RAISE EXCEPTION 'state change wrote an unexpected number of rows: games % of %, seats % of %, '
                    'log entries % of %', games, expected_games, seats, expected_seats, actions,
                    expected_actions
      USING ERRCODE = 'internal_error';
  END IF;
  RETURN true;
END
$$;
