import { compareTiers, type AccountTier, type PaidTier } from '@svc/core';
import { ENTITLED_STATUSES } from '../billing/billing.js';
import type { SqliteDatabase } from './database.js';
import type { BillingEventOutcome, BillingRepository, StoredSubscription } from './repositories.js';

interface SubscriptionRow {
  stripe_subscription_id: string;
  user_id: string;
  stripe_customer_id: string;
  status: string;
  tier: PaidTier | null;
  billing_cycle: 'monthly' | 'annual' | null;
  current_period_end: string | null;
  cancel_at_period_end: number;
  last_event_created: number;
  updated_at: string;
}

function toSubscription(row: SubscriptionRow): StoredSubscription {
  return {
    subscriptionId: row.stripe_subscription_id,
    userId: row.user_id,
    customerId: row.stripe_customer_id,
    status: row.status,
    tier: row.tier,
    billingCycle: row.billing_cycle,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end === 1,
    lastEventCreated: row.last_event_created,
    updatedAt: row.updated_at,
  };
}

const ENTITLED = new Set<string>(ENTITLED_STATUSES);

/** The entitled subscription of the highest tier first, then the most recently updated. */
function byRelevance(a: StoredSubscription, b: StoredSubscription): number {
  const entitled = Number(ENTITLED.has(b.status) && b.tier !== null) - Number(ENTITLED.has(a.status) && a.tier !== null);
  if (entitled !== 0) return entitled;
  const tier = compareTiers(b.tier ?? 'free', a.tier ?? 'free');
  if (tier !== 0) return tier;
  return b.updatedAt.localeCompare(a.updatedAt);
}

export class SqliteBillingRepository implements BillingRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async customerOf(userId: string): Promise<string | undefined> {
    return this.db.prepare<[string], { stripe_customer_id: string }>('SELECT stripe_customer_id FROM billing_customers WHERE user_id = ?').get(userId)
      ?.stripe_customer_id;
  }

  async linkCustomer({ userId, customerId, now }: { userId: string; customerId: string; now: Date }): Promise<string> {
    this.db
      .prepare('INSERT INTO billing_customers (user_id, stripe_customer_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
      .run(userId, customerId, now.toISOString());
    return (await this.customerOf(userId)) ?? customerId;
  }

  async userOfCustomer(customerId: string): Promise<string | undefined> {
    return this.db.prepare<[string], { user_id: string }>('SELECT user_id FROM billing_customers WHERE stripe_customer_id = ?').get(customerId)?.user_id;
  }

  async currentSubscription(userId: string): Promise<StoredSubscription | undefined> {
    return this.subscriptionsOf(userId).sort(byRelevance)[0];
  }

  async findSubscription(subscriptionId: string): Promise<StoredSubscription | undefined> {
    const row = this.db.prepare<[string], SubscriptionRow>('SELECT * FROM billing_subscriptions WHERE stripe_subscription_id = ?').get(subscriptionId);
    return row && toSubscription(row);
  }

  async isEventProcessed(eventId: string): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM billing_events WHERE event_id = ?').get(eventId) !== undefined;
  }

  async recordEvent({
    event,
    subscription,
    now,
  }: {
    event: { id: string; type: string; created: number };
    subscription?: Omit<StoredSubscription, 'lastEventCreated' | 'updatedAt'>;
    now: Date;
  }): Promise<BillingEventOutcome | 'duplicate'> {
    const apply = this.db.transaction((): BillingEventOutcome | 'duplicate' => {
      const inserted = this.db
        .prepare("INSERT INTO billing_events (event_id, type, created, outcome, processed_at) VALUES (?, ?, ?, 'ignored', ?) ON CONFLICT DO NOTHING")
        .run(event.id, event.type, event.created, now.toISOString());
      if (inserted.changes === 0) return 'duplicate';
      if (subscription === undefined) return 'ignored';

      const last = this.db
        .prepare<[string], { last_event_created: number }>('SELECT last_event_created FROM billing_subscriptions WHERE stripe_subscription_id = ?')
        .get(subscription.subscriptionId)?.last_event_created;
      // Equal seconds are applied: the state comes from a fresh read of the subscription, so it is never older.
      const outcome: BillingEventOutcome = last !== undefined && last > event.created ? 'stale' : 'applied';
      if (outcome === 'applied') {
        this.db
          .prepare(
            `INSERT INTO billing_subscriptions (stripe_subscription_id, user_id, stripe_customer_id, status, tier, billing_cycle,
               current_period_end, cancel_at_period_end, last_event_created, updated_at)
             VALUES (@subscriptionId, @userId, @customerId, @status, @tier, @billingCycle, @currentPeriodEnd, @cancel, @created, @now)
             ON CONFLICT (stripe_subscription_id) DO UPDATE SET user_id = excluded.user_id, stripe_customer_id = excluded.stripe_customer_id,
               status = excluded.status, tier = excluded.tier, billing_cycle = excluded.billing_cycle,
               current_period_end = excluded.current_period_end, cancel_at_period_end = excluded.cancel_at_period_end,
               last_event_created = excluded.last_event_created, updated_at = excluded.updated_at`,
          )
          .run({
            subscriptionId: subscription.subscriptionId,
            userId: subscription.userId,
            customerId: subscription.customerId,
            status: subscription.status,
            tier: subscription.tier,
            billingCycle: subscription.billingCycle,
            currentPeriodEnd: subscription.currentPeriodEnd,
            cancel: subscription.cancelAtPeriodEnd ? 1 : 0,
            created: event.created,
            now: now.toISOString(),
          });
        this.db.prepare('UPDATE users SET tier = ? WHERE id = ?').run(this.entitledTier(subscription.userId), subscription.userId);
      }
      this.db.prepare('UPDATE billing_events SET outcome = ? WHERE event_id = ?').run(outcome, event.id);
      return outcome;
    });
    // IMMEDIATE: the duplicate check and the write happen under one write lock, also against `svcd admin`.
    return apply.immediate();
  }

  /** The tier the user's subscriptions pay for: the highest entitled one, or free when none is. */
  private entitledTier(userId: string): AccountTier {
    let tier: AccountTier = 'free';
    for (const subscription of this.subscriptionsOf(userId)) {
      if (subscription.tier !== null && ENTITLED.has(subscription.status) && compareTiers(subscription.tier, tier) > 0) tier = subscription.tier;
    }
    return tier;
  }

  private subscriptionsOf(userId: string): StoredSubscription[] {
    return this.db.prepare<[string], SubscriptionRow>('SELECT * FROM billing_subscriptions WHERE user_id = ?').all(userId).map(toSubscription);
  }
}
