-- Billing through Stripe: the checkout sells book slots as subscriptions, and
-- Stripe's signed events drive each paid book's period and grace period.

-- Every Stripe event taken, by its id: a delivery seen before changes nothing.
CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- The Stripe customer of a user (made by their first checkout); the customer portal opens on it.
CREATE TABLE stripe_customers (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  customer_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A completed checkout is fulfilled once (by its event or by its success page, whichever comes first).
CREATE TABLE stripe_checkouts (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  plan_slug text NOT NULL REFERENCES plans (slug),
  subscription_id text,
  fulfilled_at timestamptz NOT NULL DEFAULT now()
);

-- One subscription pays for one book. Its state is kept here as the events
-- arrive (in any order), and copied to the book once the book exists: the
-- slot is bought before the book is made with it.
CREATE TABLE stripe_subscriptions (
  id text PRIMARY KEY,
  customer_id text,
  -- Known from the checkout; an invoice event may come first and leave them empty for a moment.
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  plan_slug text REFERENCES plans (slug),
  book_id uuid REFERENCES books (id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'grace_period', 'canceled')),
  -- The period paid through; an invoice for an earlier or equal period is stale.
  period_start timestamptz,
  period_end timestamptz,
  grace_period_ends_at timestamptz,
  canceled_at timestamptz,
  -- Set to end at its period's end (the owner canceled in the portal); it still pays until then.
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  -- The creation time of the newest event that set the status, and of the newest
  -- customer.subscription.updated taken: an older one is stale.
  status_at timestamptz,
  snapshot_at timestamptz,
  -- When the canceled subscription's book went back to the default plan (or was deleted, or its buyer's account purged).
  released_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER stripe_subscriptions_updated_at BEFORE UPDATE ON stripe_subscriptions FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE UNIQUE INDEX stripe_subscriptions_book ON stripe_subscriptions (book_id) WHERE book_id IS NOT NULL;
CREATE INDEX stripe_subscriptions_unbound ON stripe_subscriptions (user_id, plan_slug) WHERE book_id IS NULL;
CREATE INDEX stripe_subscriptions_to_release ON stripe_subscriptions (period_end) WHERE status = 'canceled' AND released_at IS NULL;

-- A paid book's record says whether its subscription ends at the period's end.
ALTER TABLE billing_records ADD COLUMN cancel_at_period_end boolean NOT NULL DEFAULT false;
