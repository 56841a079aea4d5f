-- Unfinished exports are capped per book and per requesting user (4 and 10):
-- each request counts them, so both counts read a small partial index.
CREATE INDEX export_jobs_unfinished_book_idx ON export_jobs (book_id) WHERE status IN ('pending', 'processing');
CREATE INDEX export_jobs_unfinished_user_idx ON export_jobs (requested_by) WHERE status IN ('pending', 'processing');
