-- Transcription on request (contract decisions, "Added for the fourth wave").
-- One transcript per audio or video file: made by the worker through an
-- OpenAI-compatible endpoint. `text` and `segments` are the provider's;
-- `edited_text` is the owner's correction, kept when the provider's text
-- is made again (the API shows the edit while there is one).
CREATE TABLE transcriptions (
  media_id uuid PRIMARY KEY REFERENCES media (id) ON DELETE CASCADE,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  submission_id uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  language text,
  text text,
  segments jsonb NOT NULL DEFAULT '[]',
  edited_text text,
  failure_reason text,
  -- Provider calls made for the current request (retries count; a new request starts again at 0).
  attempts integer NOT NULL DEFAULT 0,
  requested_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE TRIGGER transcriptions_updated_at BEFORE UPDATE ON transcriptions FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE INDEX transcriptions_book_idx ON transcriptions (book_id);
CREATE INDEX transcriptions_submission_idx ON transcriptions (submission_id);

-- The plan gate: plus and premium in the shipped catalogue (an operator's own edits to other plans stay).
UPDATE plans SET features = features || '{"feature_transcription": true}' WHERE slug IN ('plus', 'premium') AND NOT features ? 'feature_transcription';
UPDATE plans SET features = features || '{"feature_transcription": false}' WHERE NOT features ? 'feature_transcription';
