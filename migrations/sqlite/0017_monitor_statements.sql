-- Monitors' signed statements about this log (docs/TRANSPARENCY.md,
-- "Monitor statements"): the latest each monitor the service was told of
-- (`serve --monitor`) posted, by its verifier key, verified before it is
-- stored. The service republishes them for players' pages; it cannot make
-- one, and what a monitor found it can only withhold, which a page that
-- keeps the monitor sees as no statement.
CREATE TABLE monitor_statements (
    monitor      TEXT    PRIMARY KEY,
    size         BIGINT  NOT NULL CHECK (size >= 0),
    -- The statement's own time (POSIX seconds): of two of one size, the later.
    time         BIGINT  NOT NULL CHECK (time >= 0),
    note         TEXT    NOT NULL,
    received_at  BIGINT  NOT NULL
);
