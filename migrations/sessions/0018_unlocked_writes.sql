-- A batch of moves decided on game rows this server holds, without reading them first.
--
-- A server keeps each game row it wrote (with the id of the transaction that wrote it, the row's
-- `xmin`). While the stored row still carries that id and version, nothing has written the game
-- since, so a batch may decide its moves on the rows held and send its write and commit in one
-- round trip, without the locked read. The write then checks what the locked read would have
-- found: each such game's row still carries its stamp (the UPDATE's condition, re-checked on the
-- newest row after a wait for its lock), and no answer is stored under the batch's idempotency
-- keys yet (the keys are inserted ON CONFLICT DO NOTHING and counted). When either check fails,
-- the write raises serialization_failure, the transaction rolls back, and the server decides the
-- batch again on the locked rows. A batch that read its rows locked fails as before: INTERNAL.
-- Only the new statement calls the function: servers of the previous version are unaffected.
CREATE FUNCTION sessions.expect_batch_written(games BIGINT, expected_games BIGINT,
                                              seats BIGINT, expected_seats BIGINT,
                                              actions BIGINT, expected_actions BIGINT,
                                              keys BIGINT, expected_keys BIGINT,
                                              decided_unlocked BOOLEAN)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  IF decided_unlocked AND (games <> expected_games OR keys <> expected_keys) THEN
    RAISE EXCEPTION 'a game or idempotency key changed since this server wrote it: games % of %, '
                    'keys % of %', games, expected_games, keys, expected_keys
      USING ERRCODE = 'serialization_failure';
  END IF;
  IF games <> expected_games OR seats <> expected_seats OR actions <> expected_actions
     OR keys <> expected_keys THEN
    RAISE EXCEPTION 'state change wrote an unexpected number of rows: games % of %, seats % of %, '
                    'log entries % of %, keys % of %', games, expected_games, seats,
                    expected_seats, actions, expected_actions, keys, expected_keys
      USING ERRCODE = 'internal_error';
  END IF;
  RETURN true;
END
$$;
