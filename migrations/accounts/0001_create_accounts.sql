-- Accounts, their devices, sessions (refresh-token families) and refresh tokens.
-- Applied by the accounts service's migration runner into schema `accounts`.

CREATE TABLE accounts.accounts (
  account_id   UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  display_name TEXT NOT NULL
    CONSTRAINT display_name_rules CHECK (
      char_length(display_name) BETWEEN 3 AND 24
      AND display_name ~ '^[A-Za-z0-9_-]([A-Za-z0-9 _-]*[A-Za-z0-9_-])?$'),
  create_time  TIMESTAMPTZ NOT NULL DEFAULT now(),
  update_time  TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK (update_time >= create_time)
);
-- Display names are unique ignoring case ("Ada" and "ADA" cannot coexist).
CREATE UNIQUE INDEX accounts_display_name_key ON accounts.accounts (lower(display_name));

CREATE TABLE accounts.devices (
  device_id      TEXT PRIMARY KEY CHECK (char_length(device_id) BETWEEN 8 AND 128),
  account_id     UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  create_time    TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_seen_time TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX devices_account_id_idx ON accounts.devices (account_id);

-- One sign-in on one device; all refresh tokens minted by rotation belong to it, so reuse of any
-- old one can revoke the whole family.
CREATE TABLE accounts.sessions (
  session_id    UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id    UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  device_id     TEXT NOT NULL REFERENCES accounts.devices ON DELETE CASCADE,
  create_time   TIMESTAMPTZ NOT NULL DEFAULT now(),
  revoke_time   TIMESTAMPTZ,
  revoke_reason TEXT CHECK (revoke_reason IN ('sign_out', 'sign_out_all', 'refresh_token_reuse')),
  CHECK ((revoke_time IS NULL) = (revoke_reason IS NULL))
);
CREATE INDEX sessions_account_id_idx ON accounts.sessions (account_id);

-- Refresh tokens are stored only as SHA-256 hashes: a database leak yields no usable token.
CREATE TABLE accounts.refresh_tokens (
  token_hash  BYTEA PRIMARY KEY CHECK (octet_length(token_hash) = 32),
  session_id  UUID NOT NULL REFERENCES accounts.sessions ON DELETE CASCADE,
  issue_time  TIMESTAMPTZ NOT NULL,
  expire_time TIMESTAMPTZ NOT NULL,
  -- Set when the token is exchanged; a second exchange is reuse.
  use_time    TIMESTAMPTZ,
  CHECK (expire_time > issue_time),
  CHECK (use_time IS NULL OR use_time >= issue_time)
);
CREATE INDEX refresh_tokens_session_id_idx ON accounts.refresh_tokens (session_id);
