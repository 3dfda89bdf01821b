-- Ticket properties, requirements on opponents, and blocks (services/matchmaking/README.md,
-- "Ticket properties and blocks"). All three are written once, at enqueue, in the canonical text
-- forms of services/matchmaking/domain/properties.h:
--   properties:   "s:language=en;s:region=eu-west;n:tier=3" ('' when none)
--   requirements: "region:same;language:in=en|fr;tier:range=1|5" ('' when none)
--   avoid:        the accounts the ticket's players blocked or were blocked by (as the accounts
--                 service listed them at enqueue): the matcher never seats them together.
-- Constant defaults: adding the columns rewrites nothing, and existing tickets have none of them.
ALTER TABLE matchmaking.tickets
  ADD COLUMN properties TEXT NOT NULL DEFAULT '' CHECK (char_length(properties) <= 4096),
  ADD COLUMN requirements TEXT NOT NULL DEFAULT '' CHECK (char_length(requirements) <= 16384),
  ADD COLUMN avoid TEXT[] NOT NULL DEFAULT '{}' CHECK (cardinality(avoid) <= 8000);
