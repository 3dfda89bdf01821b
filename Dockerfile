# Multi-stage image with every Parlor service binary and the migrations.
#   docker build -t parlor .
#   docker run parlor parlor-accounts --help
# Build stage: the same Debian packages scripts/dev installs.
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY scripts/packages.txt scripts/packages.txt
RUN apt-get update \
 && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/packages.txt \
    | xargs apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLOR_BUILD_BENCHMARKS=OFF \
 && cmake --build /build -j "$(nproc)" \
 && mkdir -p /out/bin \
 && find /build/services -maxdepth 3 -type f -name 'parlor-*' -perm -u+x -exec cp {} /out/bin/ \;

# Runtime stage: shared libraries only, no compilers; runs as an unprivileged user.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
    libgrpc++1.51 libgrpc29 libprotobuf32 libpqxx-6.4 libspdlog1.10 libfmt9 libssl3 \
    libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0 libcivetweb1 libabsl20220623 libpq5 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home parlor
COPY --from=build /out/bin/ /usr/local/bin/
COPY migrations/ /usr/share/parlor/migrations/
ENV PARLOR_MIGRATIONS_DIR=/usr/share/parlor/migrations \
    PARLOR_LOG_FORMAT=json
USER 10001
EXPOSE 8080 9090
# The Deployment chooses the binary, e.g. args: ["parlor-accounts"].
ENTRYPOINT []
CMD ["parlor-accounts", "--help"]
