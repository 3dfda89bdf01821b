-- The deletion outbox also tells other services the name the deleted account carried, so they
-- can replace it where they copied it (seats of finished games, other players' notification
-- texts). It is personal data: it is erased 30 days after the deletion, by which time every
-- service has read it (they poll every few seconds).
ALTER TABLE accounts.account_deletions ADD COLUMN former_display_name TEXT;
CREATE INDEX account_deletions_former_name_idx ON accounts.account_deletions (delete_time)
  WHERE former_display_name IS NOT NULL;
