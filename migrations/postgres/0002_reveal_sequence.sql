-- The order in which seed pairs were revealed, for a resumable export.
-- Assigned inside the rotation transaction as MAX + 1 while reveals are
-- serialised (SQLite has one writer; PostgreSQL takes an advisory lock), so
-- the sequence follows commit order and a cursor never skips a later reveal.
ALTER TABLE seed_pairs ADD COLUMN reveal_seq BIGINT;

UPDATE seed_pairs
SET reveal_seq = ordered.seq
FROM (
    SELECT id, ROW_NUMBER() OVER (ORDER BY revealed_at, id) AS seq
    FROM seed_pairs
    WHERE status = 'revealed'
) AS ordered
WHERE seed_pairs.id = ordered.id;

CREATE UNIQUE INDEX seed_pairs_reveal_seq ON seed_pairs (reveal_seq);
