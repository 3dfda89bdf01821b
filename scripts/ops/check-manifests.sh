#!/usr/bin/env bash
# Renders both overlays and the optional Citus Job with kustomize (kubectl kustomize) and
# validates every object offline (scripts/ops/validate-k8s.mjs: Kubernetes API types, hand-written
# checks of the CloudNativePG objects, Parlor's rules), then the image pinning.
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
for target in overlays/small overlays/large citus; do
  name="${target##*/}"
  echo "+ kubectl kustomize k8s/$target > $WORK/$name.yaml"
  "${KUSTOMIZE[@]}" "$ROOT/k8s/$target" >"$WORK/$name.yaml"
  node "$ROOT/scripts/ops/validate-k8s.mjs" "$WORK/node/node_modules" "$name" \
    "$WORK/$name.yaml" || rc=1
done
# The release is chosen in one place: k8s/base/kustomization.yaml names the image by the
# project's version (CMakeLists.txt) or by digest, and no overlay overrides it.
version="$(sed -n 's/^project(parlor VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")"
tags="$(sed -n 's/^ *image: *registry[^:]*:\(.*\)$/\1/p' "$WORK/small.yaml" "$WORK/large.yaml" | sort -u)"
if [ "$tags" = "$version" ] || grep -q 'digest: sha256:' "$ROOT/k8s/base/kustomization.yaml"; then
  echo "image: every Parlor container runs version $tags (project version $version)"
else
  echo "image tags [$tags] are not the project version $version"; rc=1
fi
if grep -ln 'newTag\|digest:' "$ROOT"/k8s/overlays/*/kustomization.yaml; then
  echo "an overlay sets the image: it belongs in k8s/base/kustomization.yaml only"; rc=1
fi
# The image's build stage: only build dependencies (a subset of scripts/packages.txt without
# the servers and tools) and cache mounts for apt and ccache.
pkgs() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" | sort -u; }
extra="$(comm -23 <(pkgs "$ROOT/scripts/packages-build.txt") <(pkgs "$ROOT/scripts/packages.txt"))"
heavy="$(pkgs "$ROOT/scripts/packages-build.txt" | grep -E '^(postgresql|prometheus$|clang|pgbouncer|python3)' || true)"
mounts="$(grep -c -- '--mount=type=cache' "$ROOT/Dockerfile" || true)"
if [ -n "$extra" ] || [ -n "$heavy" ] || [ "$mounts" -lt 2 ]; then
  echo "Dockerfile build stage: not in packages.txt [$extra], not build dependencies [$heavy], $mounts cache mounts"
  rc=1
else
  echo "Dockerfile build stage: $(pkgs "$ROOT/scripts/packages-build.txt" | wc -l) build packages of $(pkgs "$ROOT/scripts/packages.txt" | wc -l), $mounts cache mounts (apt, ccache)"
fi
exit "$rc"
