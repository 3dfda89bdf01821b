-- Notifications: devices' push tokens, preferences, accepted events (the inbox), the turn state
-- behind the badge, and the delivery queue. Applied into schema `notifications`.
-- Kinds and platforms are the enum numbers of parlor.notifications.v1 (EventKind, Platform).

CREATE TABLE notifications.devices (
  device_id   UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id  UUID NOT NULL,
  platform    SMALLINT NOT NULL CHECK (platform IN (1, 2)),
  token       TEXT NOT NULL CHECK (char_length(token) BETWEEN 20 AND 4096),
  locale      TEXT NOT NULL,
  time_zone   TEXT NOT NULL,
  app_id      TEXT NOT NULL,
  sandbox     BOOLEAN NOT NULL DEFAULT false,
  create_time TIMESTAMPTZ NOT NULL,
  update_time TIMESTAMPTZ NOT NULL,
  -- A token belongs to one account: registering it again moves the row.
  UNIQUE (platform, token)
);
CREATE INDEX devices_account_idx ON notifications.devices (account_id, create_time DESC);

CREATE TABLE notifications.preferences (
  account_id     UUID PRIMARY KEY,
  muted_game_ids TEXT[] NOT NULL DEFAULT '{}',
  disabled_kinds SMALLINT[] NOT NULL DEFAULT '{}',
  quiet_start    SMALLINT CHECK (quiet_start BETWEEN 0 AND 1439),
  quiet_end      SMALLINT CHECK (quiet_end BETWEEN 0 AND 1439),
  time_zone      TEXT NOT NULL DEFAULT 'UTC',
  update_time    TIMESTAMPTZ NOT NULL,
  CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
);

-- Every accepted event, once per dedupe key. Those with in_inbox are the player's inbox.
CREATE TABLE notifications.events (
  notification_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  dedupe_key      TEXT NOT NULL UNIQUE,
  account_id      UUID NOT NULL,
  kind            SMALLINT NOT NULL CHECK (kind BETWEEN 1 AND 9),
  game_id         TEXT NOT NULL DEFAULT '',
  game            TEXT NOT NULL DEFAULT '',
  version         BIGINT NOT NULL DEFAULT 0,
  title_loc_key   TEXT NOT NULL,
  loc_key         TEXT NOT NULL,
  loc_args        TEXT[] NOT NULL DEFAULT '{}',
  deep_link       TEXT NOT NULL,
  commit_time     TIMESTAMPTZ NOT NULL,
  expire_time     TIMESTAMPTZ,
  create_time     TIMESTAMPTZ NOT NULL,
  in_inbox        BOOLEAN NOT NULL,
  read_time       TIMESTAMPTZ
);
CREATE INDEX events_inbox_idx ON notifications.events (account_id, notification_id DESC)
  WHERE in_inbox;
CREATE INDEX events_unread_idx ON notifications.events (account_id)
  WHERE in_inbox AND read_time IS NULL;

-- Whose turn it is, per account and game, as the events told: the badge counts my_turn rows
-- whose turn has not expired.
CREATE TABLE notifications.turns (
  account_id  UUID NOT NULL,
  game_id     TEXT NOT NULL,
  version     BIGINT NOT NULL,
  my_turn     BOOLEAN NOT NULL,
  expire_time TIMESTAMPTZ,
  PRIMARY KEY (account_id, game_id)
);

-- The delivery queue: one row per event and device still to be pushed. A row leaves the queue
-- when the provider accepts it, refuses it for good, its token is dead, or it expires. due_time
-- is when it may be (re)tried; a claim moves it forward by the lease.
CREATE TABLE notifications.deliveries (
  delivery_id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notification_id BIGINT NOT NULL REFERENCES notifications.events ON DELETE CASCADE,
  device_id       UUID NOT NULL REFERENCES notifications.devices ON DELETE CASCADE,
  account_id      UUID NOT NULL,
  game_id         TEXT NOT NULL,
  kind            SMALLINT NOT NULL,
  version         BIGINT NOT NULL,
  badge           INTEGER NOT NULL,
  commit_time     TIMESTAMPTZ NOT NULL,
  expire_time     TIMESTAMPTZ,
  due_time        TIMESTAMPTZ NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT
);
CREATE INDEX deliveries_due_idx ON notifications.deliveries (due_time);
CREATE INDEX deliveries_game_idx ON notifications.deliveries (account_id, game_id)
  WHERE game_id <> '';
CREATE INDEX deliveries_device_idx ON notifications.deliveries (device_id);
CREATE INDEX deliveries_commit_idx ON notifications.deliveries (commit_time);
