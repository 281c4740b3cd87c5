-- When each operator API key was last used (ms since the epoch; NULL: never
-- since this migration), to the minute: `fairdeal keys list` shows it, so an
-- operator can see that a key is idle before revoking it. Written at most
-- once a minute per key and process, off the request's path.
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
