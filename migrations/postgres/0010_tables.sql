-- Table pairs (fairdeal-table-v1, docs/PROTOCOL.md §11): a pair whose client
-- seed is derived from every seat's contribution. Two statuses join the
-- pair's life: 'awaiting_contributions' (seats committing, then revealing)
-- and 'void' (a seat stalled: the pair deals nothing and its server seed is
-- revealed at once). Kept column-for-column equal to the SQLite migration.
ALTER TABLE seed_pairs ADD COLUMN seats BIGINT CHECK (seats BETWEEN 2 AND 22);
ALTER TABLE seed_pairs ADD COLUMN phase_deadline BIGINT;
ALTER TABLE seed_pairs ADD COLUMN void_phase TEXT CHECK (void_phase IN ('commit', 'reveal'));
-- A table's seats regardless of their order (hex SHA-256 of the sorted,
-- length-framed labels): voids are counted per set of seats.
ALTER TABLE seed_pairs ADD COLUMN seats_key TEXT;

-- The checks 0001 left unnamed (PostgreSQL named them), now with the new statuses.
ALTER TABLE seed_pairs DROP CONSTRAINT seed_pairs_status_check;
ALTER TABLE seed_pairs DROP CONSTRAINT seed_pairs_check;
ALTER TABLE seed_pairs DROP CONSTRAINT seed_pairs_check1;
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_status_check
    CHECK (status IN ('awaiting_contributions', 'awaiting_client_seed', 'active', 'revealed', 'void'));
-- A revealed or void pair has its seed in the clear and no sealed secrets left.
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_revealed_in_clear
    CHECK ((status IN ('revealed', 'void')) = (server_seed IS NOT NULL));
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_sealed_until_revealed
    CHECK (status IN ('revealed', 'void') OR server_seed_sealed IS NOT NULL);
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_tables_have_seats
    CHECK (status NOT IN ('awaiting_contributions', 'void') OR seats IS NOT NULL);
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_void_has_phase
    CHECK ((status = 'void') = (void_phase IS NOT NULL));
ALTER TABLE seed_pairs ADD CONSTRAINT seed_pairs_deadline_while_collecting
    CHECK ((status = 'awaiting_contributions') = (phase_deadline IS NOT NULL));

-- Voids of the same seats, counted.
CREATE INDEX seed_pairs_by_seats ON seed_pairs (tenant, seats_key);
-- The deadline sweep: tables whose phase ran out.
CREATE INDEX seed_pairs_phase_deadline ON seed_pairs (status, phase_deadline);

-- One row per seat of a table pair, in seat order. A seat commits once
-- (the SHA-256 of its secret contribution), then reveals once, only after
-- every seat has committed; the contribution must hash to the commitment.
CREATE TABLE table_seats (
    seed_pair_id            TEXT    NOT NULL REFERENCES seed_pairs (id),
    position                BIGINT  NOT NULL CHECK (position BETWEEN 0 AND 21),
    label                   TEXT    NOT NULL,
    commitment              TEXT    CHECK (length(commitment) = 64),
    contribution            TEXT,
    committed_at            BIGINT,
    contributed_at          BIGINT,
    commitment_log_index    BIGINT,
    contribution_log_index  BIGINT,
    PRIMARY KEY (seed_pair_id, position),
    CONSTRAINT table_seats_label_unique UNIQUE (seed_pair_id, label),
    CHECK (contribution IS NULL OR commitment IS NOT NULL),
    CHECK ((commitment IS NULL) = (committed_at IS NULL)),
    CHECK ((contribution IS NULL) = (contributed_at IS NULL))
);
