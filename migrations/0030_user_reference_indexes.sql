-- Deleting an account sets its user id to NULL in the rows that only mention
-- it (ON DELETE SET NULL). Without an index on each referencing column every
-- account deletion read the whole table once per column: audit events and
-- media grow with the service, not with the account. Partial: most rows of
-- a long-lived service keep a user, and the lookups only ever ask for one.
CREATE INDEX audit_events_user_idx ON audit_events (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX media_uploaded_by_idx ON media (uploaded_by) WHERE uploaded_by IS NOT NULL;
CREATE INDEX invitations_invited_by_idx ON invitations (invited_by) WHERE invited_by IS NOT NULL;
CREATE INDEX invitations_accepted_user_idx ON invitations (accepted_user_id) WHERE accepted_user_id IS NOT NULL;
-- The same for rows deleted with their parent (ON DELETE CASCADE): a user's
-- checkouts with the account, a delivery's attempts when deliveries age out.
CREATE INDEX stripe_checkouts_user_idx ON stripe_checkouts (user_id);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id);
