-- no-transaction
-- Table pairs (fairdeal-table-v1, docs/PROTOCOL.md §11): a pair whose client
-- seed is derived from every seat's contribution. Two statuses join the
-- pair's life: 'awaiting_contributions' (seats committing, then revealing)
-- and 'void' (a seat stalled: the pair deals nothing and its server seed is
-- revealed at once).
--
-- SQLite cannot alter a CHECK constraint, so seed_pairs is rebuilt (SQLite's
-- documented twelve-step procedure): foreign keys off, a new table, the rows
-- copied, the old table dropped, the new one renamed, its indexes made
-- again, all in one transaction. The first line
-- tells sqlx not to wrap this file in its own transaction, because
-- foreign_keys cannot change inside one. Run twice (a crash after COMMIT and
-- before sqlx records the migration), it rebuilds the same table again.
PRAGMA foreign_keys = OFF;

BEGIN;

CREATE TABLE seed_pairs_new (
    id                       TEXT    PRIMARY KEY,
    status                   TEXT    NOT NULL CHECK (status IN ('awaiting_contributions', 'awaiting_client_seed', 'active', 'revealed', 'void')),
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
    reveal_seq               BIGINT,
    tenant                   TEXT    NOT NULL DEFAULT 'default',
    label                    TEXT,
    commit_log_index         BIGINT,
    client_seed_log_index    BIGINT,
    reveal_log_index         BIGINT,
    -- A table pair's number of seats (its rows in table_seats); NULL for a
    -- pair whose client seed one player gives.
    seats                    BIGINT  CHECK (seats BETWEEN 2 AND 22),
    -- When the current commit or reveal phase ends (a table pair awaiting
    -- contributions only).
    phase_deadline           BIGINT,
    -- The phase a void table pair stalled in.
    void_phase               TEXT    CHECK (void_phase IN ('commit', 'reveal')),
    -- A table's seats regardless of their order (hex SHA-256 of the sorted,
    -- length-framed labels): voids are counted per set of seats.
    seats_key                TEXT,
    -- A revealed or void pair has its seed in the clear and no sealed secrets left.
    CONSTRAINT seed_pairs_revealed_in_clear CHECK ((status IN ('revealed', 'void')) = (server_seed IS NOT NULL)),
    CONSTRAINT seed_pairs_sealed_until_revealed CHECK (status IN ('revealed', 'void') OR server_seed_sealed IS NOT NULL),
    CONSTRAINT seed_pairs_tables_have_seats CHECK (status NOT IN ('awaiting_contributions', 'void') OR seats IS NOT NULL),
    CONSTRAINT seed_pairs_void_has_phase CHECK ((status = 'void') = (void_phase IS NOT NULL)),
    CONSTRAINT seed_pairs_deadline_while_collecting CHECK ((status = 'awaiting_contributions') = (phase_deadline IS NOT NULL))
);

INSERT INTO seed_pairs_new (id, status, server_seed_hash, server_seed_sealed, server_seed,
    next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at,
    revealed_at, predecessor_id, successor_id, reveal_seq, tenant, label, commit_log_index,
    client_seed_log_index, reveal_log_index)
SELECT id, status, server_seed_hash, server_seed_sealed, server_seed,
    next_server_seed_hash, next_server_seed_sealed, client_seed, next_nonce, created_at,
    revealed_at, predecessor_id, successor_id, reveal_seq, tenant, label, commit_log_index,
    client_seed_log_index, reveal_log_index
FROM seed_pairs;

DROP TABLE seed_pairs;
ALTER TABLE seed_pairs_new RENAME TO seed_pairs;

CREATE UNIQUE INDEX seed_pairs_reveal_seq ON seed_pairs (reveal_seq);
CREATE INDEX seed_pairs_by_tenant ON seed_pairs (tenant, created_at, id);
CREATE INDEX seed_pairs_by_tenant_label ON seed_pairs (tenant, label, created_at, id);
CREATE INDEX seed_pairs_client_seed ON seed_pairs (client_seed);
-- Voids of the same seats, counted.
CREATE INDEX seed_pairs_by_seats ON seed_pairs (tenant, seats_key);
-- The deadline sweep: tables whose phase ran out.
CREATE INDEX seed_pairs_phase_deadline ON seed_pairs (status, phase_deadline);

-- One row per seat of a table pair, in seat order. A seat commits once
-- (the SHA-256 of its secret contribution), then reveals once, only after
-- every seat has committed; the contribution must hash to the commitment.
CREATE TABLE table_seats (
    seed_pair_id            TEXT    NOT NULL REFERENCES seed_pairs (id),
    position                BIGINT  NOT NULL CHECK (position BETWEEN 0 AND 21),
    label                   TEXT    NOT NULL,
    commitment              TEXT    CHECK (length(commitment) = 64),
    contribution            TEXT,
    committed_at            BIGINT,
    contributed_at          BIGINT,
    commitment_log_index    BIGINT,
    contribution_log_index  BIGINT,
    PRIMARY KEY (seed_pair_id, position),
    CONSTRAINT table_seats_label_unique UNIQUE (seed_pair_id, label),
    CHECK (contribution IS NULL OR commitment IS NOT NULL),
    CHECK ((commitment IS NULL) = (committed_at IS NULL)),
    CHECK ((contribution IS NULL) = (contributed_at IS NULL))
);

COMMIT;

PRAGMA foreign_keys = ON;
