-- Deleted accounts this service has forgotten, by the sequence of the accounts service's
-- deletion outbox; the highest sequence is how far the outbox has been read. Forgetting an
-- account removes its tickets (a party ticket it was on leaves the queue), its party (disbanded
-- when it led one), its challenges, its pending notifications, and its id from other tickets'
-- block lists. The matches it was seated in stay: they point at games, which keep the seat.
CREATE TABLE matchmaking.forgotten_accounts (
  account_id  TEXT PRIMARY KEY,
  sequence    BIGINT NOT NULL,
  forget_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX forgotten_accounts_sequence_idx ON matchmaking.forgotten_accounts (sequence);
