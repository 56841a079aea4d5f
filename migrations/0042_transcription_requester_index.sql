-- transcriptions.requested_by references users: indexed, so deleting a user does not scan every transcription.
CREATE INDEX transcriptions_requested_by_idx ON transcriptions (requested_by);
