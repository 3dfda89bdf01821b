-- The two outboxes are queues: every row is inserted, claimed (its next_attempt_at rewritten, so
-- never a HOT update) and marked sent within seconds. Each of those leaves a dead entry in the
-- partial "pending" index that the claim scans, and at the default autovacuum threshold (20 % of
-- the table) a busy table collects tens of thousands of them: measured under a 10-second load, the
-- claim's index scan walked 2,800 entries to find 16 pending rows. Vacuum them after a fixed
-- number of changed rows instead of a share of the table, and after inserts too.
ALTER TABLE sessions.notification_outbox SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 2000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 5000
);

ALTER TABLE sessions.result_outbox SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 2000,
  autovacuum_vacuum_insert_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 5000
);
