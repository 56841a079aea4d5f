-- Resumable uploads from a book's web form (tus). The memory's words are saved first; each file the memory
-- still expects is a ticket, bound to it by an unguessable token (kept only as its SHA-256) that the page
-- hands to the upload. upload_id is the resumable upload now sending the file (a new one replaces it, the
-- old one's parts are removed); finished_at is set in the transaction that attaches the file, so a file is
-- attached once. Tickets past expires_at, and the parts of their unfinished uploads, are swept by housekeeping.
CREATE TABLE web_upload_tickets (
  id uuid PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  book_id uuid NOT NULL REFERENCES books(id) ON DELETE CASCADE,
  -- SET NULL, not CASCADE: a memory deleted mid-upload leaves its ticket for the sweep, which removes the parts.
  submission_id uuid REFERENCES submissions(id) ON DELETE SET NULL,
  -- 'photo' takes pictures only; 'media' a voice note or a video (the plan's gates apply to each).
  field text NOT NULL CHECK (field IN ('photo', 'media')),
  upload_id text UNIQUE,
  -- The file's length as its upload declared it: a finished ticket answers a resumed HEAD with it.
  upload_length bigint,
  media_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX web_upload_tickets_book_idx ON web_upload_tickets (book_id);
CREATE INDEX web_upload_tickets_submission_idx ON web_upload_tickets (submission_id);
CREATE INDEX web_upload_tickets_expires_idx ON web_upload_tickets (expires_at);
