#!/usr/bin/env bash
# Collects what the runtime image holds into OUT (a root filesystem overlay):
#   /usr/local/bin/parlor-{accounts,sessions,matchmaking,ratings,token}
#   /usr/local/lib/parlor/*.so*          every shared library they load except glibc's own
#                                        (libc, libm, ld.so, ...: the base image's must be used)
#   /etc/ld.so.conf.d/parlor.conf        so the loader finds them
#   /usr/share/parlor/migrations/        the SQL migrations (PARLOR_MIGRATIONS_DIR)
#   /etc/ssl/certs/ca-certificates.crt   for the push webhook (HTTPS)
# usage: collect-runtime.sh OUT BUILD_DIR [BUILD_DIR...]   (first dir holding a binary wins)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$1"; shift
rm -rf "$OUT"
mkdir -p "$OUT/usr/local/bin" "$OUT/usr/local/lib/parlor" "$OUT/etc/ld.so.conf.d" \
  "$OUT/usr/share/parlor" "$OUT/etc/ssl/certs"
for target in services/accounts/parlor-accounts services/sessions/parlor-sessions \
    services/matchmaking/parlor-matchmaking services/ratings/parlor-ratings \
    services/notifications/parlor-notifications services/common/core/parlor-token; do
  found=""
  for dir in "$@"; do
    if [ -x "$dir/$target" ]; then found="$dir/$target"; break; fi
  done
  [ -n "$found" ] || { echo "missing $target in $*" >&2; exit 1; }
  echo "binary  $found"
  install -m 0755 "$found" "$OUT/usr/local/bin/"
  strip --strip-debug "$OUT/usr/local/bin/$(basename "$target")" 2>/dev/null || true
done
# Shared libraries, resolved by the loader of the build environment.
ldd "$OUT"/usr/local/bin/* | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libresolv.so.*) continue ;;
  esac
  cp -L "$lib" "$OUT/usr/local/lib/parlor/"
done
if ldd "$OUT"/usr/local/bin/* | grep -q 'not found'; then
  ldd "$OUT"/usr/local/bin/* | grep 'not found' >&2; exit 1
fi
echo /usr/local/lib/parlor >"$OUT/etc/ld.so.conf.d/parlor.conf"
cp -r "$ROOT/migrations" "$OUT/usr/share/parlor/migrations"
cp -L /etc/ssl/certs/ca-certificates.crt "$OUT/etc/ssl/certs/"
echo "libraries: $(ls "$OUT/usr/local/lib/parlor" | wc -l) ($(du -sh "$OUT/usr/local/lib/parlor" | cut -f1)); binaries $(du -sh "$OUT/usr/local/bin" | cut -f1)"
