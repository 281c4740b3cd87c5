-- Draws over entrant lists (fairdeal-draw-v1, docs/PROTOCOL.md §7-§9).
--
-- A draw's row exists from the first byte of an uploaded list, as
-- 'uploading': not visible; a refused or abandoned list turns it
-- 'discarded', and its lines are then deleted a chunk at a time (so that no
-- one transaction holds the writer for long) before the row. Its server seed
-- is committed when the list is complete; it is sealed until the draw runs,
-- and revealed in the same transaction that stores the winners.
-- `seq` keys the entries (a small integer, not the 36-byte id, on every
-- line), and is never reused.
CREATE TABLE draws (
    seq                    INTEGER PRIMARY KEY AUTOINCREMENT,
    id                     TEXT    NOT NULL UNIQUE,
    tenant                 TEXT    NOT NULL,
    label                  TEXT,
    status                 TEXT    NOT NULL CHECK (status IN ('uploading', 'discarded', 'awaiting_client_seed', 'ready', 'drawn')),
    entries_uploaded       BOOLEAN NOT NULL,
    entries_sha256         TEXT,
    entries                BIGINT  CHECK (entries BETWEEN 2 AND 4294967295),
    -- The uploaded list's size in bytes (the download's Content-Length).
    entries_bytes          BIGINT  CHECK (entries_bytes >= 0),
    -- The last time an upload stored a batch (drafts are swept by it).
    touched_at             BIGINT  NOT NULL,
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
    CHECK (status IN ('uploading', 'discarded') OR (entries_sha256 IS NOT NULL AND entries IS NOT NULL AND server_seed_hash IS NOT NULL)),
    CHECK ((status = 'drawn') = (server_seed IS NOT NULL AND result IS NOT NULL)),
    CHECK (status IN ('uploading', 'discarded', 'drawn') OR server_seed_sealed IS NOT NULL),
    CHECK ((status IN ('ready', 'drawn')) = (client_seed IS NOT NULL))
);

-- Drafts are swept by the age of their last batch.
CREATE INDEX draws_status_touched ON draws (status, touched_at);
-- A tenant's draws, newest first.
CREATE INDEX draws_tenant_seq ON draws (tenant, seq);

-- One row per line of an uploaded list; a line's text is unique in its list.
CREATE TABLE draw_entries (
    draw_seq  INTEGER NOT NULL REFERENCES draws (seq),
    idx       BIGINT  NOT NULL CHECK (idx >= 0),
    line      TEXT    NOT NULL,
    PRIMARY KEY (draw_seq, idx),
    CONSTRAINT draw_entries_line_unique UNIQUE (draw_seq, line)
) WITHOUT ROWID;
