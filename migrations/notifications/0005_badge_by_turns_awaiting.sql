-- The badge counted from the games where it is the player's turn.
--
-- Every push carries the badge: the number of the player's games awaiting their move. It was
-- counted through the primary key (account_id, game_id), which reads a row for every game the
-- player ever played (a turns row stays after its game is over, with my_turn false; its version
-- keeps a late event of an older version from bringing the turn back). For a player with 3,000
-- finished games that was 29 pages per push, growing with each game. This index holds only the
-- rows that await the player. Its cost: a turn passing to the player writes one entry.
CREATE INDEX turns_awaiting_idx ON notifications.turns (account_id) WHERE my_turn;
