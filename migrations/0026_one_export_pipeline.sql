-- Book exports (PDF, JSON, ZIP of a book) and account exports (a user's own
-- data, GDPR) go through one pipeline: requested, taken by a worker under a
-- heartbeat lease, its file stored, handed out by signed links, expired and
-- purged. One table holds both kinds; what differs (what is rendered, who may
-- ask, the caps, how long files are kept) lives in the code's variants.
-- Existing rows of export_jobs and account_exports are kept, with their ids.
CREATE TABLE exports (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('book', 'account')),
  -- What is exported: a book (kind book) or an account (kind account), never both.
  book_id uuid REFERENCES books (id) ON DELETE CASCADE,
  account_id uuid REFERENCES users (id) ON DELETE CASCADE,
  -- Who asked (for an account export, the account itself); kept null if their account row goes.
  requested_by uuid REFERENCES users (id) ON DELETE SET NULL,
  -- pending (queued) → processing (a worker took it; stays so between retries) → complete, or failed once
  -- its runs are spent. An expired file keeps status complete and sets artifact_removed_at.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete', 'failed')),
  -- A book export's rendering, as asked (bleed and gutter derived from the intent when requested).
  theme text,
  intent text CHECK (intent IN ('screen', 'home', 'shop')),
  export_format text CHECK (export_format IN ('pdf', 'json', 'zip')),
  bleed_mm integer CHECK (bleed_mm >= 0),
  gutter_mm integer CHECK (gutter_mm >= 0),
  -- The finished file in the object store; set with status complete.
  artifact_key text,
  artifact_bytes bigint,
  page_count integer,
  -- Client-safe reason of a failure (no paths, hosts or stack traces; those go to the logs).
  error text,
  -- Runs of the job so far (1 on the first).
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  -- Until when the file is kept (7 days for a book, 30 for an account).
  expires_at timestamptz,
  -- When the file was removed from the store (expiry); the row stays for the history.
  artifact_removed_at timestamptz,
  -- Sentences for the owner about a finished render (photos below print resolution).
  warnings jsonb NOT NULL DEFAULT '[]'::jsonb,
  CONSTRAINT exports_subject_check CHECK (
    (kind = 'book' AND book_id IS NOT NULL AND account_id IS NULL AND theme IS NOT NULL AND intent IS NOT NULL
      AND export_format IS NOT NULL AND bleed_mm IS NOT NULL AND gutter_mm IS NOT NULL)
    OR (kind = 'account' AND account_id IS NOT NULL AND book_id IS NULL)
  ),
  CONSTRAINT exports_complete_check CHECK (status <> 'complete' OR (artifact_key IS NOT NULL AND completed_at IS NOT NULL AND expires_at IS NOT NULL))
);
CREATE TRIGGER exports_updated_at BEFORE UPDATE ON exports FOR EACH ROW EXECUTE FUNCTION set_updated_at();

INSERT INTO exports (id, kind, book_id, requested_by, status, theme, intent, export_format, bleed_mm, gutter_mm, artifact_key, artifact_bytes,
                     page_count, error, attempts, created_at, updated_at, started_at, completed_at, expires_at, artifact_removed_at, warnings)
  SELECT id, 'book', book_id, requested_by, status, theme, intent, export_format, bleed_mm, gutter_mm, artifact_key, artifact_bytes,
         page_count, error, attempts, created_at, updated_at, started_at, completed_at, expires_at, artifact_removed_at, warnings
  FROM export_jobs;
-- An account export's status expired becomes complete with its removal time.
INSERT INTO exports (id, kind, account_id, requested_by, status, artifact_key, artifact_bytes, error, attempts, created_at, updated_at,
                     started_at, completed_at, expires_at, artifact_removed_at)
  SELECT id, 'account', user_id, user_id, CASE WHEN status = 'expired' THEN 'complete' ELSE status END, object_key, size_bytes, error, attempts,
         created_at, updated_at, started_at, completed_at, expires_at, CASE WHEN status = 'expired' THEN COALESCE(removed_at, updated_at) END
  FROM account_exports;

DROP TABLE export_jobs;
DROP TABLE account_exports;

-- GET /books/{slug}/exports/: newest first, and oldest change first when syncing (book_id is null
-- on account exports, so these serve book exports alone).
CREATE INDEX exports_book_created_idx ON exports (book_id, created_at DESC, id DESC);
CREATE INDEX exports_book_updated_idx ON exports (book_id, updated_at, id);
-- An identical book export request while one is still pending answers that job.
CREATE INDEX exports_pending_idx ON exports (book_id, theme, intent, export_format) WHERE status = 'pending';
-- Unfinished book exports are capped per book and per requesting user (4 and 10).
CREATE INDEX exports_unfinished_book_idx ON exports (book_id) WHERE status IN ('pending', 'processing');
CREATE INDEX exports_unfinished_user_idx ON exports (requested_by) WHERE kind = 'book' AND status IN ('pending', 'processing');
-- The daily limit of account exports looks at a user's latest request; a poll finds the job by (account, id).
CREATE INDEX exports_account_created_idx ON exports (account_id, created_at DESC) WHERE kind = 'account';

-- Schedules claim their periods in job_schedule_runs (0016); nothing reads this any more.
DROP TABLE daily_job_runs;

-- An account deletion answered 202 deletion_queued: the Idempotency-Key (and the request it is
-- bound to) its retry will come with. When the deletion finishes, by that retry or by the queue,
-- each such key gets the deletion's answer (200 {status: deleted}) to replay, so a retry after the
-- account is gone is answered, not refused with the key the deletion revoked.
CREATE TABLE account_deletion_keys (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key text NOT NULL,
  fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
