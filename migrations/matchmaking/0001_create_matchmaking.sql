-- Matchmaking: parties, queue tickets, challenges and the matches made from them.
-- Applied by the matchmaking service's migration runner into schema `matchmaking`.
-- Account ids are the accounts service's ids (UUID text); this schema does not reference it.

-- A group of friends who queue together and are seated as one team.
CREATE TABLE matchmaking.parties (
  party_id    UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  code        TEXT NOT NULL UNIQUE CHECK (code ~ '^[A-Z2-9]{8}$'),
  leader_id   TEXT NOT NULL CHECK (char_length(leader_id) BETWEEN 1 AND 64),
  max_size    INT NOT NULL CHECK (max_size BETWEEN 2 AND 4),
  create_time TIMESTAMPTZ NOT NULL
);

-- A player is in at most one party.
CREATE TABLE matchmaking.party_members (
  account_id  TEXT PRIMARY KEY CHECK (char_length(account_id) BETWEEN 1 AND 64),
  party_id    UUID NOT NULL REFERENCES matchmaking.parties ON DELETE CASCADE,
  join_time   TIMESTAMPTZ NOT NULL
);
CREATE INDEX party_members_party_idx ON matchmaking.party_members (party_id, join_time);

-- Matches: a table of players found by the matcher (source 'queue') or by a fully accepted
-- challenge ('challenge'). Rows with game_id NULL are the outbox of games still to create
-- through sessions.CreateGame (idempotent on match_id); any replica retries them until one
-- succeeds.
CREATE TABLE matchmaking.matches (
  match_id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  source            TEXT NOT NULL CHECK (source IN ('queue', 'challenge')),
  game              TEXT NOT NULL CHECK (char_length(game) BETWEEN 1 AND 64),
  options           TEXT NOT NULL,  -- canonical "name=value,..." with every option
  ranked            BOOLEAN NOT NULL,
  seat_accounts     TEXT[] NOT NULL,  -- seat order
  seat_teams        INT[] NOT NULL,
  rating_spread     DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (rating_spread >= 0),
  create_time       TIMESTAMPTZ NOT NULL,
  game_id           TEXT,
  game_create_time  TIMESTAMPTZ,
  attempts          INT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_time TIMESTAMPTZ NOT NULL,
  last_error        TEXT,
  CHECK (cardinality(seat_accounts) BETWEEN 2 AND 16),
  CHECK (cardinality(seat_accounts) = cardinality(seat_teams)),
  CHECK ((game_id IS NULL) = (game_create_time IS NULL)),
  CHECK (game_create_time IS NULL OR game_create_time >= create_time)
);
CREATE INDEX matches_outbox_idx ON matchmaking.matches (next_attempt_time) WHERE game_id IS NULL;

-- Queue tickets. A ticket leaves 'waiting' exactly once.
CREATE TABLE matchmaking.tickets (
  ticket_id     UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id      TEXT NOT NULL CHECK (char_length(owner_id) BETWEEN 1 AND 64),
  game          TEXT NOT NULL CHECK (char_length(game) BETWEEN 1 AND 64),
  options       TEXT NOT NULL,  -- canonical "name=value,..." with every option: the pool key
  ranked        BOOLEAN NOT NULL,
  player_counts INT[] NOT NULL CHECK (cardinality(player_counts) >= 1),
  party_id      UUID,  -- no FK: the ticket outlives a disbanded party
  members       TEXT[] NOT NULL CHECK (cardinality(members) BETWEEN 1 AND 4),
  rating        DOUBLE PRECISION NOT NULL,
  state         TEXT NOT NULL CHECK (state IN ('waiting', 'matched', 'cancelled', 'expired')),
  match_id      UUID REFERENCES matchmaking.matches,
  create_time   TIMESTAMPTZ NOT NULL,
  expire_time   TIMESTAMPTZ NOT NULL,
  update_time   TIMESTAMPTZ NOT NULL,
  CHECK (expire_time > create_time),
  CHECK (update_time >= create_time),
  CHECK ((state = 'matched') = (match_id IS NOT NULL)),
  CHECK (members[1] = owner_id)
);
CREATE INDEX tickets_pool_idx ON matchmaking.tickets (game, options, ranked, create_time)
  WHERE state = 'waiting';
CREATE INDEX tickets_expiry_idx ON matchmaking.tickets (expire_time) WHERE state = 'waiting';
CREATE INDEX tickets_owner_idx ON matchmaking.tickets (owner_id, create_time DESC);

-- Every player of a ticket (party members included). The partial unique index is what stops a
-- player from holding two waiting tickets for the same game and mode.
CREATE TABLE matchmaking.ticket_players (
  ticket_id  UUID NOT NULL REFERENCES matchmaking.tickets ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  game       TEXT NOT NULL,
  ranked     BOOLEAN NOT NULL,
  waiting    BOOLEAN NOT NULL,
  PRIMARY KEY (ticket_id, account_id)
);
CREATE UNIQUE INDEX ticket_players_one_waiting_key
  ON matchmaking.ticket_players (account_id, game, ranked) WHERE waiting;
CREATE INDEX ticket_players_account_idx ON matchmaking.ticket_players (account_id);

-- Challenges to particular players or by invite code.
CREATE TABLE matchmaking.challenges (
  challenge_id  UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  challenger_id TEXT NOT NULL CHECK (char_length(challenger_id) BETWEEN 1 AND 64),
  game          TEXT NOT NULL CHECK (char_length(game) BETWEEN 1 AND 64),
  options       TEXT NOT NULL,
  ranked        BOOLEAN NOT NULL,
  player_count  INT NOT NULL CHECK (player_count BETWEEN 2 AND 16),
  invite_code   TEXT UNIQUE CHECK (invite_code ~ '^[A-Z2-9]{8}$'),
  state         TEXT NOT NULL CHECK (state IN ('open', 'accepted', 'declined', 'expired')),
  match_id      UUID REFERENCES matchmaking.matches,
  create_time   TIMESTAMPTZ NOT NULL,
  expire_time   TIMESTAMPTZ NOT NULL,
  update_time   TIMESTAMPTZ NOT NULL,
  CHECK (expire_time > create_time),
  CHECK ((state = 'accepted') = (match_id IS NOT NULL))
);
CREATE INDEX challenges_expiry_idx ON matchmaking.challenges (expire_time) WHERE state = 'open';

-- The challenger and every invitee (or code holder who joined), in seat order.
CREATE TABLE matchmaking.challenge_players (
  challenge_id UUID NOT NULL REFERENCES matchmaking.challenges ON DELETE CASCADE,
  account_id   TEXT NOT NULL CHECK (char_length(account_id) BETWEEN 1 AND 64),
  seat         INT NOT NULL CHECK (seat >= 0),
  accepted     BOOLEAN NOT NULL,
  PRIMARY KEY (challenge_id, account_id),
  UNIQUE (challenge_id, seat)
);
CREATE INDEX challenge_players_account_idx ON matchmaking.challenge_players (account_id);
