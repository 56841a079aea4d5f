-- A book's chosen cover (contract-decisions, "Cover"): a photo of one of its memories, or a photo uploaded for
-- the cover alone. An uploaded cover is a media row of the book that belongs to no memory (submission_id NULL):
-- it counts in the book's storage like any file, goes with the book (media.book_id cascades) and with the owner's
-- purge, and is removed when another cover replaces it. Every query that reads a memory's media joins on
-- submission_id, so such a row is never a memory's.
-- cover_media_id has no foreign key (media already references books): a cover whose file is gone reads as no
-- cover. The focal point is where the subject is, in 0..1 of the upright photo's width and height.
ALTER TABLE media ALTER COLUMN submission_id DROP NOT NULL;
ALTER TABLE books
  ADD COLUMN cover_media_id uuid,
  ADD COLUMN cover_focal_x double precision CHECK (cover_focal_x BETWEEN 0 AND 1),
  ADD COLUMN cover_focal_y double precision CHECK (cover_focal_y BETWEEN 0 AND 1);
