// Billing through Stripe: which Stripe customer is which user, the state of each subscription as the last applied
// webhook left it, and the webhook events already handled (each is handled once, in the transaction of its effect).
export default /* sql */ `
CREATE TABLE billing_customers (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  stripe_customer_id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE billing_subscriptions (
  stripe_subscription_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stripe_customer_id TEXT NOT NULL,
  -- Stripe's status: active, trialing, past_due, canceled, unpaid, incomplete, incomplete_expired, paused.
  status TEXT NOT NULL,
  -- Null when the subscribed price is not one of the svc_<tier>_<cycle> prices.
  tier TEXT CHECK (tier IN ('dev', 'team', 'business')),
  billing_cycle TEXT CHECK (billing_cycle IN ('monthly', 'annual')),
  current_period_end TEXT,
  cancel_at_period_end INTEGER NOT NULL DEFAULT 0 CHECK (cancel_at_period_end IN (0, 1)),
  -- The created time (Unix seconds) of the newest event applied: an older event delivered late changes nothing.
  last_event_created INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX billing_subscriptions_user ON billing_subscriptions(user_id);

CREATE TABLE billing_events (
  event_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  created INTEGER NOT NULL,
  -- applied: state changed; stale: older than the state it would change; ignored: nothing to do.
  outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'stale', 'ignored')),
  processed_at TEXT NOT NULL
) STRICT;
`;
