-- Mail sent to a book's address (<slug>@MAIL_INBOUND_DOMAIN), through the
-- built-in SMTP receiver or the inbound webhook. One row per message and
-- book, written in the transaction that answers the sender (SMTP 250, HTTP
-- 202): the raw message is in the object store by then (spool_key), and the
-- email.process job turns it into a memory. The same message again (its
-- Message-ID, or its body's hash when it has none) finds the row and changes
-- nothing. A message dropped at once (DMARC fail) is recorded here too,
-- already processed, without a spool.
CREATE TABLE inbound_emails (
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  dedupe_key text NOT NULL,
  received_via text NOT NULL CHECK (received_via IN ('smtp', 'webhook')),
  -- The raw RFC 5322 message until it is processed; several rows (one message to several books) may share one.
  spool_key text,
  size_bytes bigint NOT NULL,
  -- What the sender's domain proved: spf, dkim, dmarc verdicts (pass, fail, none, ...) and whether From is authenticated.
  auth jsonb NOT NULL,
  -- What came of it (submitted, dropped:dmarc_fail, refused:<why>, ...), for operators; never the message itself.
  outcome text NOT NULL DEFAULT 'queued',
  submission_id uuid REFERENCES submissions (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  UNIQUE (book_id, dedupe_key)
);
CREATE INDEX inbound_emails_spool_idx ON inbound_emails (spool_key) WHERE spool_key IS NOT NULL;
