-- What a finished export wants its owner to know without having failed:
-- photos that print below 200 ppi at their size in the book, for instance.
-- A list of sentences, empty for most jobs.
ALTER TABLE export_jobs ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]'::jsonb;

-- A printed book cannot link: a recording or video prints as a QR code to a
-- page at an unguessable address (/play/<token>/) where it plays. Each render
-- mints its own token (only its hash is kept); the page lives as long as the
-- media does, so deleting the memory (which deletes its media) ends it.
CREATE TABLE media_play_links (
  token_hash bytea PRIMARY KEY,
  media_id uuid NOT NULL REFERENCES media (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_play_links_media ON media_play_links (media_id);
