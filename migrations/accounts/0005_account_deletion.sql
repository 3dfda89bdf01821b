-- Deleted accounts: the row stays (finished games keep pointing at it) with its personal data
-- replaced; account_deletions is the outbox other services read (ListDeletedAccounts) to delete
-- what they own about the account.
ALTER TABLE accounts.accounts ADD COLUMN delete_time TIMESTAMPTZ;

CREATE TABLE accounts.account_deletions (
  sequence    BIGSERIAL PRIMARY KEY,
  account_id  UUID NOT NULL UNIQUE REFERENCES accounts.accounts,
  delete_time TIMESTAMPTZ NOT NULL
);

ALTER TABLE accounts.sessions DROP CONSTRAINT sessions_revoke_reason_check;
ALTER TABLE accounts.sessions ADD CONSTRAINT sessions_revoke_reason_check
  CHECK (revoke_reason IN ('sign_out', 'sign_out_all', 'refresh_token_reuse', 'device_removed',
                           'password_reset', 'account_deleted'));

-- DeleteAccount replaces a deleted account's device ids by a digest; its sessions follow.
ALTER TABLE accounts.sessions DROP CONSTRAINT sessions_device_id_fkey;
ALTER TABLE accounts.sessions ADD CONSTRAINT sessions_device_id_fkey
  FOREIGN KEY (device_id) REFERENCES accounts.devices ON DELETE CASCADE ON UPDATE CASCADE;
