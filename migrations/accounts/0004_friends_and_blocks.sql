-- Friends (a request, then one row per pair) and blocks.

-- A pending request from one player to another.
CREATE TABLE accounts.friend_requests (
  from_account_id UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  to_account_id   UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  create_time     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (from_account_id, to_account_id),
  CHECK (from_account_id <> to_account_id)
);
CREATE INDEX friend_requests_to_idx ON accounts.friend_requests (to_account_id);

-- One row per friendship, the smaller id first, so a pair cannot be stored twice.
CREATE TABLE accounts.friendships (
  low_account_id  UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  high_account_id UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  create_time     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (low_account_id, high_account_id),
  CHECK (low_account_id < high_account_id)
);
CREATE INDEX friendships_high_idx ON accounts.friendships (high_account_id);

CREATE TABLE accounts.blocks (
  blocker_account_id UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  blocked_account_id UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  create_time        TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (blocker_account_id, blocked_account_id),
  CHECK (blocker_account_id <> blocked_account_id)
);
CREATE INDEX blocks_blocked_idx ON accounts.blocks (blocked_account_id);
