#!/usr/bin/env bash
# Runs parlor-watch-stall against a throw-away PostgreSQL 15 with PostgreSQL's default
# durability (fsync and synchronous_commit on).
#   services/sessions/load/run_watch_stall.sh [BUILD_DIR] [extra parlor-watch-stall flags...]
# e.g. services/sessions/load/run_watch_stall.sh build --streams=300 --attackers=300
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
dir="$(mktemp -d /tmp/parlor-watch-stall.XXXXXX)"
trap 'bash "$root/tests/pg/pg_test_server.sh" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
# A signal exits through the EXIT trap too (the server stopped, the directory removed).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
bash "$root/tests/pg/pg_test_server.sh" start "$dir" durable >/dev/null
conninfo="$(cat "$dir/conninfo")"
psql "$conninfo dbname=postgres" -q -c "CREATE DATABASE watch_stall" >/dev/null
"$build/services/sessions/parlor-watch-stall" \
  --db_url="$conninfo dbname=watch_stall" \
  --sessions_binary="$build/services/sessions/parlor-sessions" "$@"
