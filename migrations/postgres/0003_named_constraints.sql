-- Unique constraints carry names the code matches on (store::Constraint),
-- never the wording of an error message. PostgreSQL had named the api_keys
-- one itself; SQLite reports the columns, which the code ties to this name.
ALTER TABLE api_keys RENAME CONSTRAINT api_keys_name_key TO api_keys_name_unique;
