-- A notification now leaves the outbox in the transaction that delivers it (the dispatcher locks
-- a batch, hands it to the receiver and deletes what was accepted), instead of being claimed and
-- then marked sent: each of those rewrote the row with an entry in every index, and the sent rows
-- were kept for good. The rows older binaries delivered and kept go now. `sent_at` stays for
-- replicas of the previous version during a rolling update (they still mark rows sent, and no
-- marked row is ever due again).
DELETE FROM sessions.notification_outbox WHERE sent_at IS NOT NULL;
