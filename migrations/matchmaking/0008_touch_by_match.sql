-- A match's tickets and challenge found by the match.
--
-- Recording a match's game (MarkGameCreated) touches the match's tickets and challenge so that
-- their players' streams show the game. Tickets had no index on match_id (0006 dropped the
-- foreign key with its checks), so the touch went through ticket_players by account: it read
-- every ticket the match's players had ever had, growing with each game they played. Challenges
-- had none either: the touch read every challenge ever made, for every match delivered. Each index
-- holds only rows that have a match (a claimed ticket, an accepted challenge), so a waiting
-- ticket costs it nothing; a claim writes one entry per ticket it seats.
CREATE INDEX tickets_match_idx ON matchmaking.tickets (match_id) WHERE match_id IS NOT NULL;
CREATE INDEX challenges_match_idx ON matchmaking.challenges (match_id) WHERE match_id IS NOT NULL;
