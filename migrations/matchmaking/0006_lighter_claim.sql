-- A lighter claim (PgMatchmakingStore::ClaimMatches). Seating a ticket is the write a busy pool
-- repeats most; it now changes one tickets row and maintains one index:
--   * tickets.match_id no longer references matches: the claim writes the match and its tickets
--     in one transaction and matches are never deleted, so the per-row foreign-key check only
--     cost time.
--   * tickets_owner_idx goes: no statement looks a ticket up by its owner (a player's tickets
--     are found through ticket_players), and every claimed row paid for an entry in it.
--   * a claim no longer clears ticket_players.waiting. The flag now means "this ticket held the
--     player's place when it was written": an Enqueue clears a player's stale flags (those whose
--     ticket is no longer waiting) before it takes the place, so the partial unique index still
--     stops a player from holding two waiting tickets for one game and mode. Cancel, expiry and a
--     changed party still clear theirs at once.
--   * new ticket pages keep a fifth free, so a claimed row's new version usually stays on its
--     page.
ALTER TABLE matchmaking.tickets DROP CONSTRAINT tickets_match_id_fkey;
DROP INDEX matchmaking.tickets_owner_idx;
ALTER TABLE matchmaking.tickets SET (fillfactor = 80);
