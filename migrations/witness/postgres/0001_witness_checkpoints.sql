-- `fairdeal witness`: for each log origin, the latest checkpoint it
-- cosigned. A row only ever moves forward, by a compare-and-set on
-- (size, root): see src/witness/store.rs.
CREATE TABLE witness_checkpoints (
    origin TEXT PRIMARY KEY,
    size BIGINT NOT NULL CHECK (size >= 0),
    root BYTEA NOT NULL CHECK (octet_length(root) = 32),
    note TEXT NOT NULL,
    updated_ms BIGINT NOT NULL
);
