#!/usr/bin/env bash
# ctest fixture `pg`: one PostgreSQL server for the whole ctest run; each *_pgtest makes its own
# fresh database on it. Usage: pg_test_server.sh start|stop DIR [fast|durable]
# The fixture's cluster is the fast one (fsync, synchronous_commit and full_page_writes off);
# `durable` starts one with PostgreSQL's default durability, as the crash tests use
# (tests/reliability).
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/postgres.sh"
case "${1:-}" in
  start) pg_local_start "$2" "${3:-fast}"; echo "PostgreSQL for tests: $(cat "$2/conninfo")" ;;
  stop) pg_local_stop "$2" ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
