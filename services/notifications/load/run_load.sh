#!/usr/bin/env bash
# Runs parlor-notifications-load against a throw-away PostgreSQL 15 with PostgreSQL's default
# durability (fsync, synchronous_commit and full_page_writes on), and the fake providers
# (--fake=native, the default: parlor-fake-push-provider from BUILD_DIR; --fake=python:
# testing/fake_push_server.py).
#   services/notifications/load/run_load.sh [BUILD_DIR] [extra parlor-notifications-load flags]
# e.g. services/notifications/load/run_load.sh build --devices=100000 --rate=1000 --seconds=20
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
# shellcheck source=../../../scripts/lib/postgres.sh
source "$root/scripts/lib/postgres.sh"
dir="$(mktemp -d /tmp/parlor-notifications-load.XXXXXX)"
trap 'pg_local_stop "$dir/pg" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
pg_local_start "$dir/pg" durable -c shared_preload_libraries=pg_stat_statements >/dev/null
conninfo="$(cat "$dir/pg/conninfo")"
psql "$conninfo dbname=postgres" -q -c "CREATE DATABASE notifications_load" >/dev/null
# Statements per push (pg_stat_statements' calls).
psql "$conninfo dbname=notifications_load" -q -c "CREATE EXTENSION pg_stat_statements" >/dev/null
"$build/services/notifications/parlor-notifications-load" \
  --db_url="$conninfo dbname=notifications_load" \
  --fake_binary="$build/services/notifications/parlor-fake-push-provider" \
  --fake_script="$root/services/notifications/testing/fake_push_server.py" \
  --pg_pid="$(head -1 "$(cat "$dir/pg/pg_root")/data/postmaster.pid")" "$@"
