-- The game's last move on your-turn, reminder and game-over events, as the player told about it
-- may see it: who moved (a display name, renamed like loc_args when that account is deleted) and
-- the game's words. Empty for every other event and for events stored before this column.
ALTER TABLE notifications.events
  ADD COLUMN last_move_player TEXT NOT NULL DEFAULT '',
  ADD COLUMN last_move        TEXT NOT NULL DEFAULT '';
