-- Events: what changed, written in the transaction of the change (an outbox).
-- `body` is the event as the API shows it ({id, type, created_at, book_slug, data}).
-- No foreign key to books: a book's events outlive it for their 30 days.
CREATE TABLE events (
  id uuid PRIMARY KEY,
  type text NOT NULL,
  book_id uuid,
  book_slug text,
  body json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_created_idx ON events (created_at);

-- Who may read an event: the book's owner and admins when it happened.
CREATE TABLE event_recipients (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, event_id)
);
CREATE INDEX event_recipients_list_idx ON event_recipients (user_id, created_at DESC, event_id DESC);
CREATE INDEX event_recipients_event_idx ON event_recipients (event_id);

-- A user's webhook endpoints. The signing secret is kept encrypted (it must
-- be read back to sign); the previous one signs too until it lapses.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  -- NULL: every type; NULL book_slugs: every book the user owns or administers.
  event_types text[],
  book_slugs text[],
  status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  disabled_reason text,
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, created_at, id);
CREATE TRIGGER webhook_endpoints_updated_at BEFORE UPDATE ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- One delivery per (event, endpoint): the dispatcher's queue. A delivery is
-- due when pending and next_attempt_at has passed and no live lease holds it.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id);

-- Every attempt, for GET /webhook_endpoints/{id}/deliveries/.
CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL,
  attempt integer NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  error text,
  next_retry_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, created_at DESC, id DESC);
