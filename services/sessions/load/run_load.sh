#!/usr/bin/env bash
# Runs parlor-sessions-load against a throw-away PostgreSQL 15 (the test settings of
# tests/pg/pg_test_server.sh: fsync and synchronous_commit off).
#   services/sessions/load/run_load.sh [BUILD_DIR] [extra parlor-sessions-load flags...]
# e.g. services/sessions/load/run_load.sh build-sessions --seconds=10 --streams=10000
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
shift || true
dir="$(mktemp -d /tmp/parlor-sessions-load.XXXXXX)"
trap 'bash "$root/tests/pg/pg_test_server.sh" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
# A signal exits through the EXIT trap too (the server stopped, the directory removed).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
bash "$root/tests/pg/pg_test_server.sh" start "$dir" >/dev/null
conninfo="$(cat "$dir/conninfo")"
psql "$conninfo dbname=postgres" -q -c "CREATE DATABASE sessions_load" >/dev/null
"$build/services/sessions/parlor-sessions-load" \
  --db_url="$conninfo dbname=sessions_load" \
  --sessions_binary="$build/services/sessions/parlor-sessions" "$@"
