-- Pairs by client seed: which pairs were given the same client seed, for
-- GET /v1/seed-pairs/{id}/same-client-seed (deal-shopping across pairs
-- shows as two pairs holding one client seed at the same time).
CREATE INDEX seed_pairs_client_seed ON seed_pairs (client_seed);
