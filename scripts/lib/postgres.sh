# shellcheck shell=bash
# A throwaway local PostgreSQL 15 for development and tests: its own data directory, run as the
# postgres user (PostgreSQL refuses root), listening on a unix socket and 127.0.0.1 on a free
# port, trust authentication (it is reachable only from this machine).
#
#   source scripts/lib/postgres.sh
#   pg_local_start DIR     # starts a fresh cluster, writes DIR/conninfo
#   pg_local_start DIR durable   # the same with PostgreSQL's default durability (fsync,
#                          # synchronous_commit, full_page_writes on): for crash tests, benchmarks
#   pg_local_start DIR durable -c shared_preload_libraries=pg_stat_statements
#                          # more server settings after the mode (-c name=value, no spaces)
#   pg_local_stop DIR      # fast shutdown and removal; safe if not running
#   cat DIR/conninfo       # "host=/tmp/parlor-pg.X port=N user=postgres"
#
# The cluster itself lives in its own /tmp/parlor-pg.* directory (recorded in DIR/pg_root), not
# under DIR: the postgres user must be able to reach it, and a checkout may sit below a directory
# only root can enter (mktemp -d, /root).

PG_BIN_DIR="${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}"

pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A free loopback port below the kernel's ephemeral range (parlor_grpc.free_port says why).
pg_free_port() {
  PYTHONPATH="$(dirname "${BASH_SOURCE[0]}")" /usr/bin/python3 -c \
    'import parlor_grpc; print(parlor_grpc.free_port())'
}

pg_local_stop() {
  local dir="$1" root
  if [ -f "$dir/pg_root" ]; then
    root="$(cat "$dir/pg_root")"
    if [ -f "$root/data/postmaster.pid" ]; then
      pg_as_owner "$PG_BIN_DIR/pg_ctl" -D "$root/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    case "$root" in /tmp/parlor-pg.*) rm -rf "$root" ;; esac
  fi
  rm -f "$dir/conninfo" "$dir/pg_root"
}

pg_local_start() {
  local dir="$1" mode="${2:-fast}" root port settings
  shift $(($# < 2 ? $# : 2))
  case "$mode" in
    # fsync off: this cluster holds only test and demo data and is recreated on every start.
    fast) settings="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" ;;
    # What a crash test needs: an acknowledged commit is on disk before the answer.
    durable) settings="-c fsync=on -c synchronous_commit=on -c full_page_writes=on" ;;
    *) echo "pg_local_start: mode must be fast or durable, not \"$mode\"" >&2; return 2 ;;
  esac
  # Anything after the mode goes to the server as is (e.g. -c shared_preload_libraries=...).
  if [ "$#" -gt 0 ]; then settings="$settings $*"; fi
  pg_local_stop "$dir"
  mkdir -p "$dir"
  root="$(mktemp -d /tmp/parlor-pg.XXXXXX)"
  port="$(pg_free_port)"
  echo "$root" > "$dir/pg_root"
  mkdir -p "$root/data"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$root"
  fi
  chmod 700 "$root/data"
  # A durable cluster's own files are synced too; a fast one skips that.
  pg_as_owner "$PG_BIN_DIR/initdb" -D "$root/data" -U postgres --auth=trust \
    $([ "$mode" = fast ] && echo --no-sync) -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  pg_as_owner "$PG_BIN_DIR/pg_ctl" -D "$root/data" -l "$root/server.log" -w -t 60 \
    -o "-k $root -p $port -c listen_addresses=127.0.0.1 $settings -c max_connections=200" \
    start >/dev/null || {
    cat "$root/server.log" >&2
    return 1
  }
  echo "host=$root port=$port user=postgres" > "$dir/conninfo"
}
