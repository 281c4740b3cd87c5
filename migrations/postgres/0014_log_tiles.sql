-- Full tiles of the transparency log, each stored whole when the integrator
-- completes it: an entry bundle of 256 entries (level -1) or a hash tile of
-- 256 hashes (level 0, 1, ...), as served under /log/tile/. A reader's
-- request is one row instead of 256. Tiles completed before this migration
-- are served from the entries and hashes, as before.
CREATE TABLE log_tiles (
    level  INTEGER NOT NULL CHECK (level >= -1),
    idx    BIGINT  NOT NULL CHECK (idx >= 0),
    body   BYTEA   NOT NULL,
    PRIMARY KEY (level, idx)
);
