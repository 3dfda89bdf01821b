-- Deleted accounts this service has forgotten (their devices, push tokens, preferences, inbox
-- and turn state erased), by the sequence of the accounts service's deletion outbox. The highest
-- sequence is how far the outbox has been read. Events that still arrive for such an account
-- (e.g. the game it forfeited by being deleted) are not stored.
CREATE TABLE notifications.forgotten_accounts (
  account_id  UUID PRIMARY KEY,
  sequence    BIGINT NOT NULL,
  forget_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX forgotten_accounts_sequence_idx ON notifications.forgotten_accounts (sequence);
