-- GDPR data exports of an account (POST /me/export/): everything the service
-- holds about the user, as one gzip-compressed JSON file written in the
-- background by the `account.export` job.

CREATE TABLE account_exports (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- pending (queued) → processing (a worker took it; stays so between retries) → complete, or failed once
  -- its runs are spent; complete → expired when the file is removed, 30 days after completion.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete', 'failed', 'expired')),
  -- account-exports/<user_id>/<id>.json.gz once complete; kept on an expired row for the history.
  object_key text,
  size_bytes bigint,
  -- Client-safe reason of a failure (no paths, hosts or stack traces; those go to the logs).
  error text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  -- Until when the file is kept (30 days after completion).
  expires_at timestamptz,
  -- When the file was removed from the store (expiry).
  removed_at timestamptz,
  CONSTRAINT account_exports_complete_check CHECK (status <> 'complete' OR (object_key IS NOT NULL AND completed_at IS NOT NULL AND expires_at IS NOT NULL))
);
CREATE TRIGGER account_exports_updated_at BEFORE UPDATE ON account_exports FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- The daily limit looks at a user's latest request; a poll finds the job by (user, id).
CREATE INDEX account_exports_user_created_idx ON account_exports (user_id, created_at DESC);
