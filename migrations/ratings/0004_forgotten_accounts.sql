-- Deleted accounts this service has forgotten (their ratings, history and board rows erased),
-- by the sequence of the accounts service's deletion outbox; the highest sequence is how far the
-- outbox has been read. A result that still arrives for such an account (a game it forfeited by
-- being deleted) rates the other players and keeps nothing of the deleted one.
CREATE TABLE ratings.forgotten_accounts (
  account_id  UUID PRIMARY KEY,
  sequence    BIGINT NOT NULL,
  forget_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX forgotten_accounts_sequence_idx ON ratings.forgotten_accounts (sequence);
