-- books_sort=activity without a write to every membership per memory.
--
-- 0013 gave each membership an exact copy of its book's last_activity_at, so
-- the caller's books came off one index in activity order. But every new
-- memory moves last_activity_at, and the copy made it update every membership
-- row of the book (and, the column being indexed, every index of each row):
-- a book of 500 members paid 500 row updates per memory, under its row lock.
--
-- A membership now holds only the ten-minute bucket of that time
-- (book_activity_bucket below), which moves at most once per ten minutes per
-- book, whatever the number of memories. The list walks the index by bucket
-- and sorts each bucket's few rows by the book's own exact time: the bucket
-- grows with the time, so (bucket, time, id) orders exactly as (time, id)
-- did, and a page still stops after the bucket that holds its last row.

-- Ten-minute steps since the epoch: never goes down as the time goes up (an int4 lasts
-- 40,000 years at that step).
CREATE FUNCTION book_activity_bucket(t timestamptz) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT floor(extract(epoch FROM t) / 600)::integer $$;

DROP INDEX book_members_list_activity_idx;
ALTER TABLE book_members ADD COLUMN book_activity_bucket integer;

-- A membership's own updated_at still moves with its own columns only.
DROP TRIGGER book_members_updated_at ON book_members;
CREATE TRIGGER book_members_updated_at BEFORE UPDATE ON book_members FOR EACH ROW
  WHEN ((to_jsonb(OLD) - ARRAY['updated_at', 'book_live', 'book_status', 'book_title_key', 'book_created_at', 'book_updated_at', 'book_activity_bucket'])
        IS DISTINCT FROM
        (to_jsonb(NEW) - ARRAY['updated_at', 'book_live', 'book_status', 'book_title_key', 'book_created_at', 'book_updated_at', 'book_activity_bucket']))
  EXECUTE FUNCTION set_updated_at();

UPDATE book_members m SET book_activity_bucket = book_activity_bucket(b.last_activity_at) FROM books b WHERE b.id = m.book_id;
ALTER TABLE book_members ALTER COLUMN book_activity_bucket SET NOT NULL, DROP COLUMN book_activity_at;

CREATE OR REPLACE FUNCTION book_members_copy_book() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT b.deleted_at IS NULL, b.status, lower(b.title), b.created_at, b.updated_at, book_activity_bucket(b.last_activity_at)
    INTO NEW.book_live, NEW.book_status, NEW.book_title_key, NEW.book_created_at, NEW.book_updated_at, NEW.book_activity_bucket
    FROM books b WHERE b.id = NEW.book_id;
  RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION books_copy_to_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE book_members
  SET book_live = NEW.deleted_at IS NULL, book_status = NEW.status, book_title_key = lower(NEW.title),
      book_created_at = NEW.created_at, book_updated_at = NEW.updated_at, book_activity_bucket = book_activity_bucket(NEW.last_activity_at)
  WHERE book_id = NEW.id;
  RETURN NULL;
END;
$$;

-- A move of last_activity_at inside its bucket (nearly every memory) reaches no membership.
DROP TRIGGER books_copy_to_members ON books;
CREATE TRIGGER books_copy_to_members AFTER UPDATE ON books FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.title IS DISTINCT FROM NEW.title OR OLD.created_at IS DISTINCT FROM NEW.created_at
        OR OLD.updated_at IS DISTINCT FROM NEW.updated_at
        OR book_activity_bucket(OLD.last_activity_at) IS DISTINCT FROM book_activity_bucket(NEW.last_activity_at))
  EXECUTE FUNCTION books_copy_to_members();

CREATE INDEX book_members_list_activity_idx ON book_members (user_id, book_status, book_activity_bucket DESC, book_id DESC)
  WHERE role IN ('owner', 'admin') AND book_live;

-- A media upload moves storage_used_bytes, which the Book does not show (only the billing view's
-- quota does): like last_activity_at alone, it no longer moves the book's updated_at, so its ETag
-- and its place in an updated_since sync stay, and the copy of updated_at reaches no membership.
-- A change of anything else still moves updated_at, as does an update that changes nothing.
DROP TRIGGER books_updated_at ON books;
CREATE TRIGGER books_updated_at BEFORE UPDATE ON books FOR EACH ROW
  WHEN ((OLD.last_activity_at IS NOT DISTINCT FROM NEW.last_activity_at AND OLD.storage_used_bytes IS NOT DISTINCT FROM NEW.storage_used_bytes)
        OR (to_jsonb(OLD) - ARRAY['last_activity_at', 'storage_used_bytes']) IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['last_activity_at', 'storage_used_bytes']))
  EXECUTE FUNCTION set_updated_at();
