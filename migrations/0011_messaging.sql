-- Messaging: inbound activation over SMS and Telegram, notification
-- subscriptions, and the deliveries made for them.

-- A contributor who joins by texting or writing to the bot has a phone number
-- or a Telegram account, and no email address (nor a password).
ALTER TABLE users ALTER COLUMN email DROP NOT NULL;
-- Inbound messages find their sender by number or chat.
CREATE INDEX users_phone_idx ON users (phone_number) WHERE phone_number IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX users_telegram_chat_idx ON users (telegram_chat_id) WHERE telegram_chat_id IS NOT NULL AND deleted_at IS NULL;

-- Every inbound webhook delivery we acted on, by the provider's own id
-- (Twilio's MessageSid, Telegram's update_id): a delivery seen before is a
-- replay and is refused. Kept for good: a captured Twilio request carries no
-- timestamp, so it could be replayed at any time.
CREATE TABLE inbound_messages (
  provider text NOT NULL CHECK (provider IN ('twilio', 'telegram')),
  external_id text NOT NULL,
  -- What came of it (accepted, submitted, ignored_…), for operators; never the message itself.
  outcome text NOT NULL,
  submission_id uuid REFERENCES submissions (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, external_id)
);

-- Who hears about a book's memories, over which channel: each new one as it
-- arrives (new_submission), or a daily summary (digest). Created by the
-- operator CLI (out-of-band verification stays on the web); DELETE through
-- the API makes a row inactive, never removes it.
CREATE TABLE notification_subscriptions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('email', 'sms', 'telegram')),
  kind text NOT NULL CHECK (kind IN ('new_submission', 'digest')),
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER notification_subscriptions_updated_at BEFORE UPDATE ON notification_subscriptions FOR EACH ROW EXECUTE FUNCTION set_updated_at();
-- One active subscription per user, book, channel and kind; inactive ones stay as history.
CREATE UNIQUE INDEX notification_subscriptions_one_active ON notification_subscriptions (book_id, user_id, channel, kind) WHERE is_active;
-- GET …/notifications/subscriptions/: newest first, and oldest change first when syncing.
CREATE INDEX notification_subscriptions_book_created_idx ON notification_subscriptions (book_id, created_at DESC, id DESC);
CREATE INDEX notification_subscriptions_book_updated_idx ON notification_subscriptions (book_id, updated_at, id);
CREATE INDEX notification_subscriptions_user_idx ON notification_subscriptions (user_id);

-- A notification already queued for a subscription: `event` is
-- `submission:<id>` or `digest:<day>`. The claim and the queued message
-- commit together, so a job that runs twice sends once.
CREATE TABLE notification_deliveries (
  subscription_id uuid NOT NULL REFERENCES notification_subscriptions (id) ON DELETE CASCADE,
  event text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, event)
);
