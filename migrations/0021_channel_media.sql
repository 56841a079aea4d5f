-- Photos, voice notes and videos sent over message channels, and WhatsApp.

-- WhatsApp deliveries are recorded by their message id (wamid), as Twilio's and Telegram's are.
ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_provider_check;
ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_provider_check CHECK (provider IN ('twilio', 'telegram', 'whatsapp'));

-- Subscribers may be told over WhatsApp too.
ALTER TABLE notification_subscriptions DROP CONSTRAINT notification_subscriptions_channel_check;
ALTER TABLE notification_subscriptions ADD CONSTRAINT notification_subscriptions_channel_check CHECK (channel IN ('email', 'sms', 'telegram', 'whatsapp'));

-- A file that came with an inbound message, to be fetched from the provider
-- by the job queue (never inside the webhook's request). One row per
-- (message, position), written in the transaction that records the memory;
-- the fetch job attaches the file only while its row is still pending, under
-- the row's lock, so a job run twice (a worker killed mid-download) attaches
-- one copy.
CREATE TABLE inbound_media (
  provider text NOT NULL CHECK (provider IN ('twilio', 'telegram', 'whatsapp')),
  external_id text NOT NULL,
  position int NOT NULL CHECK (position >= 0),
  submission_id uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
  -- What to fetch: Twilio's media URL, Telegram's file_id, WhatsApp's media id.
  ref text NOT NULL,
  declared_type text,
  filename text,
  -- Where a refusal is told (the E.164 number or the Telegram chat); cleared once the file is settled.
  reply_to text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'attached', 'refused', 'failed')),
  -- Why a file was refused or failed, for operators (never the file or the message).
  reason text,
  media_id uuid REFERENCES media (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, external_id, position)
);
CREATE TRIGGER inbound_media_updated_at BEFORE UPDATE ON inbound_media FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE INDEX inbound_media_submission_idx ON inbound_media (submission_id);
