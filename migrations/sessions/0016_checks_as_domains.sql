-- The single-column CHECKs of the tables a move writes become domains, checked the same way.
--
-- PostgreSQL reads a table's CHECK constraints from their stored text and plans them again in
-- every statement that writes the table, and checks every one on every row it writes, changed
-- columns or not. A move's one write statement touches five such tables (games alone had 23
-- CHECKs): at one move per transaction the statement took ~500 us of which ~200 went to the
-- CHECKs (measured by dropping them all, on the 2-core development machine). A domain's
-- constraint stays parsed in the backend's type cache and is checked only when a value of the
-- column is written, so a move's update no longer re-checks a game's name, options or seed
-- commitment: the statement takes ~400 us, and ~20 % less time per batch at 32 games.
--
-- What stays a table CHECK: the constraints across columns; the columns a trigger's WHEN or a
-- generated column names (games.status, version and match_id, seats.status), and the columns an
-- index names, in its keys or its WHERE (games.visibility, actions.kind, seat and version,
-- idempotency_keys.key, notification_outbox.dedupe_key): PostgreSQL refuses the first kind of
-- type change and rebuilds the index for the second, under the table's exclusive lock. And
-- games.tc_kind: the game insert of this and earlier servers compares its parameter with text as
-- well as storing it, and PostgreSQL refuses a parameter deduced as both the domain and text. No
-- other statement of the server changes with this migration, so replicas of the previous version
-- keep working on the new schema during the rollout.
--
-- No table is rewritten or scanned. A column can take a domain without a rewrite only while the
-- domain has no constraint, so each domain is created empty, the columns take it, and then the
-- domain gets its constraint NOT VALID: every later value is checked; the rows already stored
-- passed the identical table CHECK dropped in the same transaction. Each ALTER TABLE holds its
-- table's exclusive lock for a catalog change only (milliseconds, whatever the table's size).

CREATE DOMAIN sessions.game_name AS TEXT;
CREATE DOMAIN sessions.player_count AS INTEGER;
CREATE DOMAIN sessions.json_object AS JSONB;
CREATE DOMAIN sessions.game_snapshot AS BYTEA;
CREATE DOMAIN sessions.sha256_hex AS TEXT;
CREATE DOMAIN sessions.sha256_bytes AS BYTEA;
CREATE DOMAIN sessions.seat_bitmask AS BIGINT;
CREATE DOMAIN sessions.per_move_seconds AS BIGINT;
CREATE DOMAIN sessions.time_bank_seconds AS BIGINT;
CREATE DOMAIN sessions.non_negative_bigint AS BIGINT;
CREATE DOMAIN sessions.positive_bigint AS BIGINT;
CREATE DOMAIN sessions.non_negative_integer AS INTEGER;
CREATE DOMAIN sessions.vacation_days AS INTEGER;
CREATE DOMAIN sessions.seat_number AS INTEGER;
CREATE DOMAIN sessions.bot_name AS TEXT;
CREATE DOMAIN sessions.display_name AS TEXT;
CREATE DOMAIN sessions.reminder_count AS SMALLINT;
CREATE DOMAIN sessions.non_negative_smallint AS SMALLINT;
CREATE DOMAIN sessions.action_cause AS TEXT;
CREATE DOMAIN sessions.notification_kind AS TEXT;

ALTER TABLE sessions.games
  ALTER COLUMN game TYPE sessions.game_name,
  ALTER COLUMN num_players TYPE sessions.player_count,
  ALTER COLUMN options TYPE sessions.json_object,
  ALTER COLUMN snapshot TYPE sessions.game_snapshot,
  ALTER COLUMN seed_commitment TYPE sessions.sha256_hex,
  ALTER COLUMN acting_seats TYPE sessions.seat_bitmask,
  ALTER COLUMN tc_per_move_s TYPE sessions.per_move_seconds,
  ALTER COLUMN tc_bank_initial_s TYPE sessions.time_bank_seconds,
  ALTER COLUMN tc_bank_increment_s TYPE sessions.non_negative_bigint,
  ALTER COLUMN vacation_days TYPE sessions.vacation_days,
  DROP CONSTRAINT games_game_check,
  DROP CONSTRAINT games_num_players_check,
  DROP CONSTRAINT games_options_check,
  DROP CONSTRAINT games_snapshot_check,
  DROP CONSTRAINT games_seed_commitment_check,
  DROP CONSTRAINT games_acting_seats_check,
  DROP CONSTRAINT games_tc_per_move_s_check,
  DROP CONSTRAINT games_tc_bank_initial_s_check,
  DROP CONSTRAINT games_tc_bank_increment_s_check,
  DROP CONSTRAINT games_vacation_days_check;

ALTER TABLE sessions.seats
  ALTER COLUMN seat TYPE sessions.seat_number,
  ALTER COLUMN bot TYPE sessions.bot_name,
  ALTER COLUMN display_name TYPE sessions.display_name,
  ALTER COLUMN team TYPE sessions.seat_number,
  ALTER COLUMN reminders_sent TYPE sessions.reminder_count,
  ALTER COLUMN time_bank_ms TYPE sessions.non_negative_bigint,
  ALTER COLUMN vacation_used_ms TYPE sessions.non_negative_bigint,
  ALTER COLUMN timeouts_in_a_row TYPE sessions.non_negative_smallint,
  DROP CONSTRAINT seats_seat_check,
  DROP CONSTRAINT seats_bot_check,
  DROP CONSTRAINT seats_display_name_check,
  DROP CONSTRAINT seats_team_check,
  DROP CONSTRAINT seats_reminders_sent_check,
  DROP CONSTRAINT seats_time_bank_ms_check,
  DROP CONSTRAINT seats_vacation_used_ms_check,
  DROP CONSTRAINT seats_timeouts_in_a_row_check;

ALTER TABLE sessions.actions
  ALTER COLUMN cause TYPE sessions.action_cause,
  DROP CONSTRAINT actions_cause_check;

ALTER TABLE sessions.idempotency_keys
  ALTER COLUMN request_hash TYPE sessions.sha256_bytes,
  ALTER COLUMN version TYPE sessions.positive_bigint,
  DROP CONSTRAINT idempotency_keys_request_hash_check,
  DROP CONSTRAINT idempotency_keys_version_check;

ALTER TABLE sessions.notification_outbox
  ALTER COLUMN kind TYPE sessions.notification_kind,
  ALTER COLUMN payload TYPE sessions.json_object,
  ALTER COLUMN version TYPE sessions.non_negative_bigint,
  ALTER COLUMN attempts TYPE sessions.non_negative_integer,
  DROP CONSTRAINT notification_outbox_kind_check,
  DROP CONSTRAINT notification_outbox_payload_check,
  DROP CONSTRAINT notification_outbox_version_check,
  DROP CONSTRAINT notification_outbox_attempts_check;

ALTER DOMAIN sessions.game_name ADD CHECK (VALUE ~ '^[a-z][a-z0-9_]{0,63}$') NOT VALID;
ALTER DOMAIN sessions.player_count ADD CHECK (VALUE BETWEEN 1 AND 32) NOT VALID;
ALTER DOMAIN sessions.json_object ADD CHECK (jsonb_typeof(VALUE) = 'object') NOT VALID;
ALTER DOMAIN sessions.game_snapshot ADD CHECK (octet_length(VALUE) > 0) NOT VALID;
ALTER DOMAIN sessions.sha256_hex ADD CHECK (VALUE ~ '^[0-9a-f]{64}$') NOT VALID;
ALTER DOMAIN sessions.sha256_bytes ADD CHECK (octet_length(VALUE) = 32) NOT VALID;
ALTER DOMAIN sessions.seat_bitmask ADD CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN sessions.per_move_seconds ADD CHECK (VALUE BETWEEN 3600 AND 14 * 86400) NOT VALID;
ALTER DOMAIN sessions.time_bank_seconds ADD CHECK (VALUE BETWEEN 3600 AND 30 * 86400) NOT VALID;
ALTER DOMAIN sessions.non_negative_bigint ADD CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN sessions.positive_bigint ADD CHECK (VALUE >= 1) NOT VALID;
ALTER DOMAIN sessions.non_negative_integer ADD CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN sessions.vacation_days ADD CHECK (VALUE BETWEEN 0 AND 30) NOT VALID;
ALTER DOMAIN sessions.seat_number ADD CHECK (VALUE BETWEEN 0 AND 31) NOT VALID;
ALTER DOMAIN sessions.bot_name ADD CHECK (VALUE ~ '^[a-z][a-z0-9_]{0,31}$') NOT VALID;
ALTER DOMAIN sessions.display_name ADD CHECK (char_length(VALUE) BETWEEN 1 AND 64) NOT VALID;
ALTER DOMAIN sessions.reminder_count ADD CHECK (VALUE BETWEEN 0 AND 2) NOT VALID;
ALTER DOMAIN sessions.non_negative_smallint ADD CHECK (VALUE >= 0) NOT VALID;
ALTER DOMAIN sessions.action_cause
  ADD CHECK (VALUE IN ('system', 'player', 'bot', 'timeout')) NOT VALID;
ALTER DOMAIN sessions.notification_kind
  ADD CHECK (VALUE IN ('your_turn', 'reminder', 'game_over', 'timeout', 'turn_over', 'nudge',
                       'rematch_offer')) NOT VALID;
