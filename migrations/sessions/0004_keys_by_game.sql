-- Every key of a per-game table includes game_id, so that a cluster that spreads games over
-- several servers by game_id (Citus: k8s/citus) can enforce each key on one server. The
-- notification dedupe keys already name their game ("turn:<game>:...", "over:<game>:..."), so
-- (game_id, dedupe_key) is unique exactly when dedupe_key is: nothing a client sees changes.
ALTER TABLE sessions.notification_outbox
  DROP CONSTRAINT notification_outbox_pkey,
  ADD CONSTRAINT notification_outbox_pkey PRIMARY KEY (game_id, id);
ALTER TABLE sessions.notification_outbox
  DROP CONSTRAINT notification_outbox_dedupe_key_key,
  ADD CONSTRAINT notification_outbox_dedupe_key_key UNIQUE (game_id, dedupe_key);
-- The dispatcher marks a row sent or failed by its id alone.
CREATE INDEX notification_outbox_id_idx ON sessions.notification_outbox (id);
