#!/usr/bin/env bash
# Renders both overlays with kustomize (kubectl kustomize) and validates every object offline
# against the Kubernetes API types (scripts/ops/validate-k8s.mjs).
# usage: scripts/ops/check-manifests.sh [WORK_DIR]   (npm packages are installed in WORK_DIR)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="${1:-$ROOT/build-ops/ops}"
mkdir -p "$WORK/node"
if ! cmp -s "$ROOT/scripts/ops/package.json" "$WORK/node/package.json" \
    || [ ! -d "$WORK/node/node_modules/kubernetes-models" ]; then
  cp "$ROOT/scripts/ops/package.json" "$WORK/node/package.json"
  echo "+ npm install (validators, pinned in scripts/ops/package.json) into $WORK/node"
  npm install --prefix "$WORK/node" --no-audit --no-fund --loglevel=error >/dev/null
fi
KUSTOMIZE=(kubectl kustomize)
command -v kubectl >/dev/null || { echo "kubectl (with built-in kustomize) not found"; exit 1; }
echo "+ $(kubectl version --client 2>/dev/null | tr '\n' ' ')"
rc=0
for overlay in small large; do
  echo "+ kubectl kustomize k8s/overlays/$overlay > $WORK/$overlay.yaml"
  "${KUSTOMIZE[@]}" "$ROOT/k8s/overlays/$overlay" >"$WORK/$overlay.yaml"
  node "$ROOT/scripts/ops/validate-k8s.mjs" "$WORK/node/node_modules" "$overlay" \
    "$WORK/$overlay.yaml" || rc=1
done
exit "$rc"
