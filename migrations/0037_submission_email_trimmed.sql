-- What the own-words extraction cut from a memory sent by email (quoted
-- history, signature, forward header), kept with it and shown to its owner
-- as the submission's email_trimmed: JSON text written as served (json, not
-- jsonb, so the bytes and member order are the ones the API answers).
ALTER TABLE submissions ADD COLUMN email_trimmed json;
