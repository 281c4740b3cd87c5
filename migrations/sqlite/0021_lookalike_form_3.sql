-- The lookalike-folded form of a client seed changed again
-- (docs/TRANSPARENCY.md, "The lookalike-folded form"): a capital now folds
-- as its small letter does (the second form read capital I as l and small
-- i as itself, so AGAIN-X1 and again-x1 were two seeds). The stored forms a
-- new seed is refused against (active pairs', draws') are cleared here, and
-- the service fills them in again on start, in the new form. Revealed pairs
-- keep theirs: it is what their log entries state.
UPDATE seed_pairs SET client_seed_lookalike = NULL
    WHERE status = 'active' AND seats IS NULL AND client_seed IS NOT NULL;
UPDATE draws SET client_seed_lookalike = NULL WHERE client_seed IS NOT NULL;
