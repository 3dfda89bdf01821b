-- The turn state of a game that is over is deleted once it can no longer matter
-- (NotificationsService::Prune, --inbox_retention plus a day).
--
-- A turns row stays after its game ends, with my_turn false, so that a late event of an older
-- version cannot bring the turn back; there was one per player of every game ever played. An
-- event committed before the retention is acknowledged and not stored (0005's pruning), so once
-- the game-over event is older than the retention no event of the game can change the row any
-- more, and it goes. over_time is the game-over event's commit time, written once by that event;
-- the updates of a game in progress leave it NULL, so they stay HOT where they were, and this
-- index holds only the rows of games that are over. Rows of games that ended before this
-- migration keep NULL and stay.
ALTER TABLE notifications.turns ADD COLUMN over_time TIMESTAMPTZ;
CREATE INDEX turns_over_idx ON notifications.turns (over_time) WHERE over_time IS NOT NULL;
