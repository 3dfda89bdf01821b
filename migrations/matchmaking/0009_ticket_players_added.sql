-- WatchMyTickets rounds read the tickets that can still change, not a player's whole history.
--
-- Every open stream was polled every round (100 ms by default) with a statement that read every
-- ticket its player had ever had through ticket_players_account_idx, then kept the waiting ones
-- and those changed since its cursor: a regular's thousand past tickets were a thousand heap
-- probes per stream per round. A ticket can change only until it is final (cancelled, expired, or
-- matched with its game created), so a stream now reads its player's whole history once, when it
-- opens, and remembers the tickets that are not final yet; every later round probes those by
-- their key and looks only at the tickets added since its cursor, through this index.
--
-- added_at is the ticket's create time, written by the Enqueue that adds the row (the service's
-- clock, like update_time). Rows of earlier releases keep NULL: they are in the history an opening
-- stream reads, and no round looks for them by time. The default covers replicas of the previous
-- release during a rolling deploy, which insert without the column.
--
-- The new index replaces ticket_players_account_idx (every statement that used it has the account
-- as its first key column): an Enqueue still writes one entry per player.
ALTER TABLE matchmaking.ticket_players ADD COLUMN added_at TIMESTAMPTZ;
ALTER TABLE matchmaking.ticket_players ALTER COLUMN added_at SET DEFAULT now();
CREATE INDEX ticket_players_added_idx ON matchmaking.ticket_players (account_id, added_at);
DROP INDEX matchmaking.ticket_players_account_idx;
