-- A draw whose client seed or result a restored database lost (its entries
-- are in the log, appended again by `fairdeal recover`): the index of the
-- first such entry. Such a draw never takes a client seed or runs again,
-- since drawing it with another seed would be a re-roll (docs/OPERATIONS.md,
-- "Restore").
ALTER TABLE draws ADD COLUMN lost_log_index BIGINT;
