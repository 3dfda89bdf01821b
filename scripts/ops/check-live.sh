#!/usr/bin/env bash
# Live monitoring check: starts PostgreSQL and every service on loopback as `scripts/dev demo`
# does, a real Prometheus (Debian package) scraping their /metrics every 2 s with the alert
# rules loaded, plays games for TRAFFIC_SECONDS (play_traffic.py), then evaluates every
# dashboard panel query and every alert expression through Prometheus's HTTP API
# (check-live.py). Everything listens on 127.0.0.1 only; everything started is stopped.
#
# usage: scripts/ops/check-live.sh [WORK_DIR]
# Binaries: $PARLOR_BUILD_DIR/services/<name>/parlor-<name> if set, else build/, else the newest
# build-*/ one (scripts/dev build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$ROOT/build-ops/live}"
TRAFFIC_SECONDS="${TRAFFIC_SECONDS:-60}"
# notifications before sessions and matchmaking, whose outboxes hand their events to it.
SERVICES=(accounts notifications sessions matchmaking ratings)
PIDS=()

find_binary() {  # find_binary RELATIVE_PATH
  if [ -n "${PARLOR_BUILD_DIR:-}" ]; then echo "$PARLOR_BUILD_DIR/$1"; return; fi
  if [ -x "$ROOT/build/$1" ]; then echo "$ROOT/build/$1"; return; fi
  ls -t "$ROOT"/build*/"$1" 2>/dev/null | head -1
}

# shellcheck source=../lib/postgres.sh
source "$ROOT/scripts/lib/postgres.sh"
cleanup() {
  trap - EXIT INT TERM
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  pg_local_stop "$WORK/pg"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$WORK/prometheus-data" "$WORK/logs"
mkdir -p "$WORK/logs" "$WORK/gen/python"

declare -A bin
for name in "${SERVICES[@]}"; do
  bin[$name]="$(find_binary "services/$name/parlor-$name")"
  [ -x "${bin[$name]}" ] || { echo "parlor-$name not built (scripts/dev build)"; exit 1; }
  echo "binary: ${bin[$name]} ($(date -u -r "${bin[$name]}" +%H:%MZ))"
done
token_tool="$(find_binary services/common/core/parlor-token)"
[ -x "$token_tool" ] || { echo "parlor-token not built"; exit 1; }

echo "+ protoc: Python stubs of every API into $WORK/gen/python"
mapfile -t protos < <(cd "$ROOT/protos" && find parlor -name '*.proto' | sort)
(cd "$ROOT/protos" && protoc -I . -I /usr/include --python_out="$WORK/gen/python" \
  --grpc_python_out="$WORK/gen/python" --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  "${protos[@]}")

echo "+ PostgreSQL"
pg_local_start "$WORK/pg"
server="$(cat "$WORK/pg/conninfo")"
psql -q "$server dbname=postgres" -c "CREATE DATABASE parlor"
db_url="$server dbname=parlor"

access="$("$token_tool" keygen)"; service="$("$token_tool" keygen)"
access_private="$(sed -n 's/^PRIVATE_KEY=//p' <<<"$access")"
access_public="$(sed -n 's/^PUBLIC_KEY=//p' <<<"$access")"
service_private="$(sed -n 's/^PRIVATE_KEY=//p' <<<"$service")"
service_public="$(sed -n 's/^PUBLIC_KEY=//p' <<<"$service")"

declare -A grpc_port metrics_port
peer_env=()
for name in "${SERVICES[@]}"; do
  grpc_port[$name]="$(pg_free_port)"; metrics_port[$name]="$(pg_free_port)"
  peer_env+=("PARLOR_${name^^}_ADDRESS=127.0.0.1:${grpc_port[$name]}")
done
for name in "${SERVICES[@]}"; do
  env=("${peer_env[@]}" "PARLOR_DB_URL=$db_url" "PARLOR_LISTEN_HOST=127.0.0.1"
       "PARLOR_GRPC_PORT=${grpc_port[$name]}" "PARLOR_METRICS_PORT=${metrics_port[$name]}"
       "PARLOR_MIGRATIONS_DIR=$ROOT/migrations" "PARLOR_ACCESS_TOKEN_PUBLIC_KEY=$access_public"
       "PARLOR_SERVICE_TOKEN_PUBLIC_KEY=$service_public"
       "PARLOR_SERVICE_TOKEN_PRIVATE_KEY=$service_private" "PARLOR_DRAIN_TIMEOUT=3s"
       "PARLOR_GAUGE_INTERVAL=2s" "PARLOR_LEADERBOARD_REFRESH_INTERVAL=2s")
  [ "$name" = accounts ] && env+=("PARLOR_ACCESS_TOKEN_PRIVATE_KEY=$access_private")
  env "${env[@]}" "${bin[$name]}" migrate >"$WORK/logs/$name-migrate.log" 2>&1 \
    || { cat "$WORK/logs/$name-migrate.log"; exit 1; }
  env "${env[@]}" "${bin[$name]}" >"$WORK/logs/$name.log" 2>&1 &
  PIDS+=("$!")
  /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$ROOT/scripts/lib'); import parlor_grpc
parlor_grpc.wait_serving('127.0.0.1:${grpc_port[$name]}', timeout=60)" \
    || { cat "$WORK/logs/$name.log"; exit 1; }
  printf '  %-12s gRPC 127.0.0.1:%-6s metrics 127.0.0.1:%s\n' "$name" "${grpc_port[$name]}" \
    "${metrics_port[$name]}"
done

echo "+ Prometheus $(prometheus --version 2>&1 | head -1 | awk '{print $3}') on loopback"
/usr/bin/python3 "$ROOT/scripts/ops/extract_rules.py" "$ROOT/k8s/monitoring/prometheusrule.yaml" \
  "$WORK/parlor.rules.yml"
prom_port="$(pg_free_port)"
{
  echo "global: {scrape_interval: 2s, evaluation_interval: 2s}"
  echo "rule_files: [$WORK/parlor.rules.yml]"
  echo "scrape_configs:"
  for name in "${SERVICES[@]}"; do
    echo "  - job_name: parlor-$name"
    echo "    static_configs: [{targets: ['127.0.0.1:${metrics_port[$name]}']}]"
  done
} >"$WORK/prometheus.yml"
promtool check config "$WORK/prometheus.yml"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prometheus-data" \
  --web.listen-address="127.0.0.1:$prom_port" >"$WORK/logs/prometheus.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null && break; sleep 0.2
done

echo "+ playing for ${TRAFFIC_SECONDS}s"
/usr/bin/python3 "$ROOT/scripts/ops/play_traffic.py" "$WORK/gen/python" \
  "127.0.0.1:${grpc_port[accounts]}" "127.0.0.1:${grpc_port[sessions]}" \
  "127.0.0.1:${grpc_port[matchmaking]}" "127.0.0.1:${grpc_port[ratings]}" "$TRAFFIC_SECONDS"
sleep 5  # a last scrape and gauge refresh after the traffic

echo "+ evaluating dashboard and alerts through http://127.0.0.1:$prom_port/api/v1"
/usr/bin/python3 "$ROOT/scripts/ops/check-live.py" "http://127.0.0.1:$prom_port" \
  "$ROOT/k8s/monitoring/parlor-dashboard.json" "$WORK/parlor.rules.yml" \
  "127.0.0.1:${grpc_port[accounts]}" "127.0.0.1:${grpc_port[sessions]}" \
  "127.0.0.1:${grpc_port[matchmaking]}" "127.0.0.1:${grpc_port[ratings]}" \
  "127.0.0.1:${grpc_port[notifications]}"
