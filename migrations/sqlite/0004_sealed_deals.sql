-- The recorded deal of a round whose pair is not revealed yet is sealed under
-- the master key (XChaCha20-Poly1305, the round id bound in as associated
-- data): deal_sealed holds it and deal is empty, so a copy of the database
-- taken mid-hand shows no cards. Rotation opens every round of the pair it
-- reveals and stores the deal in the clear (deal_sealed NULL). Rounds dealt
-- before this migration keep their clear deals.
ALTER TABLE rounds ADD COLUMN deal_sealed BLOB;
