-- Idempotency keys hold answers only. A request with a key runs in one
-- transaction that holds an advisory lock on (user, key) and stores its
-- answer with its effect, so there is no "running" row left behind when a
-- process dies: the claim is the lock, and it dies with the connection.
DELETE FROM idempotency_keys WHERE state <> 'done';
ALTER TABLE idempotency_keys DROP COLUMN state;
ALTER TABLE idempotency_keys ALTER COLUMN response_status SET NOT NULL;
ALTER TABLE idempotency_keys ALTER COLUMN response_body SET NOT NULL;
