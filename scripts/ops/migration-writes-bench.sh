#!/bin/bash
# Writes to a large table while a migration builds its indexes: matchmaking 0010 in a transaction
# (the former file, CONCURRENTLY taken out) against CONCURRENTLY (the file as it is), each in its
# own database of a throw-away cluster with PostgreSQL's default durability, 6,000,000 final
# tickets, four pgbench clients inserting tickets for 20 s while the migration runs (from 5 s on).
# Prints, per arm and round: the migration's time, the inserts' p50 / p99 / slowest, and the
# inserts done in each second. Figures: docs/OPERATIONS.md, "Migrate".
#
#   scripts/ops/migration-writes-bench.sh [BUILD_DIR]    (default build/; needs parlor-matchmaking)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
cd "$ROOT"
# shellcheck source=../lib/postgres.sh
source scripts/lib/postgres.sh
work=$(mktemp -d /tmp/parlor-migration-bench.XXXXXX)
trap 'pg_local_stop "$work"; rm -rf "$work"' EXIT
pg_local_start "$work" durable >/dev/null
conninfo=$(cat "$work/conninfo")
bin="$BUILD/services/matchmaking/parlor-matchmaking"
cat > "$work/insert.sql" <<'SQL'
\set i random(1, 1000000000)
INSERT INTO matchmaking.tickets (owner_id, game, options, ranked, player_counts, members, rating, state, create_time, expire_time, update_time) VALUES ('w' || :i, 'pico', '', false, ARRAY[2], ARRAY['w' || :i], 1500, 'cancelled', now(), now() + interval '1 hour', now());
SQL
for arm in intxn concur; do
  mkdir -p "$work/$arm/matchmaking"
  cp migrations/matchmaking/000[1-9]_*.sql "$work/$arm/matchmaking/"
  psql -q "$conninfo dbname=postgres" -c "CREATE DATABASE $arm"
  PARLOR_DB_URL="$conninfo dbname=$arm" PARLOR_MIGRATIONS_DIR="$work/$arm" "$bin" migrate \
    >"$work/first.log" 2>&1 || { cat "$work/first.log"; exit 1; }
  psql -q "$conninfo dbname=$arm" -c "INSERT INTO matchmaking.tickets (owner_id, game, options, \
ranked, player_counts, members, rating, state, create_time, expire_time, update_time) \
SELECT 'p' || i, 'pico', '', false, ARRAY[2], ARRAY['p' || i], 1500, 'cancelled', \
now() - interval '1 day', now(), now() - interval '1 day' FROM generate_series(1, 6000000) i"
  psql -q "$conninfo dbname=$arm" -c "VACUUM ANALYZE matchmaking.tickets"
  if [ "$arm" = intxn ]; then
    grep -v '^-- parlor:no-transaction' migrations/matchmaking/0010_history_retention.sql |
      sed 's/ CONCURRENTLY IF NOT EXISTS//' >"$work/$arm/matchmaking/0010_history_retention.sql"
  else
    cp migrations/matchmaking/0010_history_retention.sql "$work/$arm/matchmaking/"
  fi
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2; do
  for arm in intxn concur; do
    if [ "$round" = 2 ]; then
      psql -q "$conninfo dbname=$arm" -c "DROP INDEX matchmaking.tickets_final_idx; \
DROP INDEX matchmaking.challenges_final_idx; \
DELETE FROM matchmaking.schema_migrations WHERE version = 10"
    fi
    "$PG_BIN_DIR/pgbench" -n -M prepared -c 4 -j 2 -T 20 -P 1 -l \
      --log-prefix="$work/tx-$arm-$round" -f "$work/insert.sql" "$conninfo dbname=$arm" \
      >"$work/pgbench.out" 2>"$work/progress.out" &
    sleep 5
    start=$(date +%s.%N)
    PARLOR_DB_URL="$conninfo dbname=$arm" PARLOR_MIGRATIONS_DIR="$work/$arm" "$bin" migrate \
      >"$work/migrate.log" 2>&1
    end=$(date +%s.%N)
    wait
    label=$([ "$arm" = intxn ] && echo "in a transaction" || echo "CONCURRENTLY")
    printf '== round %s, 0010 %s: built in %.2f s\n' "$round" "$label" "$(echo "$end - $start" | bc)"
    cat "$work/tx-$arm-$round".* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {
      printf "inserts %d: p50 %.2f ms, p99 %.2f ms, slowest %.1f ms\n", NR, a[int(NR*0.5)]/1000,
        a[int(NR*0.99)]/1000, a[NR]/1000}'
    echo "inserts per second: $(grep -oE '[0-9.]+ tps' "$work/progress.out" | awk '{printf "%d ", $1}')"
  done
done
