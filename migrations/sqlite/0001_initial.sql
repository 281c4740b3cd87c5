-- fairdeal schema, SQLite dialect. Kept column-for-column equal to
-- migrations/postgres/0001_initial.sql so one set of queries serves both.
-- Times are milliseconds since the Unix epoch (UTC).

-- One row per seed pair. Unrevealed seeds exist only sealed (XChaCha20-Poly1305
-- under the master key, the pair id and slot bound in as associated data);
-- server_seed holds the hex only once the pair is revealed.
CREATE TABLE seed_pairs (
    id                       TEXT    PRIMARY KEY,
    status                   TEXT    NOT NULL CHECK (status IN ('awaiting_client_seed', 'active', 'revealed')),
    server_seed_hash         TEXT    NOT NULL,
    server_seed_sealed       BLOB,
    server_seed              TEXT,
    next_server_seed_hash    TEXT    NOT NULL,
    next_server_seed_sealed  BLOB,
    client_seed              TEXT,
    next_nonce               BIGINT  NOT NULL DEFAULT 0 CHECK (next_nonce >= 0),
    created_at               BIGINT  NOT NULL,
    revealed_at              BIGINT,
    predecessor_id           TEXT    REFERENCES seed_pairs (id),
    successor_id             TEXT    REFERENCES seed_pairs (id),
    -- A revealed pair has its seed in the clear and no sealed secrets left.
    CHECK ((status = 'revealed') = (server_seed IS NOT NULL)),
    CHECK (status = 'revealed' OR server_seed_sealed IS NOT NULL)
);

-- One row per dealt round. (seed_pair_id, nonce) is unique: the database,
-- not process memory, guarantees a nonce is never dealt twice.
CREATE TABLE rounds (
    id                TEXT    PRIMARY KEY,
    seed_pair_id      TEXT    NOT NULL REFERENCES seed_pairs (id),
    nonce             BIGINT  NOT NULL CHECK (nonce >= 0),
    game              TEXT    NOT NULL,
    deal              TEXT    NOT NULL,
    status            TEXT    NOT NULL CHECK (status IN ('in_play', 'closed')),
    created_at        BIGINT  NOT NULL,
    closed_at         BIGINT,
    idempotency_key   TEXT,
    CONSTRAINT rounds_pair_nonce_unique UNIQUE (seed_pair_id, nonce),
    CONSTRAINT rounds_pair_idempotency_unique UNIQUE (seed_pair_id, idempotency_key)
);

-- Rotation looks for rounds still in play; auto-close for old ones.
CREATE INDEX rounds_in_play ON rounds (status, created_at);

-- Operator API keys: only a SHA-256 of the secret part is stored.
CREATE TABLE api_keys (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    secret_hash TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    revoked_at  BIGINT
);

-- Service-wide settings, such as the fingerprint of the master key that
-- sealed this database's seeds (so a process with another key refuses to start).
CREATE TABLE settings (
    name   TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
