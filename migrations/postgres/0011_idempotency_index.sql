-- Idempotency keys are unique per pair only where a deal has one: the
-- unique constraint becomes a partial unique index of the same name (WHERE
-- idempotency_key IS NOT NULL), the same rule, since NULLs are never equal.
-- A deal without a key then writes no entry there.
ALTER TABLE rounds DROP CONSTRAINT rounds_pair_idempotency_unique;
CREATE UNIQUE INDEX rounds_pair_idempotency_unique ON rounds (seed_pair_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
