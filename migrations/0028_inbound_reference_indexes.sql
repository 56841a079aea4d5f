-- Deleting a memory sets the inbound rows that name it to NULL (ON DELETE SET
-- NULL), and deleting a media file does the same to the inbound file rows
-- that name it. Without an index on the referencing column each such row was
-- found by a full scan of the inbound table, once per memory: a book of
-- 100,000 memories read inbound_messages and inbound_emails 100,000 times
-- each in its purge. These tables are kept for good (replays are refused by
-- them), so they only grow. Rows without a memory or a file are never looked
-- up this way, so they are left out.
CREATE INDEX inbound_messages_submission_idx ON inbound_messages (submission_id) WHERE submission_id IS NOT NULL;
CREATE INDEX inbound_emails_submission_idx ON inbound_emails (submission_id) WHERE submission_id IS NOT NULL;
CREATE INDEX inbound_media_media_idx ON inbound_media (media_id) WHERE media_id IS NOT NULL;
