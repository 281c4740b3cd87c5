-- Witnesses' cosignatures of the log's checkpoints (c2sp.org/tlog-witness,
-- c2sp.org/tlog-cosignature): the signature line each configured witness
-- answered for the checkpoint of a tree size, verified before it is stored.
-- A witness's largest size here is the size it last acknowledged; a
-- checkpoint is served with the lines of its size.
CREATE TABLE log_cosignatures (
    size         BIGINT  NOT NULL CHECK (size >= 0),
    witness      TEXT    NOT NULL,
    line         TEXT    NOT NULL,
    cosigned_at  BIGINT  NOT NULL,
    PRIMARY KEY (size, witness)
);
CREATE INDEX log_cosignatures_witness ON log_cosignatures (witness, size);
