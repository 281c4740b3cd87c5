-- Where each event sits in the transparency log, so that its signed receipt
-- can be given again (an idempotent retry, a later read): the entry bytes
-- are in log_entries at that index.
ALTER TABLE seed_pairs ADD COLUMN commit_log_index BIGINT;
ALTER TABLE seed_pairs ADD COLUMN client_seed_log_index BIGINT;
ALTER TABLE seed_pairs ADD COLUMN reveal_log_index BIGINT;
ALTER TABLE rounds ADD COLUMN log_index BIGINT;
