-- Submissions (memories) and their moderation state.

CREATE TABLE submissions (
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  -- The author: may edit the row (and, later, upload media to it). NULL once the account is gone.
  contributor_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  contributor_name text,
  -- Through the API always the key owner's email; never supplied by the client.
  contributor_email text,
  text_content text NOT NULL CHECK (char_length(text_content) BETWEEN 1 AND 20000),
  is_private boolean NOT NULL DEFAULT false,
  -- Moves are decided by src/services/submissions/moderation.ts, nowhere else.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  is_pinned boolean NOT NULL DEFAULT false,
  pinned_at timestamptz,
  -- Shown to the contributor in the rejection email; cleared when the row is approved.
  rejection_reason text,
  -- Object-store key of the rendered share card; cleared whenever the row leaves approved or is edited.
  share_card_key text,
  -- Where the memory came in: api, web, email, sms, telegram…
  source text NOT NULL DEFAULT 'api',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Only an approved row can be pinned, and pinned_at is set exactly when it is.
  CONSTRAINT submissions_pin_check CHECK (is_pinned = (pinned_at IS NOT NULL) AND (NOT is_pinned OR status = 'approved'))
);
CREATE TRIGGER submissions_updated_at BEFORE UPDATE ON submissions FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- The two keyset orderings of GET …/submissions/: newest first, and oldest change first (updated_since).
CREATE INDEX submissions_book_created_idx ON submissions (book_id, created_at DESC, id DESC);
CREATE INDEX submissions_book_updated_idx ON submissions (book_id, updated_at, id);
-- The approve cap counts approved rows of a book.
CREATE INDEX submissions_book_approved_idx ON submissions (book_id) WHERE status = 'approved';
CREATE INDEX submissions_contributor_idx ON submissions (contributor_user_id) WHERE contributor_user_id IS NOT NULL;

-- books.last_activity_at (books_sort=activity) moves with every submission
-- change. It is not part of the Book representation, so bumping it alone must
-- not move the book's updated_at: otherwise every incoming memory would change
-- the book's ETag (a stale If-Match on the next PATCH) and resurface the book
-- in an updated_since sync. Any other update still moves updated_at, as before.
DROP TRIGGER books_updated_at ON books;
CREATE TRIGGER books_updated_at BEFORE UPDATE ON books FOR EACH ROW
  WHEN (OLD.last_activity_at IS NOT DISTINCT FROM NEW.last_activity_at
        OR (to_jsonb(OLD) - 'last_activity_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_activity_at'))
  EXECUTE FUNCTION set_updated_at();
