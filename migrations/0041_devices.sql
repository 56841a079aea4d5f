-- Devices and push (contract decisions, "Added for the fourth wave").
-- A device a user registered for push: an APNs device token (ios), an FCM
-- registration token (android) or a Web Push subscription (web). The token
-- (for web, the subscription as JSON) is kept sealed with the service's
-- secret key, like a webhook endpoint's secret; token_hash (SHA-256 of it)
-- finds "the same token again": one device per token, whoever registers it.
CREATE TABLE devices (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  platform text NOT NULL CHECK (platform IN ('web', 'ios', 'android')),
  name text,
  token_hash text NOT NULL,
  token_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE UNIQUE INDEX devices_token_idx ON devices (platform, token_hash);
CREATE INDEX devices_user_idx ON devices (user_id, created_at, id);

ALTER TABLE notification_subscriptions DROP CONSTRAINT notification_subscriptions_channel_check;
ALTER TABLE notification_subscriptions ADD CONSTRAINT notification_subscriptions_channel_check CHECK (channel IN ('email', 'sms', 'telegram', 'whatsapp', 'push'));
