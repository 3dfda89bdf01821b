#!/usr/bin/env bash
# Runs parlor-sessions-load against a throw-away PostgreSQL 15 with pg_stat_statements loaded (the
# tool reads statement, WAL, commit and row counts from it).
#   services/sessions/load/run_load.sh [--durable] [BUILD_DIR] [extra parlor-sessions-load flags...]
# Without --durable the cluster has the test settings (scripts/lib/postgres.sh `fast`: fsync,
# synchronous_commit and full_page_writes off); with --durable (or DURABILITY=durable) PostgreSQL's
# default durability, as production runs it: the headline figures are taken so.
# e.g. services/sessions/load/run_load.sh --durable build-sessions --seconds=10 --streams=10000
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
mode="${DURABILITY:-fast}"
args=()
for arg in "$@"; do
  case "$arg" in
    --durable) mode=durable ;;
    --fast) mode=fast ;;
    *) args+=("$arg") ;;
  esac
done
set -- ${args[@]+"${args[@]}"}
build="$root/build"
if [ "$#" -gt 0 ] && [[ "$1" != --* ]]; then
  build="$1"
  shift
fi
build="$(cd "$build" && pwd)"
# shellcheck source=../../../scripts/lib/postgres.sh
source "$root/scripts/lib/postgres.sh"
dir="$(mktemp -d /tmp/parlor-sessions-load.XXXXXX)"
trap 'pg_local_stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
# A signal exits through the EXIT trap too (the server stopped, the directory removed).
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
pg_local_start "$dir" "$mode" -c shared_preload_libraries=pg_stat_statements >/dev/null
conninfo="$(cat "$dir/conninfo")"
psql "$conninfo dbname=postgres" -q -c "CREATE DATABASE sessions_load" >/dev/null
"$build/services/sessions/parlor-sessions-load" \
  --db_url="$conninfo dbname=sessions_load" \
  --sessions_binary="$build/services/sessions/parlor-sessions" "$@"
