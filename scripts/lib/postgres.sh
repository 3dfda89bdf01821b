# shellcheck shell=bash
# A throwaway local PostgreSQL 15 for development and tests: its own data directory, run as the
# postgres user (PostgreSQL refuses root), listening on a unix socket and 127.0.0.1 on a free
# port, trust authentication (it is reachable only from this machine).
#
#   source scripts/lib/postgres.sh
#   pg_local_start DIR     # starts (re-initialising DIR), writes DIR/conninfo, prints nothing
#   pg_local_stop DIR      # fast shutdown; safe if not running
#   cat DIR/conninfo       # "host=/tmp/parlor-pg.X port=N user=postgres"

PG_BIN_DIR="${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}"

pg_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_free_port() {
  /usr/bin/python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

pg_local_stop() {
  local dir="$1"
  if [ -f "$dir/data/postmaster.pid" ]; then
    pg_as_owner "$PG_BIN_DIR/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ -f "$dir/socket_dir" ]; then
    rm -rf "$(cat "$dir/socket_dir")"
  fi
  rm -f "$dir/conninfo" "$dir/socket_dir"
}

pg_local_start() {
  local dir="$1"
  pg_local_stop "$dir"
  rm -rf "$dir/data"
  mkdir -p "$dir"
  local sock port
  sock="$(mktemp -d /tmp/parlor-pg.XXXXXX)"
  port="$(pg_free_port)"
  mkdir -p "$dir/data"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$dir/data" "$sock"
  fi
  chmod 700 "$dir/data"
  echo "$sock" > "$dir/socket_dir"
  pg_as_owner "$PG_BIN_DIR/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync \
    -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    return 1
  }
  # fsync off: this cluster holds only test and demo data and is recreated on every start.
  pg_as_owner "$PG_BIN_DIR/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
    -o "-k $sock -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || {
    cat "$dir/data/server.log" >&2
    return 1
  }
  echo "host=$sock port=$port user=postgres" > "$dir/conninfo"
}
