-- When an account's purge (the background part of its deletion: owned books,
-- memories in other books, history) last finished. A deleted account whose
-- purge has not finished is found by the hourly deletions.sweep and purged
-- again (a purge is safe to run again), so a purge that gave up is not lost.
ALTER TABLE users ADD COLUMN purged_at timestamptz;
