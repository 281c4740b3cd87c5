-- What a client seed looks like: the SHA-256 of its lookalike-folded form
-- (invisible characters removed, NFKC, lower case, the UTS #39 skeleton),
-- beside the seed itself. Two pairs (or draws) whose seeds look alike have
-- the same value, so GET /v1/seed-pairs/{id}/same-client-seed finds them,
-- and a tenant giving a lookalike of a live pair's seed to another pair is
-- refused unless it insists. Rows from before this migration keep NULL: the
-- service fills in the active ones on start.
ALTER TABLE seed_pairs ADD COLUMN client_seed_lookalike TEXT;
CREATE INDEX seed_pairs_client_seed_lookalike ON seed_pairs (client_seed_lookalike);
ALTER TABLE draws ADD COLUMN client_seed_lookalike TEXT;
