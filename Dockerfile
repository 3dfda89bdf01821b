# syntax=docker/dockerfile:1
# One image with every Parlor service binary (each also runs `migrate`), parlor-token and the
# SQL migrations. Built by `scripts/dev image` (buildah; see docs/OPERATIONS.md "Image"), or:
#   docker build --build-arg BASE_IMAGE=debian:bookworm-slim -t parlor .
# The Deployment chooses the binary:  args: ["parlor-sessions"]  /  ["parlor-sessions", "migrate"]
#
# BASE_IMAGE  any Debian bookworm root (the libraries are bookworm's); scripts/dev image makes
#             one with debootstrap when no registry is reachable.
# PAYLOAD     "build": compile in the image (default; build dependencies from
#             scripts/packages-build.txt, apt and ccache in BuildKit cache mounts);
#             "prebuilt": take build-ops/image/payload/ from the context, made from an existing
#             build tree by scripts/ops/collect-runtime.sh (scripts/dev image --prebuilt).
ARG BASE_IMAGE=debian:bookworm-slim
ARG PAYLOAD=build

# --- build: only the build dependencies, and caches that survive between builds -------------
# The apt downloads and ccache's objects live in BuildKit cache mounts (buildah >= 1.24 too):
# a rebuild after a source change reinstalls nothing and recompiles only what changed.
FROM ${BASE_IMAGE} AS build
ENV DEBIAN_FRONTEND=noninteractive CCACHE_DIR=/root/.cache/ccache CCACHE_BASEDIR=/src
RUN rm -f /etc/apt/apt.conf.d/docker-clean \
 && echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' >/etc/apt/apt.conf.d/keep-cache
COPY scripts/packages-build.txt /tmp/packages-build.txt
RUN --mount=type=cache,target=/var/cache/apt,sharing=locked \
    --mount=type=cache,target=/var/lib/apt,sharing=locked \
    apt-get update -q \
 && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' /tmp/packages-build.txt \
    | xargs apt-get install -y -q --no-install-recommends
WORKDIR /src
COPY . .
ARG JOBS=2
# Only the six shipped binaries, not the tests, fuzzers or benchmarks.
RUN --mount=type=cache,target=/root/.cache/ccache \
    cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLOR_BUILD_BENCHMARKS=OFF \
 && cmake --build /build -j "${JOBS}" --target parlor-accounts parlor-sessions \
      parlor-matchmaking parlor-ratings parlor-notifications parlor-token \
 && ccache --show-stats | head -5 \
 && scripts/ops/collect-runtime.sh /out /build

FROM scratch AS prebuilt
COPY build-ops/image/payload/ /out/

FROM ${PAYLOAD} AS payload

# --- runtime: the base root, the binaries and their shared libraries, nothing else ----------
FROM ${BASE_IMAGE} AS runtime
COPY --from=payload /out/ /
RUN ldconfig \
 && groupadd --system --gid 10001 parlor \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin parlor
ENV PARLOR_MIGRATIONS_DIR=/usr/share/parlor/migrations \
    PARLOR_LOG_FORMAT=json
USER 10001:10001
EXPOSE 8080 9090
ENTRYPOINT []
CMD ["parlor-accounts", "--help"]
