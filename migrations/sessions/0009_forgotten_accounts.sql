-- Deleted accounts this service has forgotten, by the sequence of the accounts service's
-- deletion outbox; the highest sequence is how far the outbox has been read. Forgetting an
-- account resigns its active games (by each game's forfeit rules), renames its seats everywhere
-- to the name the accounts service gave it, replaces its old name in other players' pending
-- pushes, and erases its vacation, idempotency keys, pushes, record, seen versions, nudges, chat
-- messages (and reports of them) and open rematch offers. Finished games keep the seat (with the
-- new name): the other players' history stays whole.
CREATE TABLE sessions.forgotten_accounts (
  account_id  UUID PRIMARY KEY,
  sequence    BIGINT NOT NULL,
  forget_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX forgotten_accounts_sequence_idx ON sessions.forgotten_accounts (sequence);
