-- The contributor form of a book that is not public is reached only with this
-- key in its link (/b/{slug}/?key=...). Each existing book gets its own.
ALTER TABLE books ADD COLUMN form_key text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');

-- A sign-up waiting for its address to be confirmed: no account exists until
-- the mailed link is used (with the password chosen here), so an address can
-- neither be squatted nor told apart from one that already has an account.
CREATE TABLE signup_requests (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  next_path text,
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX signup_requests_email ON signup_requests (email);
CREATE INDEX signup_requests_expires_at ON signup_requests (expires_at);
