-- Linked credentials (email + password, Sign in with Apple, Google Sign-In), the one-time codes
-- that prove an email address, ID tokens already used, and removable devices.

CREATE TABLE accounts.credentials (
  credential_id  UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id     UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  kind           TEXT NOT NULL CHECK (kind IN ('email', 'apple', 'google')),
  -- The lower-cased email address (email), or the provider's stable `sub` (apple, google).
  subject        TEXT NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 255),
  -- What the player sees in ListCredentials: the address, or the one the provider reported.
  email          TEXT NOT NULL DEFAULT '' CHECK (char_length(email) <= 254),
  -- argon2id, PHC string format (salt and parameters inside); email credentials only.
  password_hash  TEXT CHECK (password_hash LIKE '$argon2id$%'),
  create_time    TIMESTAMPTZ NOT NULL,
  last_used_time TIMESTAMPTZ NOT NULL,
  CHECK ((kind = 'email') = (password_hash IS NOT NULL)),
  CHECK (last_used_time >= create_time),
  -- A credential belongs to one account: never two accounts behind one email or Apple ID.
  CONSTRAINT credentials_subject_key UNIQUE (kind, subject),
  -- At most one credential of each kind per account.
  CONSTRAINT credentials_account_kind_key UNIQUE (account_id, kind)
);

-- One live code per account and purpose; asking again replaces it. Only a hash is kept.
CREATE TABLE accounts.email_codes (
  account_id      UUID NOT NULL REFERENCES accounts.accounts ON DELETE CASCADE,
  purpose         TEXT NOT NULL CHECK (purpose IN ('link', 'password_reset')),
  email           TEXT NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  code_hash       BYTEA NOT NULL CHECK (octet_length(code_hash) = 32),
  create_time     TIMESTAMPTZ NOT NULL,
  expire_time     TIMESTAMPTZ NOT NULL,
  -- Wrong codes tried against this one; at the limit it stops working.
  failed_attempts INT NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  PRIMARY KEY (account_id, purpose),
  CHECK (expire_time > create_time)
);

-- ID tokens accepted once each (SHA-256 of the token), kept until they expire.
CREATE TABLE accounts.used_id_tokens (
  token_hash  BYTEA PRIMARY KEY CHECK (octet_length(token_hash) = 32),
  provider    TEXT NOT NULL CHECK (provider IN ('apple', 'google')),
  expire_time TIMESTAMPTZ NOT NULL
);
CREATE INDEX used_id_tokens_expire_time_idx ON accounts.used_id_tokens (expire_time);

-- A removed device (a lost phone) keeps its row, so its device id cannot sign in again.
ALTER TABLE accounts.devices ADD COLUMN removed_time TIMESTAMPTZ;

ALTER TABLE accounts.sessions DROP CONSTRAINT sessions_revoke_reason_check;
ALTER TABLE accounts.sessions ADD CONSTRAINT sessions_revoke_reason_check
  CHECK (revoke_reason IN ('sign_out', 'sign_out_all', 'refresh_token_reuse', 'device_removed',
                           'password_reset'));
