-- no-transaction
-- Idempotency keys are unique per pair only where a deal has one: the
-- unique constraint becomes a partial unique index (WHERE idempotency_key
-- IS NOT NULL), the same rule, since SQLite never finds two NULLs equal.
-- A deal without a key then writes no entry there: each such deal used to
-- touch a leaf of this index at its pair's place, a page in the WAL.
--
-- SQLite cannot drop a table constraint, so rounds is rebuilt (SQLite's
-- twelve-step procedure, as 0010 did for seed_pairs): foreign keys off, a
-- new table, the rows copied, the old table dropped, the new one renamed,
-- its indexes made again, all in one transaction. Run twice (a crash after
-- COMMIT and before sqlx records the migration), it rebuilds the same table
-- again.
PRAGMA foreign_keys = OFF;

BEGIN;

CREATE TABLE rounds_new (
    id                TEXT    PRIMARY KEY,
    seed_pair_id      TEXT    NOT NULL REFERENCES seed_pairs (id),
    nonce             BIGINT  NOT NULL CHECK (nonce >= 0),
    game              TEXT    NOT NULL,
    deal              TEXT    NOT NULL,
    status            TEXT    NOT NULL CHECK (status IN ('in_play', 'closed')),
    created_at        BIGINT  NOT NULL,
    closed_at         BIGINT,
    idempotency_key   TEXT,
    deal_sealed       BLOB,
    log_index         BIGINT,
    CONSTRAINT rounds_pair_nonce_unique UNIQUE (seed_pair_id, nonce)
);

INSERT INTO rounds_new (id, seed_pair_id, nonce, game, deal, status, created_at, closed_at,
    idempotency_key, deal_sealed, log_index)
SELECT id, seed_pair_id, nonce, game, deal, status, created_at, closed_at,
    idempotency_key, deal_sealed, log_index
FROM rounds;

DROP TABLE rounds;
ALTER TABLE rounds_new RENAME TO rounds;

CREATE UNIQUE INDEX rounds_pair_idempotency_unique ON rounds (seed_pair_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
-- Rotation looks for rounds still in play; auto-close for old ones.
CREATE INDEX rounds_in_play ON rounds (status, created_at);

COMMIT;

PRAGMA foreign_keys = ON;
