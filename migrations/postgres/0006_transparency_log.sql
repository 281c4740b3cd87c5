-- The transparency log (docs/TRANSPARENCY.md).
--
-- log_state.next_index is taken, +1, inside the transaction of every event
-- (a pair committed, a client seed set, a round dealt, a seed revealed), and
-- the entry is inserted in that same transaction: no event without its
-- entry, no entry without its event, and because the row stays locked until
-- commit, indexes follow commit order across processes.
CREATE TABLE log_state (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    next_index       BIGINT  NOT NULL CHECK (next_index >= 0),
    -- Entries [0, integrated_size) are in the tree and a checkpoint.
    integrated_size  BIGINT  NOT NULL CHECK (integrated_size >= 0)
);
INSERT INTO log_state (id, next_index, integrated_size) VALUES (1, 0, 0);

-- Every entry, by its index: RFC 8785 canonical JSON.
CREATE TABLE log_entries (
    idx    BIGINT PRIMARY KEY CHECK (idx >= 0),
    entry  BYTEA NOT NULL
);

-- The Merkle tree's stored hashes (the layout of Go's sumdb tlog package):
-- written once by the integrator, never changed.
CREATE TABLE log_hashes (
    idx   BIGINT PRIMARY KEY CHECK (idx >= 0),
    hash  BYTEA NOT NULL
);

-- Every signed checkpoint, by tree size. Sizes only grow, and each root is
-- determined by the entries, so two checkpoints are always consistent.
CREATE TABLE log_checkpoints (
    size  BIGINT PRIMARY KEY CHECK (size >= 0),
    root  BYTEA NOT NULL,
    note  TEXT NOT NULL
);
