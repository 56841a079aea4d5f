-- Where a photo's subject is, found once when the photo is processed (not each time a book is printed):
-- {"version": 1, "faces": [{"x","y","w","h","score"}], "attention": {"x","y"} | null}, boxes and points as
-- fractions of the upright photo, faces largest first, the attention point only when there is no face.
-- NULL: not looked for yet (media processed before this column, or a detector that could not run); the
-- printed book then looks for it itself. A row of an older version is looked at again by a newer detector.
ALTER TABLE media ADD COLUMN subject jsonb;
