-- Media files attached to submissions, and the bookkeeping that keeps the
-- object store and the database in step.

CREATE TABLE media (
  id uuid PRIMARY KEY,
  submission_id uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  uploaded_by uuid REFERENCES users (id) ON DELETE SET NULL,
  kind text NOT NULL CHECK (kind IN ('image', 'audio', 'video')),
  -- Detected from the bytes; the declared type is kept only as a hint.
  mime_type text NOT NULL,
  declared_mime_type text,
  original_filename text,
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  sha256 text NOT NULL,
  -- Object-store keys: the original, and the poster frame of a video once processed.
  storage_key text NOT NULL UNIQUE,
  thumbnail_key text,
  -- Bytes of derived files (the poster frame), counted in the book's storage with the original.
  derived_bytes bigint NOT NULL DEFAULT 0 CHECK (derived_bytes >= 0),
  width integer,
  height integer,
  duration_seconds double precision,
  processing_status text NOT NULL DEFAULT 'pending' CHECK (processing_status IN ('pending', 'processing', 'complete', 'failed')),
  processing_error text,
  scan_result text NOT NULL CHECK (scan_result IN ('pending', 'clean', 'infected', 'skipped_by_policy', 'not_scanned')),
  scan_signature text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER media_updated_at BEFORE UPDATE ON media FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- A submission's media in upload order (embedded in the submission), and a book's (exports, purge).
CREATE INDEX media_submission_idx ON media (submission_id, created_at, id);
CREATE INDEX media_book_idx ON media (book_id);

-- Objects written to the store whose owning row is not committed yet: an
-- upload streams into the store before its media row exists. The row that
-- takes the object deletes this entry in its own transaction; an entry that
-- outlives its request (the process died mid-upload) is swept, object and all.
CREATE TABLE pending_objects (
  key text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set by the sweep before it removes the object: from then on no attach may take it.
  sweeping_at timestamptz
);
CREATE INDEX pending_objects_created_idx ON pending_objects (created_at);

-- A share card is rendered for one approval: the render job writes its card
-- only while the row still carries the token it was queued with, so a card
-- never lands on a row that left approved or changed its media meanwhile.
ALTER TABLE submissions ADD COLUMN share_card_token uuid;
