-- `fairdeal witness`: for each log origin, the latest checkpoint it
-- cosigned. A row only ever moves forward, by a compare-and-set on
-- (size, root): see src/witness/store.rs.
CREATE TABLE witness_checkpoints (
    origin TEXT PRIMARY KEY NOT NULL,
    size INTEGER NOT NULL CHECK (size >= 0),
    root BLOB NOT NULL CHECK (length(root) = 32),
    note TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
);
