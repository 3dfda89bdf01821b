-- A sender's claim on a queued push is its own column (lease_time: nobody else takes the push
-- before then) instead of moving due_time forward. A claim then changes no indexed column, so
-- PostgreSQL updates the row in place (a HOT update, with room left on each page for it by the
-- fill factor) instead of adding an entry to each of the table's indexes for every push sent.
-- due_time stays when the push may go out (a retry moves it, and clears the lease).
ALTER TABLE notifications.deliveries ADD COLUMN lease_time TIMESTAMPTZ;
ALTER TABLE notifications.deliveries SET (fillfactor = 80);
-- No statement reads the queue by commit time (the oldest-age gauge scans the table it counts):
-- one index fewer to write for every push queued.
DROP INDEX notifications.deliveries_commit_idx;
