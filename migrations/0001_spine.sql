-- The service spine: users, credentials, idempotency, rate limits, audit.

-- updated_at strictly increases on every change of a row, even twice in one
-- transaction, so two versions of a row never share an ETag. It is taken from
-- the transaction's start (now()), which the list watermark relies on.
CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := GREATEST(now(), OLD.updated_at + interval '1 microsecond');
  RETURN NEW;
END;
$$;

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  books_sort text NOT NULL DEFAULT 'activity'
    CHECK (books_sort IN ('activity', 'title', 'created', 'role')),
  phone_number text,
  telegram_chat_id text,
  telegram_username text,
  imessage_identifier text,
  is_staff boolean NOT NULL DEFAULT false,
  is_active boolean NOT NULL DEFAULT true,
  date_joined timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
-- Emails are stored lower-cased; one live account per address.
CREATE UNIQUE INDEX users_email_key ON users (email) WHERE deleted_at IS NULL;
CREATE TRIGGER users_updated_at BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- API keys. Only the SHA-256 of the key is kept; the plaintext is shown once.
CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
-- A name is unique among a user's live keys; a revoked key frees its name.
CREATE UNIQUE INDEX api_tokens_user_name_key ON api_tokens (user_id, name) WHERE revoked_at IS NULL;
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- Browser sessions. The cookie holds a random id; only its hash is stored.
CREATE TABLE web_sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);

-- Idempotency keys, scoped per user. A row is claimed ('running') before the
-- route's work and completed with the response to replay.
CREATE TABLE idempotency_keys (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- Sliding-window rate limits shared by every server process.
CREATE TABLE rate_limit_hits (
  bucket text NOT NULL,
  hit_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX rate_limit_hits_bucket_idx ON rate_limit_hits (bucket, hit_at);

CREATE TABLE audit_events (
  id uuid PRIMARY KEY,
  event text NOT NULL,
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  request_id text,
  data jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_created_idx ON audit_events (created_at);
