-- fairdeal-chain-v1 pairs (docs/PROTOCOL.md §13). A chain pair's
-- server_seed_hash is the chain's commitment s_0 and server_seed_sealed its
-- tip s_N; next_server_seed_hash is the successor chain's s_0 and
-- next_server_seed_sealed its tip. chain_length is N (NULL for a
-- fairdeal-v1 pair); chain_published counts the rounds, from nonce 0, whose
-- seeds are published: a round's seed is published only once every earlier
-- round has ended, since it opens every earlier seed.
ALTER TABLE seed_pairs ADD COLUMN chain_length BIGINT CHECK (chain_length IS NULL OR chain_length >= 1);
ALTER TABLE seed_pairs ADD COLUMN chain_published BIGINT NOT NULL DEFAULT 0 CHECK (chain_published >= 0);

-- A chain round's published seed s_{k+1} (hex): NULL while it or an earlier
-- round of its pair is in play, and for every fairdeal-v1 round.
ALTER TABLE rounds ADD COLUMN server_seed TEXT;
-- The log index of the `round_seed` entry that published it.
ALTER TABLE rounds ADD COLUMN seed_log_index BIGINT;

-- Seeds of an unrevealed chain, sealed (associated data: the pair and the
-- position), every 128 positions and at the tip: a deal at nonce k hashes
-- down from the first one at or above k + 1, at most 127 times. Deleted
-- when the pair is revealed.
CREATE TABLE chain_anchors (
    seed_pair_id  TEXT    NOT NULL REFERENCES seed_pairs (id),
    position      BIGINT  NOT NULL CHECK (position >= 1),
    seed_sealed   BYTEA   NOT NULL,
    PRIMARY KEY (seed_pair_id, position)
);
