-- Tenants: one service may serve several games or brands. Every API key
-- belongs to a tenant, and a seed pair to the tenant of the key that created
-- it; an operator sees and acts on its own tenant's pairs only. Keys and
-- pairs from before this migration belong to the tenant 'default'.
ALTER TABLE api_keys ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE seed_pairs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';

-- An opaque reference from the game backend (a player or table id), shown to
-- the pair's operators only: never in public reads or the export. A pair
-- opened by rotation keeps its predecessor's label.
ALTER TABLE seed_pairs ADD COLUMN label TEXT;

-- Listing a tenant's pairs, newest last, by label or status.
CREATE INDEX seed_pairs_by_tenant ON seed_pairs (tenant, created_at, id);
CREATE INDEX seed_pairs_by_tenant_label ON seed_pairs (tenant, label, created_at, id);
