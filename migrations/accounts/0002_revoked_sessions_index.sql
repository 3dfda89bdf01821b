-- Other services poll the recently revoked sessions (ListRevokedSessions) twice a second per
-- replica: an index on revoke_time keeps that a short range scan.
CREATE INDEX sessions_revoke_time_idx ON accounts.sessions (revoke_time, session_id)
  WHERE revoke_time IS NOT NULL;
