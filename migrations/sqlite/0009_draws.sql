-- Draws over entrant lists (fairdeal-draw-v1, docs/PROTOCOL.md §7-§9).
--
-- A draw's row exists from the first byte of an uploaded list, as
-- 'uploading': not visible, deleted if the list is refused. Its server seed
-- is committed when the list is complete; it is sealed until the draw runs,
-- and revealed in the same transaction that stores the winners.
-- `seq` keys the entries (a small integer, not the 36-byte id, on every line).
CREATE TABLE draws (
    seq                    INTEGER PRIMARY KEY,
    id                     TEXT    NOT NULL UNIQUE,
    tenant                 TEXT    NOT NULL,
    label                  TEXT,
    status                 TEXT    NOT NULL CHECK (status IN ('uploading', 'awaiting_client_seed', 'ready', 'drawn')),
    entries_uploaded       BOOLEAN NOT NULL,
    entries_sha256         TEXT,
    entries                BIGINT  CHECK (entries BETWEEN 2 AND 4294967295),
    winners                BIGINT  NOT NULL CHECK (winners >= 1),
    client_seed_source     TEXT    NOT NULL,
    server_seed_hash       TEXT,
    server_seed_sealed     BLOB,
    server_seed            TEXT,
    client_seed            TEXT,
    result                 TEXT,
    idempotency_key        TEXT,
    created_at             BIGINT  NOT NULL,
    client_seed_at         BIGINT,
    drawn_at               BIGINT,
    commit_log_index       BIGINT,
    client_seed_log_index  BIGINT,
    result_log_index       BIGINT,
    CONSTRAINT draws_tenant_idempotency_unique UNIQUE (tenant, idempotency_key),
    CHECK (status = 'uploading' OR (entries_sha256 IS NOT NULL AND entries IS NOT NULL AND server_seed_hash IS NOT NULL)),
    CHECK ((status = 'drawn') = (server_seed IS NOT NULL AND result IS NOT NULL)),
    CHECK (status IN ('uploading', 'drawn') OR server_seed_sealed IS NOT NULL),
    CHECK ((status IN ('ready', 'drawn')) = (client_seed IS NOT NULL))
);

-- Drafts are swept by age.
CREATE INDEX draws_status_created ON draws (status, created_at);

-- One row per line of an uploaded list; a line's text is unique in its list.
CREATE TABLE draw_entries (
    draw_seq  INTEGER NOT NULL REFERENCES draws (seq) ON DELETE CASCADE,
    idx       BIGINT  NOT NULL CHECK (idx >= 0),
    line      TEXT    NOT NULL,
    PRIMARY KEY (draw_seq, idx),
    CONSTRAINT draw_entries_line_unique UNIQUE (draw_seq, line)
) WITHOUT ROWID;
