#!/usr/bin/env bash
# ctest fixture `pg`: one PostgreSQL server for the whole ctest run; each *_pgtest makes its own
# fresh database on it. Usage: pg_test_server.sh start|stop DIR
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/postgres.sh"
case "${1:-}" in
  start) pg_local_start "$2"; echo "PostgreSQL for tests: $(cat "$2/conninfo")" ;;
  stop) pg_local_stop "$2" ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
