# fairdeal: multi-stage build; the runtime image holds only the binary (and
# tini as PID 1, forwarding SIGTERM and reaping).
#
#   docker build -t fairdeal .
#   docker run -d --name fairdeal -p 127.0.0.1:8080:8080 -v fairdeal-data:/data fairdeal
#   docker exec fairdeal fairdeal keys create --name backend
#
# The /data volume holds the SQLite database and the master key made on
# first start (everything a process needs: the log's key is sealed in the
# database). For PostgreSQL pass DATABASE_URL, and the master key as
# FAIRDEAL_MASTER_KEY or a mounted FAIRDEAL_MASTER_KEY_FILE shared by every
# instance. The base images are build arguments, so a registry mirror or a
# local image can stand in for the official ones.

ARG RUST_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${RUST_IMAGE} AS build
WORKDIR /src
# Dependencies first, so that source edits do not rebuild them: every
# workspace member's manifest, with empty sources.
COPY Cargo.toml Cargo.lock build.rs ./
COPY crates/fairdeal-core/Cargo.toml crates/fairdeal-core/Cargo.toml
COPY crates/fairdeal-stats/Cargo.toml crates/fairdeal-stats/Cargo.toml
COPY crates/fairdeal-test-support/Cargo.toml crates/fairdeal-test-support/Cargo.toml
RUN mkdir -p src benches crates/fairdeal-core/src crates/fairdeal-stats/src crates/fairdeal-test-support/src \
 && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
 && echo 'fn main() {}' > benches/dealing.rs && echo 'fn main() {}' > benches/audit.rs \
 && touch crates/fairdeal-core/src/lib.rs crates/fairdeal-stats/src/lib.rs crates/fairdeal-test-support/src/lib.rs \
 && cargo build --release --locked --bin fairdeal
COPY . .
# The commit the binary reports (`fairdeal --version`, GET /version): the
# context has no .git.
ARG FAIRDEAL_GIT_COMMIT=unknown
RUN touch src/main.rs src/lib.rs crates/fairdeal-core/src/lib.rs crates/fairdeal-stats/src/lib.rs \
 && FAIRDEAL_GIT_COMMIT=${FAIRDEAL_GIT_COMMIT} cargo build --release --locked --bin fairdeal \
 && strip target/release/fairdeal

FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system fairdeal \
 && useradd --system --gid fairdeal --home-dir /data --shell /usr/sbin/nologin fairdeal \
 && mkdir -p /data && chown fairdeal:fairdeal /data
COPY --from=build /src/target/release/fairdeal /usr/local/bin/fairdeal
USER fairdeal
VOLUME ["/data"]
ENV FAIRDEAL_DATA_DIR=/data \
    FAIRDEAL_LISTEN=0.0.0.0:8080 \
    FAIRDEAL_LOG_FORMAT=json
EXPOSE 8080
# Ready when the server and its database answer (GET /readyz), asked by the
# binary itself: the image has no curl or wget.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/fairdeal", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "fairdeal"]
CMD ["serve"]
