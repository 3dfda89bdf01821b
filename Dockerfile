# syntax=docker/dockerfile:1
# One image with every Parlor service binary (each also runs `migrate`), parlor-token and the
# SQL migrations. Built by `scripts/dev image` (buildah; see docs/OPERATIONS.md "Image"), or:
#   docker build --build-arg BASE_IMAGE=debian:bookworm-slim -t parlor .
# The Deployment chooses the binary:  args: ["parlor-sessions"]  /  ["parlor-sessions", "migrate"]
#
# BASE_IMAGE  any Debian bookworm root (the libraries are bookworm's); scripts/dev image makes
#             one with debootstrap when no registry is reachable.
# PAYLOAD     "build": compile in the image with scripts/dev build (default);
#             "prebuilt": take build-ops/image/payload/ from the context, made from an existing
#             build tree by scripts/ops/collect-runtime.sh (scripts/dev image --prebuilt).
ARG BASE_IMAGE=debian:bookworm-slim
ARG PAYLOAD=build

# --- build: the packages and the script the README uses -------------------------------------
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY scripts/packages.txt scripts/packages.txt
RUN apt-get update \
 && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/packages.txt \
    | xargs env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
 && rm -rf /var/lib/apt/lists/*
COPY . .
ARG JOBS=2
RUN JOBS="${JOBS}" BUILD_TYPE=Release scripts/dev build /build -DPARLOR_BUILD_BENCHMARKS=OFF \
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
