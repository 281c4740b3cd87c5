# fairdeal: multi-stage build; the runtime image holds only the binary.
#
#   docker build -t fairdeal .
#   docker run -p 8080:8080 -v fairdeal-data:/data fairdeal
#   docker run --rm -v fairdeal-data:/data fairdeal keys create --name backend
#
# The data volume holds the SQLite database and the generated master key.
# For PostgreSQL pass DATABASE_URL, and the master key as FAIRDEAL_MASTER_KEY
# or a mounted FAIRDEAL_MASTER_KEY_FILE shared by every instance.

FROM rust:1-bookworm AS build
WORKDIR /src
# Dependencies first, so source edits do not rebuild them.
COPY Cargo.toml Cargo.lock ./
COPY crates/fairdeal-core/Cargo.toml crates/fairdeal-core/Cargo.toml
RUN mkdir -p src benches crates/fairdeal-core/src \
 && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
 && echo 'fn main() {}' > benches/dealing.rs && touch crates/fairdeal-core/src/lib.rs \
 && cargo build --release --locked --bin fairdeal || true
COPY . .
RUN touch src/main.rs src/lib.rs crates/fairdeal-core/src/lib.rs \
 && cargo build --release --locked --bin fairdeal \
 && strip target/release/fairdeal

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
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
ENTRYPOINT ["fairdeal"]
CMD ["serve"]
