-- The dispatcher now takes a batch of due notifications by deleting it (and puts back, with
-- their retry, the rows it could not deliver), all in the transaction that delivers them. It
-- finds the rows through the pending index and reaches them by the primary key, (game_id, id);
-- nothing looks a row up by its id alone any more, so that index only cost every insert an entry.
DROP INDEX sessions.notification_outbox_id_idx;

-- A finished game's records (count_player_records, migration 0007) ask whether each seat
-- forfeited by timeout: through the primary key that read every log entry of the game, and the
-- end of a game was the costliest trigger of the move that ended it. Forfeits are rare; this
-- index holds only them.
CREATE INDEX actions_forfeits_idx ON sessions.actions (game_id, seat) WHERE kind = 'forfeit';
