#!/usr/bin/env bash
# Smoke test of a built image against a throwaway PostgreSQL on 127.0.0.1: every service's
# `migrate` runs inside the image as uid 10001 with the image's migrations, then
# parlor-accounts serves from the image until its health answers SERVING.
# usage: scripts/ops/image-smoke.sh [IMAGE]   (default localhost/parlor:dev)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
IMAGE="${1:-localhost/parlor:dev}"
WORK="$ROOT/build-ops/image-smoke"
export STORAGE_DRIVER="${STORAGE_DRIVER:-vfs}"
# shellcheck source=../lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
ctr=""; serve_pid=""
tree() {  # tree PID: the pid and all its descendants
  local c; echo "$1"; for c in $(ps -o pid= --ppid "$1"); do tree "$c"; done
}
cleanup() {
  # buildah run does not pass SIGTERM on: stop the served binary, then buildah itself.
  if [ -n "$serve_pid" ]; then
    # shellcheck disable=SC2046
    kill -TERM $(tree "$serve_pid" | tac) 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1
  true
  pg_local_stop "$WORK/pg"
}
trap cleanup EXIT
mkdir -p "$WORK"
pg_local_start "$WORK/pg"
port="$(sed -n 's/.*port=\([0-9]*\).*/\1/p' "$WORK/pg/conninfo")"
psql -q "$(cat "$WORK/pg/conninfo") dbname=postgres" -c "CREATE DATABASE parlor"
db="host=127.0.0.1 port=$port user=postgres dbname=parlor"
ctr="$(buildah from "$IMAGE")"
run() { buildah run --isolation chroot --network host --user 10001:10001 "$ctr" -- "$@"; }
for s in accounts sessions matchmaking ratings; do
  echo "+ (image) parlor-$s migrate"
  run env PARLOR_DB_URL="$db" "parlor-$s" migrate 2>&1 | tail -2
done
keys="$(run parlor-token keygen)"
grpc="$(pg_free_port)"
buildah run --isolation chroot --network host --user 10001:10001 "$ctr" -- \
  env PARLOR_DB_URL="$db" PARLOR_LISTEN_HOST=127.0.0.1 PARLOR_GRPC_PORT="$grpc" \
  PARLOR_METRICS_PORT=0 PARLOR_ACCESS_TOKEN_PRIVATE_KEY="$(sed -n 's/^PRIVATE_KEY=//p' <<<"$keys")" \
  PARLOR_ACCESS_TOKEN_PUBLIC_KEY="$(sed -n 's/^PUBLIC_KEY=//p' <<<"$keys")" \
  PARLOR_MIGRATE_ON_START=false parlor-accounts >"$WORK/accounts.log" 2>&1 &
serve_pid=$!
/usr/bin/python3 -c "
import sys; sys.path.insert(0, '$ROOT/scripts/lib'); import parlor_grpc
parlor_grpc.wait_serving('127.0.0.1:$grpc', timeout=60)" && echo "(image) parlor-accounts SERVING on 127.0.0.1:$grpc" \
  || { cat "$WORK/accounts.log"; exit 1; }
