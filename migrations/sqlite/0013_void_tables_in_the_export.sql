-- A void table reveals its server seed, so the export lists it, in reveal
-- order like every revealed pair: voids from now on take a reveal_seq when
-- they happen; those from before take the next ones, in the order they were
-- voided (the base and the order are read into temporary tables first, so
-- the update never reads rows it has written).
CREATE TEMPORARY TABLE void_base AS
    SELECT COALESCE(MAX(reveal_seq), 0) AS base FROM seed_pairs;
CREATE TEMPORARY TABLE void_order AS
    SELECT id, ROW_NUMBER() OVER (ORDER BY revealed_at, id) AS n
    FROM seed_pairs WHERE status = 'void' AND reveal_seq IS NULL;
UPDATE seed_pairs
    SET reveal_seq = (SELECT base FROM void_base)
        + (SELECT n FROM void_order WHERE void_order.id = seed_pairs.id)
    WHERE id IN (SELECT id FROM void_order);
DROP TABLE void_order;
DROP TABLE void_base;
