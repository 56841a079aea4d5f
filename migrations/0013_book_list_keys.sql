-- GET /books/: every books_sort read from an index of the caller's memberships.
--
-- The list orders the caller's books by the book's own columns (activity,
-- title, creation, last change), so each page used to join every membership
-- of the caller to its book and sort them all. Each membership row now
-- carries a copy of those columns, kept by the triggers below in the same
-- transaction as the change, so a page is a range scan of one index that
-- stops after limit + 1 rows, and the books of just those rows are read.

ALTER TABLE book_members
  ADD COLUMN book_live boolean,
  ADD COLUMN book_status text,
  ADD COLUMN book_title_key text,
  ADD COLUMN book_created_at timestamptz,
  ADD COLUMN book_updated_at timestamptz,
  ADD COLUMN book_activity_at timestamptz;

-- A membership's own updated_at (members list, its sync) moves with its own
-- columns only, not with the copies of its book's.
DROP TRIGGER book_members_updated_at ON book_members;
CREATE TRIGGER book_members_updated_at BEFORE UPDATE ON book_members FOR EACH ROW
  WHEN ((to_jsonb(OLD) - ARRAY['updated_at', 'book_live', 'book_status', 'book_title_key', 'book_created_at', 'book_updated_at', 'book_activity_at'])
        IS DISTINCT FROM
        (to_jsonb(NEW) - ARRAY['updated_at', 'book_live', 'book_status', 'book_title_key', 'book_created_at', 'book_updated_at', 'book_activity_at']))
  EXECUTE FUNCTION set_updated_at();

UPDATE book_members m
SET book_live = b.deleted_at IS NULL, book_status = b.status, book_title_key = lower(b.title),
    book_created_at = b.created_at, book_updated_at = b.updated_at, book_activity_at = b.last_activity_at
FROM books b WHERE b.id = m.book_id;

ALTER TABLE book_members
  ALTER COLUMN book_live SET NOT NULL,
  ALTER COLUMN book_status SET NOT NULL,
  ALTER COLUMN book_title_key SET NOT NULL,
  ALTER COLUMN book_created_at SET NOT NULL,
  ALTER COLUMN book_updated_at SET NOT NULL,
  ALTER COLUMN book_activity_at SET NOT NULL;

-- A new membership takes its book's values.
CREATE FUNCTION book_members_copy_book() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT b.deleted_at IS NULL, b.status, lower(b.title), b.created_at, b.updated_at, b.last_activity_at
    INTO NEW.book_live, NEW.book_status, NEW.book_title_key, NEW.book_created_at, NEW.book_updated_at, NEW.book_activity_at
    FROM books b WHERE b.id = NEW.book_id;
  RETURN NEW;
END;
$$;
CREATE TRIGGER book_members_copy_book BEFORE INSERT ON book_members FOR EACH ROW EXECUTE FUNCTION book_members_copy_book();

-- A change of the book reaches every membership of it.
CREATE FUNCTION books_copy_to_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE book_members
  SET book_live = NEW.deleted_at IS NULL, book_status = NEW.status, book_title_key = lower(NEW.title),
      book_created_at = NEW.created_at, book_updated_at = NEW.updated_at, book_activity_at = NEW.last_activity_at
  WHERE book_id = NEW.id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER books_copy_to_members AFTER UPDATE ON books FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.title IS DISTINCT FROM NEW.title OR OLD.created_at IS DISTINCT FROM NEW.created_at
        OR OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.last_activity_at IS DISTINCT FROM NEW.last_activity_at)
  EXECUTE FUNCTION books_copy_to_members();

-- One index per ordering (see BOOK_ORDERINGS), over the rows the list can show:
-- owner and admin memberships of live books. Every key runs one way, so a
-- cursor is a row comparison that starts the scan where the last page ended.
CREATE INDEX book_members_list_activity_idx ON book_members (user_id, book_status, book_activity_at DESC, book_id DESC)
  WHERE role IN ('owner', 'admin') AND book_live;
CREATE INDEX book_members_list_title_idx ON book_members (user_id, book_status, book_title_key, book_id)
  WHERE role IN ('owner', 'admin') AND book_live;
CREATE INDEX book_members_list_created_idx ON book_members (user_id, book_status, book_created_at DESC, book_id DESC)
  WHERE role IN ('owner', 'admin') AND book_live;
CREATE INDEX book_members_list_role_idx ON book_members (user_id, book_status, (role = 'owner') DESC, book_created_at DESC, book_id DESC)
  WHERE role IN ('owner', 'admin') AND book_live;
CREATE INDEX book_members_list_sync_idx ON book_members (user_id, book_status, GREATEST(book_updated_at, updated_at), book_id)
  WHERE role IN ('owner', 'admin') AND book_live;
