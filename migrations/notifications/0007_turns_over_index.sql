-- parlor:no-transaction
-- The games that are over, by the commit of their game-over event (0006), for the prune. Built
-- CONCURRENTLY: events are accepted while it is built.
CREATE INDEX CONCURRENTLY IF NOT EXISTS turns_over_idx ON notifications.turns (over_time)
  WHERE over_time IS NOT NULL;
