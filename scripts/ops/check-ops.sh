#!/usr/bin/env bash
# Every operations check, run by `scripts/dev check-ops`:
#   1. manifests: both overlays and k8s/citus rendered by kustomize, validated against the
#      Kubernetes API types, CloudNativePG objects by hand, Parlor's rules, image pinning, the
#      Dockerfile's build stage
#   2. rules: promtool check rules + promtool test rules (each alert firing and not firing,
#      runbook_url headings)
#   3. dashboard: every panel query parses; every parlor_* metric used is one the services export
#   4. citus: the Citus distribution plan against the sessions schema (local PostgreSQL)
#   5. live: PostgreSQL + the four services on loopback, a real Prometheus scraping them while
#      games are played, every panel query (all must return data) and alert expression evaluated
#      through its HTTP API, process_* metrics, Health listed by reflection
# Builds the service binaries in build/ first (only those targets) unless OPS_NO_BUILD=1.
# Prints each check's output and a summary; exits non-zero if any check failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${OPS_WORK_DIR:-$ROOT/build-ops}"
JOBS="${JOBS:-2}"
RESULTS=()
run() {
  local name="$1"; shift
  printf '\n\033[1m==> ops: %s\033[0m\n' "$name"
  local start=$SECONDS
  if "$@"; then RESULTS+=("$(printf '%-12s ok      %4ss' "$name" $((SECONDS - start)))")
  else RESULTS+=("$(printf '%-12s FAILED  %4ss' "$name" $((SECONDS - start)))"); fi
}
build_services() {
  local dir="$ROOT/build"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" >/dev/null || return 1
  fi
  cmake --build "$dir" -j "$JOBS" --target parlor-accounts parlor-sessions parlor-matchmaking \
    parlor-ratings parlor-token
}
[ "${OPS_NO_BUILD:-0}" = 1 ] || run build build_services
run manifests "$ROOT/scripts/ops/check-manifests.sh" "$WORK/manifests"
run rules "$ROOT/scripts/ops/check-rules.sh" "$WORK/rules"
run dashboard /usr/bin/python3 "$ROOT/scripts/ops/check-dashboard.py"
run citus /usr/bin/python3 "$ROOT/scripts/ops/check_citus.py"
run live "$ROOT/scripts/ops/check-live.sh" "$WORK/live"
printf '\n\033[1m==> ops summary\033[0m\n'
printf '  %s\n' "${RESULTS[@]}"
! printf '%s\n' "${RESULTS[@]}" | grep -q FAILED
