-- What a finished export wants its owner to know without having failed:
-- photos that print below 200 ppi at their size in the book, for instance.
-- A list of sentences, empty for most jobs.
ALTER TABLE export_jobs ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]'::jsonb;
