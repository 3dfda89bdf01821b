#!/usr/bin/env bash
# Builds the Parlor image with buildah (no Docker engine needed), then checks it.
#   scripts/dev image              compile inside the image (Dockerfile build stage)
#   scripts/dev image --prebuilt   package binaries already built here (build/, build-*/)
# Base image: $BASE_IMAGE if set (e.g. docker.io/library/debian:bookworm-slim when a registry is
# reachable); otherwise localhost/parlor-base:bookworm, made once from a debootstrap'ed bookworm
# minbase root (needs debootstrap and Debian's mirror, which apt already uses).
# Result: localhost/parlor:dev (IMAGE to change); `buildah push` it to your registry.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
WORK="$ROOT/build-ops/image"
IMAGE="${IMAGE:-localhost/parlor:dev}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export STORAGE_DRIVER="${STORAGE_DRIVER:-vfs}"   # works inside containers without overlayfs
payload=build
[ "${1:-}" = "--prebuilt" ] && payload=prebuilt
command -v buildah >/dev/null || { echo "buildah not installed (apt-get install buildah)"; exit 1; }
mkdir -p "$WORK"

base="${BASE_IMAGE:-}"
if [ -z "$base" ]; then
  base=localhost/parlor-base:bookworm
  if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
    command -v debootstrap >/dev/null || { echo "debootstrap not installed"; exit 1; }
    if [ ! -x "$WORK/rootfs/usr/bin/apt-get" ]; then
      echo "+ debootstrap --variant=minbase bookworm $WORK/rootfs $MIRROR"
      rm -rf "$WORK/rootfs"
      debootstrap --variant=minbase bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -20 "$WORK/debootstrap.log"; exit 1; }
    fi
    echo "deb $MIRROR bookworm main" >"$WORK/rootfs/etc/apt/sources.list"
    echo "deb $MIRROR-security bookworm-security main" >>"$WORK/rootfs/etc/apt/sources.list"
    rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"*
    tar -C "$WORK/rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' \
      --exclude='./sys/*' -cf "$WORK/rootfs.tar" .
    ctr="$(buildah from scratch)"
    buildah add --quiet "$ctr" "$WORK/rootfs.tar" / >/dev/null
    buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
    buildah commit --quiet "$ctr" "$base" >/dev/null
    buildah rm "$ctr" >/dev/null
    rm -f "$WORK/rootfs.tar"
    echo "base image $base from debootstrap (bookworm minbase)"
  fi
fi

if [ "$payload" = prebuilt ]; then
  echo "+ collecting prebuilt binaries and their libraries"
  dirs=("$ROOT/build")
  while IFS= read -r d; do dirs+=("$d"); done < <(ls -dt "$ROOT"/build-* 2>/dev/null)
  "$ROOT/scripts/ops/collect-runtime.sh" "$WORK/payload" "${dirs[@]}"
else
  mkdir -p "$WORK/payload"  # the prebuilt stage's COPY needs the directory to exist
fi

echo "+ buildah bud (BASE_IMAGE=$base PAYLOAD=$payload) -> $IMAGE"
buildah bud --isolation chroot --network host --build-arg BASE_IMAGE="$base" \
  --build-arg PAYLOAD="$payload" --build-arg JOBS="${JOBS:-2}" -t "$IMAGE" -f Dockerfile . \
  >"$WORK/bud.log" 2>&1 || { tail -40 "$WORK/bud.log"; exit 1; }
tail -3 "$WORK/bud.log"

echo "+ checking $IMAGE"
ctr="$(buildah from "$IMAGE")"
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
fail=0
user="$(buildah inspect --format '{{.OCIv1.Config.User}}' "$IMAGE")"
echo "user: $user"; [ "${user%%:*}" = 10001 ] || { echo "image does not run as uid 10001"; fail=1; }
compilers="$(buildah run --isolation chroot "$ctr" -- sh -c 'for c in cc gcc g++ c++ clang clang++ cpp ld as make cmake; do command -v $c; done; true')"
if [ -n "$compilers" ]; then echo "compilers in the runtime image: $compilers"; fail=1
else echo "no compiler, linker or build tool in the runtime image"; fi
for b in parlor-accounts parlor-sessions parlor-matchmaking parlor-ratings parlor-notifications \
    parlor-token; do
  libs="$(buildah run --isolation chroot --user 10001:10001 "$ctr" -- ldd "/usr/local/bin/$b" 2>&1)"
  if grep -q 'not found' <<<"$libs"; then
    echo "$b: missing libraries: $(grep 'not found' <<<"$libs" | tr '\n' ' ')"; fail=1
  fi
  line="$(buildah run --isolation chroot --user 10001:10001 "$ctr" -- "$b" --help 2>&1 || true)"
  line="${line%%$'\n'*}"
  echo "$b --help: $line"
  case "$line" in usage:*) ;; *) fail=1 ;; esac
done
buildah run --isolation chroot "$ctr" -- sh -c 'ls /usr/share/parlor/migrations | tr "\n" " "; echo "(migrations)"; echo "PARLOR_MIGRATIONS_DIR=$PARLOR_MIGRATIONS_DIR"'
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$IMAGE"
exit "$fail"
