-- A player's turn that ends while the game goes on (they moved, or the game moved on) is told to
-- notifications too, as kind 'turn_over': it drops that player's pending "your turn" and
-- reminders of the game and lowers the badge. Written by the domain's UpdateTurn
-- (services/sessions/domain/moves.cc). NOT VALID then VALIDATE: the check of existing rows does
-- not block writes.
ALTER TABLE sessions.notification_outbox DROP CONSTRAINT notification_outbox_kind_check;
ALTER TABLE sessions.notification_outbox ADD CONSTRAINT notification_outbox_kind_check
  CHECK (kind IN ('your_turn', 'reminder', 'game_over', 'timeout', 'turn_over')) NOT VALID;
ALTER TABLE sessions.notification_outbox VALIDATE CONSTRAINT notification_outbox_kind_check;
