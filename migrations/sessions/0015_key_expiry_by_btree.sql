-- Expired idempotency keys found by a B-tree on their age, not a BRIN.
--
-- 0002 chose a BRIN on created_at because keys are inserted in time order. They stop being in
-- time order on disk as soon as the sweeper deletes expired keys: vacuum frees their space and
-- new keys fill it, and a BRIN range's summary only widens, so every range soon holds a key
-- older than the cutoff. The sweeper's "keys older than the cutoff" then read nearly the whole
-- table, on every replica, every 10 s: after a week of such churn, 17,901 of the table's ~20,000
-- pages to delete 348 due keys (350,000 keys). A B-tree reads the due keys only. Its cost is one
-- index entry per move, written on the rightmost page.
--
-- Building it holds a lock that blocks moves (SubmitAction's key insert) while it runs: 0.32 s
-- for 1.35 million keys on the 2-core development machine (see docs/OPERATIONS.md, "Migrate").
CREATE INDEX idempotency_keys_created_idx ON sessions.idempotency_keys (created_at);
DROP INDEX sessions.idempotency_keys_created_brin;
