-- Account self-service: step-up reauthentication and account deletion, and
-- the mail streams a user can leave (onboarding, digests, activity_reminders).

-- Set when the user asked for deletion but backup erasure has not been
-- confirmed yet: the account keeps working while the queue retries erasure.
ALTER TABLE users ADD COLUMN deletion_requested_at timestamptz;

-- A step-up grant (POST /me/delete/reauth/): single use, five minutes. Only
-- the SHA-256 of the random token is kept; the plaintext is shown once.
CREATE TABLE reauth_grants (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('delete_account')),
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX reauth_grants_user_idx ON reauth_grants (user_id);

-- A one-time code for the step-up, sent by email or SMS: six digits, ten
-- minutes, five attempts. Stored as an HMAC under SECRET_KEY (bound to the
-- row id), never in the clear; a new code replaces the user's earlier ones.
CREATE TABLE reauth_codes (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('delete_account')),
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  code_hash bytea NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX reauth_codes_user_idx ON reauth_codes (user_id, purpose, created_at DESC);

-- Mail streams a user has left. Mail of a stream listed here is never sent
-- (checked by the mail job at send time).
CREATE TABLE mail_stream_optouts (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  stream text NOT NULL CHECK (stream IN ('onboarding', 'digests', 'activity_reminders')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, stream)
);

-- The tokens of the one-click unsubscribe links in onboarding mail (RFC 8058);
-- only their SHA-256 is kept.
CREATE TABLE mail_unsubscribe_tokens (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  stream text NOT NULL CHECK (stream IN ('onboarding')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_unsubscribe_tokens_user_idx ON mail_unsubscribe_tokens (user_id);

-- Periodic stream mail already queued, so a job that runs twice sends once:
-- a digest per user and day, a reminder per book and quiet stretch.
CREATE TABLE mail_stream_sends (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  stream text NOT NULL,
  period text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, stream, period)
);

-- Daily jobs already queued for a day, whichever process noticed the day first.
CREATE TABLE daily_job_runs (
  job text NOT NULL,
  day date NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job, day)
);
