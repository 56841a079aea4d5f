-- Exports of a book: a PDF in one of the themes, a JSON document, or a ZIP
-- of that JSON with the original media files. Each request is a row here,
-- rendered in the background by the `export.render` job.

CREATE TABLE export_jobs (
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  requested_by uuid REFERENCES users (id) ON DELETE SET NULL,
  -- pending (queued) → processing (a worker picked it; stays so between retries) → complete or failed.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete', 'failed')),
  theme text NOT NULL,
  intent text NOT NULL CHECK (intent IN ('screen', 'home', 'shop')),
  export_format text NOT NULL CHECK (export_format IN ('pdf', 'json', 'zip')),
  -- Derived from the intent when requested, kept so a job always renders as it was asked.
  bleed_mm integer NOT NULL CHECK (bleed_mm >= 0),
  gutter_mm integer NOT NULL CHECK (gutter_mm >= 0),
  -- The finished file in the object store; set with status complete.
  artifact_key text,
  artifact_bytes bigint,
  page_count integer,
  -- Client-safe reason of a failure (no paths, hosts or stack traces; those go to the logs).
  error text,
  -- Runs of the job so far (1 on the first), for the error message and the logs.
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  -- Until when the artifact is kept (7 days after completion); after it the artifact answers 410.
  expires_at timestamptz,
  -- Set when the artifact was removed from the store (expiry); the row stays for the history.
  artifact_removed_at timestamptz,
  CONSTRAINT export_jobs_complete_check CHECK (status <> 'complete' OR (artifact_key IS NOT NULL AND completed_at IS NOT NULL AND expires_at IS NOT NULL))
);
CREATE TRIGGER export_jobs_updated_at BEFORE UPDATE ON export_jobs FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- GET /books/{slug}/exports/: newest first, and oldest change first when syncing.
CREATE INDEX export_jobs_book_created_idx ON export_jobs (book_id, created_at DESC, id DESC);
CREATE INDEX export_jobs_book_updated_idx ON export_jobs (book_id, updated_at, id);
-- An identical request while one is still pending answers that job.
CREATE INDEX export_jobs_pending_idx ON export_jobs (book_id, theme, intent, export_format) WHERE status = 'pending';
-- Export rendering reads a book's approved memories pinned first, then oldest first.
CREATE INDEX submissions_book_export_order_idx ON submissions (book_id, is_pinned DESC, created_at, id) WHERE status = 'approved';
