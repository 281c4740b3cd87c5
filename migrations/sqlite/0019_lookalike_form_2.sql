-- The lookalike-folded form of a client seed changed (docs/TRANSPARENCY.md,
-- "The lookalike-folded form"): it now reads only the seed's UTS #39
-- skeleton, with overlay marks removed and small capitals read as letters,
-- so every pair of confusables folds alike. The stored forms a new seed is
-- refused against (active pairs', draws') are cleared here, and the
-- service fills them in again on start, in the new form. Revealed pairs
-- keep theirs: it is what their log entries state.
UPDATE seed_pairs SET client_seed_lookalike = NULL
    WHERE status = 'active' AND seats IS NULL AND client_seed IS NOT NULL;
UPDATE draws SET client_seed_lookalike = NULL WHERE client_seed IS NOT NULL;
