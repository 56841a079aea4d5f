-- Plans, quota slots, books, membership and billing.

-- The plan catalog is data: an operator may edit prices, features and caps.
CREATE TABLE plans (
  slug text PRIMARY KEY,
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  sort_order integer NOT NULL DEFAULT 0,
  price_amount_cents integer,
  price_currency text,
  price_interval text,
  features jsonb NOT NULL DEFAULT '{}',
  max_members_per_book integer NOT NULL,
  max_video_bytes bigint NOT NULL DEFAULT 0,
  storage_bytes_per_book bigint NOT NULL,
  -- NULL means no cap.
  max_approved_submissions_per_book integer,
  channels text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Exactly one default plan.
CREATE UNIQUE INDEX plans_one_default ON plans (is_default) WHERE is_default;
CREATE TRIGGER plans_updated_at BEFORE UPDATE ON plans FOR EACH ROW EXECUTE FUNCTION set_updated_at();

INSERT INTO plans (slug, name, is_default, sort_order, price_amount_cents, price_currency, price_interval, features,
                   max_members_per_book, max_video_bytes, storage_bytes_per_book, max_approved_submissions_per_book, channels)
VALUES
  ('free', 'Free', true, 0, NULL, NULL, NULL,
   '{"api_access": false, "pdf_export": false, "json_export": true, "zip_export": false, "feature_ai_enhancer": false, "feature_audio": false, "feature_video": false, "feature_live_photo": false}',
   5, 0, 1073741824, 50, '{web,email}'),
  ('plus', 'Plus', false, 1, 4900, 'usd', 'one_time',
   '{"api_access": true, "pdf_export": true, "json_export": true, "zip_export": false, "feature_ai_enhancer": false, "feature_audio": true, "feature_video": false, "feature_live_photo": true}',
   25, 0, 10737418240, NULL, '{web,email,sms,telegram}'),
  ('premium', 'Premium', false, 2, 9900, 'usd', 'one_time',
   '{"api_access": true, "pdf_export": true, "json_export": true, "zip_export": true, "feature_ai_enhancer": true, "feature_audio": true, "feature_video": true, "feature_live_photo": true}',
   100, 83886080, 53687091200, NULL, '{web,email,sms,rcs,imessage,whatsapp,telegram}');

-- Book slots bought through the web checkout (the operator CLI stands in).
-- A slot is consumed when a book on that plan is created.
CREATE TABLE book_slots (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  plan_slug text NOT NULL REFERENCES plans (slug),
  purchased integer NOT NULL DEFAULT 0 CHECK (purchased >= 0),
  used integer NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= purchased),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, plan_slug)
);
CREATE TRIGGER book_slots_updated_at BEFORE UPDATE ON book_slots FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE books (
  id uuid PRIMARY KEY,
  -- Derived from the title at creation; unique and immutable.
  slug text NOT NULL UNIQUE,
  owner_id uuid NOT NULL REFERENCES users (id),
  title text NOT NULL,
  subtitle text NOT NULL DEFAULT '',
  theme text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}',
  use_case_slug text,
  is_public boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  plan_slug text NOT NULL REFERENCES plans (slug),
  storage_used_bytes bigint NOT NULL DEFAULT 0,
  -- Billing state: set by billing (the operator CLI stands in).
  billing_status text NOT NULL DEFAULT 'active' CHECK (billing_status IN ('active', 'grace_period', 'canceled')),
  grace_period_ends_at timestamptz,
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz,
  -- Set when the owner asked for deletion but backup erasure has not succeeded yet: the book still answers.
  deletion_requested_at timestamptz,
  -- Set once deletion is final: the book answers 404 while the cascade runs.
  deleted_at timestamptz
);
CREATE TRIGGER books_updated_at BEFORE UPDATE ON books FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE INDEX books_owner_idx ON books (owner_id);

CREATE TABLE book_members (
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'contributor')),
  joined_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (book_id, user_id)
);
CREATE INDEX book_members_user_idx ON book_members (user_id, role);
-- One owner per book.
CREATE UNIQUE INDEX book_members_one_owner ON book_members (book_id) WHERE role = 'owner';
CREATE TRIGGER book_members_updated_at BEFORE UPDATE ON book_members FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Billing records, newest wins; each change of plan or billing status appends one.
CREATE TABLE billing_records (
  id uuid PRIMARY KEY,
  book_id uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  plan_slug text NOT NULL REFERENCES plans (slug),
  status text NOT NULL CHECK (status IN ('active', 'grace_period', 'canceled')),
  period_start timestamptz NOT NULL,
  period_end timestamptz,
  grace_period_ends_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX billing_records_book_idx ON billing_records (book_id, created_at DESC);
