#ifndef PARLOR_SERVICES_RATINGS_STORE_SQL_H_
#define PARLOR_SERVICES_RATINGS_STORE_SQL_H_

// Every SQL statement of the ratings service, in one place. Parameters are always bound ($1, $2,
// ...), never spliced into the text, except the snapshot table names ratings.board_<id>, which
// are built from a database-generated integer. Times travel as Unix microseconds (BIGINT);
// account id lists as a PostgreSQL array literal of validated UUIDs.
namespace parlor::ratings::sql {

#define PARLOR_US(col) "(extract(epoch FROM " col ") * 1000000)::bigint"
#define PARLOR_TS(param) "to_timestamp(" param "::double precision / 1000000)"

inline constexpr char kUpsertLadder[] =
    "INSERT INTO ratings.ladders (ladder, game, model) VALUES ($1, $2, $3) "
    "ON CONFLICT (ladder) DO UPDATE SET game = EXCLUDED.game, model = EXCLUDED.model";

// Seasons with their end (the next season's start), oldest first.
inline constexpr char kListSeasons[] =
    "SELECT season_id, display_name, " PARLOR_US("start_time") ", "
    "coalesce(" PARLOR_US("lead(start_time) OVER (ORDER BY start_time)") ", -1) "
    "FROM ratings.seasons ORDER BY start_time";

inline constexpr char kInsertSeason[] =
    "INSERT INTO ratings.seasons (season_id, display_name, start_time) "
    "SELECT $1, $2, " PARLOR_TS("$3") " "
    "WHERE NOT EXISTS (SELECT 1 FROM ratings.seasons WHERE start_time >= " PARLOR_TS("$3") ") "
    "ON CONFLICT (season_id) DO NOTHING RETURNING season_id";

inline constexpr char kSeasonExists[] = "SELECT 1 FROM ratings.seasons WHERE season_id = $1";

// Idempotency: the first report of a game id inserts (into the season current at $7); a replay
// finds the row. No row back and no row found means no season has started.
inline constexpr char kInsertProcessed[] =
    "INSERT INTO ratings.processed_results "
    "(game_id, digest, game, ladder, season_id, ranked, finish_time) "
    "SELECT $1, decode($2, 'hex'), $3, $4, s.season_id, $5, " PARLOR_TS("$6") " "
    "FROM (SELECT season_id FROM ratings.seasons WHERE start_time <= " PARLOR_TS("$7") " "
    "ORDER BY start_time DESC LIMIT 1) s "
    "ON CONFLICT (game_id) DO NOTHING RETURNING season_id";

inline constexpr char kFindProcessed[] =
    "SELECT encode(digest, 'hex'), p.ladder, p.season_id, ranked, v.game_id IS NOT NULL "
    "FROM ratings.processed_results p LEFT JOIN ratings.voids v USING (game_id) "
    "WHERE p.game_id = $1";

#define PARLOR_RATING_COLUMNS                                                          \
  "r.account_id::text, r.rating, r.deviation, r.volatility, r.games, r.season_games, " \
  "coalesce(" PARLOR_US("r.last_game_time") ", -1), r.conservative, r.provisional, r.season_id"

// Each player's latest row from `season` ($3) or an earlier one (no lock): a row of $3 means
// the player already has one this season.
inline constexpr char kLatestRows[] =
    "SELECT DISTINCT ON (r.account_id) " PARLOR_RATING_COLUMNS
    " "
    "FROM ratings.ratings r JOIN ratings.seasons s USING (season_id) "
    "WHERE r.ladder = $1 AND r.account_id = ANY($2::uuid[]) "
    "AND s.start_time <= (SELECT start_time FROM ratings.seasons WHERE season_id = $3) "
    "ORDER BY r.account_id, s.start_time DESC";

// Each player's latest row from a season that started before `season`.
inline constexpr char kEarlierRows[] =
    "SELECT DISTINCT ON (r.account_id) " PARLOR_RATING_COLUMNS
    " "
    "FROM ratings.ratings r JOIN ratings.seasons s USING (season_id) "
    "WHERE r.ladder = $1 AND r.account_id = ANY($2::uuid[]) "
    "AND s.start_time < (SELECT start_time FROM ratings.seasons WHERE season_id = $3) "
    "ORDER BY r.account_id, s.start_time DESC";

inline constexpr char kInsertRating[] =
    "INSERT INTO ratings.ratings (ladder, season_id, account_id, rating, deviation, volatility, "
    "conservative, games, season_games, provisional, last_game_time, update_time) "
    "VALUES ($1, $2, $3::uuid, $4, $5, $6, $7, $8, 0, $9, "
    "CASE WHEN $10::bigint < 0 THEN NULL ELSE " PARLOR_TS("$10") " END, now()) "
    "ON CONFLICT (ladder, season_id, account_id) DO NOTHING";

// The row locks, always in account-id order: concurrent results sharing players wait for each
// other instead of deadlocking.
inline constexpr char kLockRows[] =
    "SELECT " PARLOR_RATING_COLUMNS
    " FROM ratings.ratings r "
    "WHERE r.ladder = $1 AND r.season_id = $2 AND r.account_id = ANY($3::uuid[]) "
    "ORDER BY r.account_id FOR UPDATE";

// The writes of one rated result in one round trip, after its players' rows are locked: take the
// result's seq (after the locks, so any two results sharing a player are ordered as applied),
// update every player (arrays in seat order), one history row each, and bump the board's change
// counter. $1 ladder, $2 season, $3 game id, $4 finish time (us), $5 change shard; per seat:
// $6 account ids, $7 seats, $8 ranks, $9 rating before, $10 deviation before, $11 rating,
// $12 deviation, $13 volatility, $14 conservative, $15 games, $16 provisional, $17 sides.
inline constexpr char kApplyRatings[] =
    "WITH taken AS (UPDATE ratings.processed_results "
    "SET seq = nextval('ratings.result_seq') WHERE game_id = $3 RETURNING seq), "
    "updated AS (UPDATE ratings.ratings r SET rating = u.rating, deviation = u.deviation, "
    "volatility = u.volatility, conservative = u.conservative, games = u.games, "
    "season_games = r.season_games + 1, provisional = u.provisional, "
    "last_game_time = greatest(r.last_game_time, " PARLOR_TS("$4") "), update_time = now() "
    "FROM unnest($6::uuid[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], "
    "$15::bigint[], $16::bool[]) AS u(account_id, rating, deviation, volatility, conservative, "
    "games, provisional) "
    "WHERE r.ladder = $1 AND r.season_id = $2 AND r.account_id = u.account_id RETURNING 1), "
    "history AS (INSERT INTO ratings.rating_history (account_id, ladder, season_id, seq, game_id, "
    "seat, rank, rating_before, deviation_before, rating_after, deviation_after, "
    "volatility_after, conservative_after, finish_time, side) "
    "SELECT h.account_id, $1, $2, taken.seq, $3, h.seat, h.rank, h.rb, h.db, h.ra, h.da, h.va, "
    "h.ca, " PARLOR_TS("$4") ", h.side "
    "FROM taken, unnest($6::uuid[], $7::int[], $8::int[], $9::float8[], $10::float8[], "
    "$11::float8[], $12::float8[], $13::float8[], $14::float8[], $17::int[]) AS h(account_id, "
    "seat, rank, rb, db, ra, da, va, ca, side) RETURNING 1), "
    "bumped AS (INSERT INTO ratings.board_changes (ladder, season_id, shard, changes) "
    "VALUES ($1, $2, $5, 1) ON CONFLICT (ladder, season_id, shard) DO UPDATE "
    "SET changes = ratings.board_changes.changes + 1 RETURNING 1) "
    "SELECT (SELECT count(*) FROM updated), (SELECT count(*) FROM history), "
    "(SELECT count(*) FROM bumped)";

#define PARLOR_HISTORY_COLUMNS \
  "h.game_id, h.ladder, h.season_id, h.seq, " PARLOR_US("h.finish_time") ", h.seat, "     \
  "h.account_id::text, h.rank, h.rating_before, h.deviation_before, h.rating_after, "      \
  "h.deviation_after, h.volatility_after, h.conservative_after"

inline constexpr char kHistoryOfGame[] = "SELECT " PARLOR_HISTORY_COLUMNS
                                         " FROM ratings.rating_history h WHERE h.game_id = $1 "
                                         "ORDER BY h.seat";

inline constexpr char kHistoryOfPlayer[] =
    "SELECT " PARLOR_HISTORY_COLUMNS
    " FROM ratings.rating_history h "
    "WHERE h.account_id = $1::uuid AND h.ladder = $2 AND ($3 = '' OR h.season_id = $3) "
    "AND h.seq < $4 ORDER BY h.seq DESC LIMIT $5";

inline constexpr char kGetRow[] =
    "SELECT " PARLOR_RATING_COLUMNS
    " FROM ratings.ratings r "
    "WHERE r.ladder = $1 AND r.season_id = $2 AND r.account_id = $3::uuid";

// The player's latest row per ladder from `season` or earlier.
inline constexpr char kLatestRowsUpTo[] =
    "SELECT DISTINCT ON (r.ladder) r.ladder, " PARLOR_RATING_COLUMNS
    " "
    "FROM ratings.ratings r JOIN ratings.seasons s USING (season_id) "
    "WHERE r.account_id = $1::uuid "
    "AND s.start_time <= (SELECT start_time FROM ratings.seasons WHERE season_id = $2) "
    "ORDER BY r.ladder, s.start_time DESC";

// Snapshots. The builder of a board holds a session-level lock across its transactions and the
// VACUUM between them (VACUUM cannot run inside a transaction).
inline constexpr char kSnapshotLock[] =
    "SELECT pg_try_advisory_lock(hashtext('ratings.board/' || $1 || '/' || $2))";
inline constexpr char kSnapshotUnlock[] =
    "SELECT pg_advisory_unlock(hashtext('ratings.board/' || $1 || '/' || $2))";
// Snapshots of this board left unpublished by a builder that died (the caller holds the lock).
inline constexpr char kUnpublishedSnapshots[] =
    "SELECT snapshot_id FROM ratings.board_snapshots "
    "WHERE ladder = $1 AND season_id = $2 AND NOT ready";
inline constexpr char kPublishSnapshot[] =
    "UPDATE ratings.board_snapshots SET ready = true WHERE snapshot_id = $1";
inline constexpr char kBoardChanges[] =
    "SELECT coalesce(sum(changes), 0)::bigint FROM ratings.board_changes "
    "WHERE ladder = $1 AND season_id = $2";
// The boards of started seasons whose ratings changed since their latest snapshot, or that have
// none: what a refresh must rebuild, besides the current season's boards by age.
inline constexpr char kChangedBoards[] =
    "SELECT l.ladder, s.season_id FROM ratings.ladders l CROSS JOIN ratings.seasons s "
    "LEFT JOIN LATERAL (SELECT b.changes FROM ratings.board_snapshots b "
    "WHERE b.ladder = l.ladder AND b.season_id = s.season_id AND b.ready "
    "ORDER BY b.snapshot_id DESC LIMIT 1) latest ON true "
    "WHERE s.start_time <= " PARLOR_TS("$1") " AND (latest.changes IS NULL OR latest.changes <> "
    "(SELECT coalesce(sum(c.changes), 0) FROM ratings.board_changes c "
    "WHERE c.ladder = l.ladder AND c.season_id = s.season_id))";
inline constexpr char kLatestSnapshot[] =
    "SELECT snapshot_id, ladder, season_id, players, " PARLOR_US("take_time") ", changes "
    "FROM ratings.board_snapshots WHERE ladder = $1 AND season_id = $2 AND ready "
    "ORDER BY snapshot_id DESC LIMIT 1";
inline constexpr char kGetSnapshot[] =
    "SELECT snapshot_id, ladder, season_id, players, " PARLOR_US("take_time") ", changes "
    "FROM ratings.board_snapshots WHERE snapshot_id = $1 AND ready";
inline constexpr char kInsertSnapshot[] =
    "INSERT INTO ratings.board_snapshots (ladder, season_id, changes, players, take_time, ready) "
    "VALUES ($1, $2, $3, 0, " PARLOR_TS("$4") ", false) RETURNING snapshot_id";
inline constexpr char kSetSnapshotPlayers[] =
    "UPDATE ratings.board_snapshots SET players = $2 WHERE snapshot_id = $1";
inline constexpr char kSupersede[] =
    "UPDATE ratings.board_snapshots SET superseded_time = " PARLOR_TS("$4") " "
    "WHERE ladder = $1 AND season_id = $2 AND snapshot_id < $3 AND superseded_time IS NULL "
    "AND ready";
inline constexpr char kExpiredSnapshots[] =
    "SELECT snapshot_id FROM ratings.board_snapshots "
    "WHERE superseded_time < " PARLOR_TS("$1") " ORDER BY snapshot_id";
inline constexpr char kDeleteSnapshot[] =
    "DELETE FROM ratings.board_snapshots WHERE snapshot_id = $1";
inline constexpr char kCountPlayers[] =
    "SELECT count(*) FROM ratings.ratings WHERE ladder = $1 AND season_id = $2";

// Voiding a result. A void holds this lock for its transaction: result reports (which insert
// into processed_results first) wait for it and it waits for those in flight, so the history it
// replays cannot change underneath; concurrent voids run one at a time.
inline constexpr char kVoidLock[] =
    "LOCK TABLE ratings.processed_results IN SHARE ROW EXCLUSIVE MODE";

inline constexpr char kVoidTarget[] =
    "SELECT ladder, season_id, ranked, coalesce(seq, -1) FROM ratings.processed_results "
    "WHERE game_id = $1";

inline constexpr char kGetVoid[] =
    "SELECT ladder, season_id, reason, operator_id, " PARLOR_US("void_time") ", replayed_games "
    "FROM ratings.voids WHERE game_id = $1";

inline constexpr char kVoidedHistory[] = "SELECT " PARLOR_HISTORY_COLUMNS
                                         " FROM ratings.voided_history h WHERE h.game_id = $1 "
                                         "ORDER BY h.seat";

inline constexpr char kVoidEffects[] =
    "SELECT account_id::text, season_id, rating_before, deviation_before, volatility_before, "
    "games_before, season_games_before, rating_after, deviation_after, volatility_after, "
    "games_after, season_games_after FROM ratings.void_effects WHERE game_id = $1 "
    "ORDER BY account_id, season_id";

// Every history row of the ladder from `seq` ($2) on, in the order the results were applied
// (PARLOR_HISTORY_COLUMNS, then the side: NULL on rows written before it was recorded).
inline constexpr char kHistoryFrom[] = "SELECT " PARLOR_HISTORY_COLUMNS
                                       ", coalesce(h.side, -1) FROM ratings.rating_history h "
                                       "WHERE h.ladder = $1 AND h.seq >= $2 ORDER BY h.seq, h.seat";

// Each player's state just before seq ($3[i] for $2[i]): their latest history row before it
// (season, rating after), how many rated games they had on the ladder before it, how many in
// that row's season, and when their last one finished. No row: the player had not played.
inline constexpr char kStateBefore[] =
    "SELECT u.account_id::text, p.season_id, p.rating_after, p.deviation_after, "
    "p.volatility_after, c.games, c.season_games, coalesce(" PARLOR_US("c.last") ", -1) "
    "FROM unnest($2::uuid[], $3::bigint[]) AS u(account_id, before_seq) "
    "LEFT JOIN LATERAL (SELECT h.season_id, h.rating_after, h.deviation_after, "
    "h.volatility_after FROM ratings.rating_history h WHERE h.account_id = u.account_id "
    "AND h.ladder = $1 AND h.seq < u.before_seq ORDER BY h.seq DESC LIMIT 1) p ON true "
    "LEFT JOIN LATERAL (SELECT count(*) AS games, "
    "count(*) FILTER (WHERE h.season_id = p.season_id) AS season_games, "
    "max(h.finish_time) AS last FROM ratings.rating_history h "
    "WHERE h.account_id = u.account_id AND h.ladder = $1 AND h.seq < u.before_seq) c ON true";

// The players' rating rows of every season (what a void changes), locked.
inline constexpr char kLockPlayerRows[] = "SELECT " PARLOR_RATING_COLUMNS
                                          " FROM ratings.ratings r "
                                          "WHERE r.ladder = $1 AND r.account_id = ANY($2::uuid[]) "
                                          "ORDER BY r.account_id, r.season_id FOR UPDATE";

// Moves the voided game's history rows to voided_history.
inline constexpr char kMoveVoidedHistory[] =
    "WITH moved AS (DELETE FROM ratings.rating_history WHERE game_id = $1 RETURNING *) "
    "INSERT INTO ratings.voided_history SELECT * FROM moved";

inline constexpr char kInsertVoid[] =
    "INSERT INTO ratings.voids (game_id, ladder, season_id, reason, operator_id, void_time, "
    "replayed_games) VALUES ($1, $2, $3, $4, $5, " PARLOR_TS("$6") ", $7)";

// The replayed history rows, by (account, ladder, seq): $1 ladder; per row $2 account ids,
// $3 seqs, $4 rating before, $5 deviation before, $6 rating, $7 deviation, $8 volatility,
// $9 conservative.
inline constexpr char kRewriteHistory[] =
    "UPDATE ratings.rating_history h SET rating_before = u.rb, deviation_before = u.db, "
    "rating_after = u.ra, deviation_after = u.da, volatility_after = u.va, "
    "conservative_after = u.ca "
    "FROM unnest($2::uuid[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], "
    "$7::float8[], $8::float8[], $9::float8[]) AS u(account_id, seq, rb, db, ra, da, va, ca) "
    "WHERE h.account_id = u.account_id AND h.ladder = $1 AND h.seq = u.seq";

// The recomputed rating rows: $1 ladder; per row $2 account ids, $3 seasons, $4 rating,
// $5 deviation, $6 volatility, $7 conservative, $8 games, $9 season games, $10 provisional,
// $11 last game time (us).
inline constexpr char kRewriteRatings[] =
    "UPDATE ratings.ratings r SET rating = u.rating, deviation = u.deviation, "
    "volatility = u.volatility, conservative = u.conservative, games = u.games, "
    "season_games = u.season_games, provisional = u.provisional, "
    "last_game_time = " PARLOR_TS("u.last") ", update_time = now() "
    "FROM unnest($2::uuid[], $3::text[], $4::float8[], $5::float8[], $6::float8[], "
    "$7::float8[], $8::bigint[], $9::bigint[], $10::bool[], $11::bigint[]) AS u(account_id, "
    "season_id, rating, deviation, volatility, conservative, games, season_games, provisional, "
    "last) "
    "WHERE r.ladder = $1 AND r.season_id = u.season_id AND r.account_id = u.account_id";

// Rating rows left without a rated game of their season.
inline constexpr char kDeleteRatings[] =
    "DELETE FROM ratings.ratings r USING unnest($2::uuid[], $3::text[]) AS u(account_id, "
    "season_id) WHERE r.ladder = $1 AND r.season_id = u.season_id "
    "AND r.account_id = u.account_id";

inline constexpr char kInsertVoidEffects[] =
    "INSERT INTO ratings.void_effects (game_id, account_id, season_id, rating_before, "
    "deviation_before, volatility_before, games_before, season_games_before, rating_after, "
    "deviation_after, volatility_after, games_after, season_games_after) "
    "SELECT $1, u.* FROM unnest($2::uuid[], $3::text[], $4::float8[], $5::float8[], "
    "$6::float8[], $7::bigint[], $8::bigint[], $9::float8[], $10::float8[], $11::float8[], "
    "$12::bigint[], $13::bigint[]) AS u";

// A board a void changed is rebuilt at the next refresh (counted on shard 0).
inline constexpr char kBumpBoard[] =
    "INSERT INTO ratings.board_changes (ladder, season_id, shard, changes) VALUES ($1, $2, 0, 1) "
    "ON CONFLICT (ladder, season_id, shard) DO UPDATE "
    "SET changes = ratings.board_changes.changes + 1";

#define PARLOR_BOARD_COLUMNS                                                         \
  "position, account_id::text, rating, deviation, volatility, games, season_games, " \
  "coalesce(" PARLOR_US("last_game_time") ", -1), conservative"

// --- Deleted accounts (the accounts service's deletion outbox) ----------------------------------

inline constexpr char kForgottenThrough[] =
    "SELECT coalesce(max(sequence), 0) FROM ratings.forgotten_accounts";

// $1 account, $2 its deletion's sequence.
inline constexpr char kRecordForgotten[] =
    "INSERT INTO ratings.forgotten_accounts (account_id, sequence, forget_time) "
    "VALUES ($1::uuid, $2, now()) ON CONFLICT (account_id) DO NOTHING";

// The boards the account is on (each is then rebuilt at the next refresh, see kBumpBoard).
inline constexpr char kBoardsOf[] =
    "SELECT DISTINCT ladder, season_id FROM ratings.ratings WHERE account_id = $1::uuid";

// Every snapshot table still there (their names are built from these ids, never from input).
inline constexpr char kSnapshotTables[] =
    "SELECT snapshot_id FROM ratings.board_snapshots "
    "WHERE to_regclass('ratings.board_' || snapshot_id) IS NOT NULL";

inline constexpr char kForgetRatings[] = "DELETE FROM ratings.ratings WHERE account_id = $1::uuid";
inline constexpr char kForgetHistory[] =
    "DELETE FROM ratings.rating_history WHERE account_id = $1::uuid";
inline constexpr char kForgetVoidedHistory[] =
    "DELETE FROM ratings.voided_history WHERE account_id = $1::uuid";
inline constexpr char kForgetVoidEffects[] =
    "DELETE FROM ratings.void_effects WHERE account_id = $1::uuid";

// After a rated result: the rows it wrote for players already forgotten ($1 uuid[]) go again.
inline constexpr char kDropForgottenOfResult[] =
    "WITH gone AS (SELECT account_id FROM ratings.forgotten_accounts "
    "  WHERE account_id = ANY($1::uuid[])), "
    "history AS (DELETE FROM ratings.rating_history h USING gone "
    "  WHERE h.account_id = gone.account_id RETURNING 1) "
    "DELETE FROM ratings.ratings r USING gone WHERE r.account_id = gone.account_id";

}  // namespace parlor::ratings::sql

#endif  // PARLOR_SERVICES_RATINGS_STORE_SQL_H_
