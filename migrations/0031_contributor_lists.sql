-- The caller's own lists across books (GET /me/memberships/, /me/submissions/,
-- /me/subscriptions/): each ordering of each list is a range scan of one
-- index on the caller's id that stops after limit + 1 rows, like the per-book
-- lists. Newest first, and oldest change first for updated_since.

-- Memberships of live books (deleted ones never appear; archived ones do).
-- A membership's change is its own or its book's (title, status), kept on the
-- row by the triggers of 0013/0025 (book_updated_at).
CREATE INDEX book_members_me_joined_idx ON book_members (user_id, joined_at DESC, book_id DESC) WHERE book_live;
CREATE INDEX book_members_me_sync_idx ON book_members (user_id, (GREATEST(book_updated_at, updated_at)), book_id) WHERE book_live;

-- A contributor's memories across books. The two replace the plain index on
-- the author (its lookups, account deletion's SET NULL among them, use their prefix).
CREATE INDEX submissions_contributor_created_idx ON submissions (contributor_user_id, created_at DESC, id DESC) WHERE contributor_user_id IS NOT NULL;
CREATE INDEX submissions_contributor_updated_idx ON submissions (contributor_user_id, updated_at, id) WHERE contributor_user_id IS NOT NULL;
DROP INDEX submissions_contributor_idx;

-- A subscriber's subscriptions across books; they replace the plain index on the subscriber.
CREATE INDEX notification_subscriptions_user_created_idx ON notification_subscriptions (user_id, created_at DESC, id DESC);
CREATE INDEX notification_subscriptions_user_updated_idx ON notification_subscriptions (user_id, updated_at, id);
DROP INDEX notification_subscriptions_user_idx;
