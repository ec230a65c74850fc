import { randomUUID } from 'node:crypto';
import { SCAN_LIMITS } from '@svc/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StripeBillingProvider } from '../billing/stripe.js';
import { call, createKey, expectError, userWithSession } from '../test/http.js';
import { seedTeam } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { startStripeStandIn, STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, type StripeStandIn } from '../test/stripe-stand-in.js';

let server: TestServer;
let standIn: StripeStandIn;

async function start(withBilling: boolean): Promise<void> {
  // Stripe's clock is the daemon's, read when Stripe needs it (the server starts below).
  standIn = await startStripeStandIn({ clock: () => server.services.clock() });
  const billing = new StripeBillingProvider({
    secretKey: STAND_IN_SECRET_KEY,
    webhookSecret: STAND_IN_WEBHOOK_SECRET,
    returnUrl: 'http://127.0.0.1:7878/billing/return',
    apiUrl: standIn.url,
    maxNetworkRetries: 0,
  });
  server = await startTestServer(() => (withBilling ? { billing } : {}));
}

afterEach(async () => {
  await server.close();
  await standIn.close();
});

const count = (table: string) => server.db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n;
const tierOf = (userId: string) => server.db.prepare<[string], { tier: string }>('SELECT tier FROM users WHERE id = ?').get(userId)?.tier;

function webhook(body: string, signature?: string): Promise<Response> {
  return fetch(`${server.url}/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
    body,
  });
}

async function deliver(event: Record<string, unknown>): Promise<string> {
  const { body, signature } = standIn.signed(event);
  const response = await webhook(body, signature);
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: { event_id: string; outcome: string } };
  expect(data.event_id).toBe(event['id']);
  return data.outcome;
}

async function checkout(token: string, body: Record<string, unknown> = { tier: 'dev', billing_cycle: 'monthly' }) {
  const response = await call(server, 'POST', '/checkout/session', token, body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { checkout_url: string; session_id: string } }).data;
}

/** A user who went through checkout and whose payment Stripe confirmed by webhook. */
async function subscribed(tier: 'dev' | 'team' | 'business' = 'dev') {
  const { user, token } = await userWithSession(server, 'free');
  const session = await checkout(token, { tier, billing_cycle: 'monthly' });
  const subscription = standIn.completeCheckout(session.session_id);
  const completed = standIn.event('checkout.session.completed', {
    id: session.session_id,
    object: 'checkout.session',
    mode: 'subscription',
    customer: subscription['customer'],
    subscription: subscription['id'],
    client_reference_id: user.id,
  });
  expect(await deliver(completed)).toBe('applied');
  return { user, token, subscriptionId: String(subscription['id']), customerId: String(subscription['customer']) };
}

async function subscriptionView(token: string) {
  const response = await call(server, 'GET', '/subscription', token);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

describe('billing without Stripe configured', () => {
  beforeEach(() => start(false));

  it('answers 501 BILLING_NOT_CONFIGURED on every billing route, before reading the body, and writes nothing', async () => {
    const { token } = await userWithSession(server, 'free');
    const routes: [string, string, unknown][] = [
      ['POST', '/checkout/session', { tier: 'dev', billing_cycle: 'monthly' }],
      ['POST', '/checkout/session', { tier: 'nope' }],
      ['POST', '/billing/portal', undefined],
      ['POST', '/billing/upgrade', { tier: 'team' }],
      ['POST', '/billing/cancel', undefined],
      ['POST', '/billing/reactivate', undefined],
      ['GET', '/billing/invoices', undefined],
    ];
    for (const [method, path, body] of routes) {
      const error = await expectError(await call(server, method, path, token, body), 501, 'BILLING_NOT_CONFIGURED');
      expect(error.message).toContain('svcd admin set-tier');
    }
    await expectError(await webhook('{}', 't=1,v1=abc'), 501, 'BILLING_NOT_CONFIGURED');
    expect(count('billing_customers')).toBe(0);
    expect(count('billing_events')).toBe(0);
    expect(standIn.requests).toHaveLength(0);
  });

  it('still answers GET /subscription from local state, with the tier an operator set', async () => {
    const { user, token } = await userWithSession(server, 'free');
    await server.services.users.setTier(user.email, 'team');
    const view = await subscriptionView(token);
    expect(view).toMatchObject({
      tier: 'team',
      plan_name: 'Team',
      effective_tier: 'team',
      paid_by: 'user',
      status: 'none',
      subscription_id: null,
      billing_cycle: null,
      current_period_end: null,
      renews_at: null,
      cancel_at_period_end: false,
      billing_configured: false,
    });
    expect(view['entitlements']).toEqual({
      api_keys: true,
      max_active_api_keys: 10,
      create_team: true,
      private_scans: true,
      deep_scans: true,
      scans: { burst_per_minute: 20, public: { day: 500, week: 1000, month: 2000 }, deep: { month: 60 }, private: { month: 700 }, private_deep: { month: 40 } },
    });
  });
});

describe('billing with Stripe', () => {
  beforeEach(() => start(true));

  it('validates the checkout body of spec 2.7, naming the field, before calling Stripe', async () => {
    const { token } = await userWithSession(server, 'free');
    const cases: [unknown, string][] = [
      [{ billing_cycle: 'monthly' }, 'tier'],
      [{ tier: 'free', billing_cycle: 'monthly' }, 'tier'],
      [{ tier: 'enterprise', billing_cycle: 'monthly' }, 'tier'],
      [{ tier: 'DEV', billing_cycle: 'monthly' }, 'tier'],
      [{ tier: 'dev' }, 'billing_cycle'],
      [{ tier: 'dev', billing_cycle: 'weekly' }, 'billing_cycle'],
      [{ tier: 'dev', billing_cycle: 'monthly', promo_code: '' }, 'promo_code'],
      [{ tier: 'dev', billing_cycle: 'monthly', promo_code: 'has space' }, 'promo_code'],
      [{ tier: 'dev', billing_cycle: 'monthly', promo_code: 'x'.repeat(65) }, 'promo_code'],
      [{ tier: 'dev', billing_cycle: 'monthly', promo_code: 42 }, 'promo_code'],
      [{ tier: 'dev', billing_cycle: 'monthly', referral_code: 'a/b' }, 'referral_code'],
      [{ tier: 'dev', billing_cycle: 'monthly', price: 'price_123' }, 'price'],
      [[], '(body)'],
    ];
    for (const [body, field] of cases) {
      const error = await expectError(await call(server, 'POST', '/checkout/session', token, body), 400, 'INVALID_FIELD');
      expect(error.details?.['field'], JSON.stringify(body)).toBe(field);
    }
    const notJson = await fetch(`${server.url}/checkout/session`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{tier' });
    expect((await expectError(notJson, 400, 'INVALID_FIELD')).details).toEqual({ field: '(body)' });
    // An unknown promotion code is only known to Stripe: refused after the lookup, before a session exists.
    const unknown = await expectError(await call(server, 'POST', '/checkout/session', token, { tier: 'dev', billing_cycle: 'monthly', promo_code: 'NOPE' }), 400, 'INVALID_FIELD');
    expect(unknown.details).toEqual({ field: 'promo_code' });
    expect(standIn.requestsTo('POST', '/v1/checkout/sessions')).toHaveLength(0);
  });

  it('refuses API keys and missing credentials', async () => {
    const { token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    for (const [method, path] of [['POST', '/checkout/session'], ['POST', '/billing/portal'], ['GET', '/billing/invoices'], ['GET', '/subscription']] as const) {
      const error = await expectError(await call(server, method, path, key, method === 'POST' ? { tier: 'dev', billing_cycle: 'monthly' } : undefined), 401, 'UNAUTHORIZED');
      expect(error.details).toEqual({ credential: 'session' });
      await expectError(await call(server, method, path), 401, 'UNAUTHORIZED');
    }
    expect(standIn.requests).toHaveLength(0);
  });

  it('creates the Stripe customer once per user and does not change the tier at checkout', async () => {
    const { user, token } = await userWithSession(server, 'free');
    const first = await checkout(token, { tier: 'team', billing_cycle: 'annual', referral_code: 'friend-1' });
    expect(first.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const second = await checkout(token);
    expect(second.session_id).not.toBe(first.session_id);
    expect(standIn.requestsTo('POST', '/v1/customers')).toHaveLength(1);
    const sessions = standIn.requestsTo('POST', '/v1/checkout/sessions');
    expect(sessions.map((request) => request.params['customer'])).toEqual([sessions[0]?.params['customer'], sessions[0]?.params['customer']]);
    expect(sessions[0]?.params).toMatchObject({ client_reference_id: user.id, 'metadata[svc_referral_code]': 'friend-1', 'line_items[0][price]': standIn.priceOf('svc_team_annual').id });
    expect(count('billing_customers')).toBe(1);
    expect(tierOf(user.id)).toBe('free');
  });

  it('upgrades the tier only through a signed webhook: API keys and dev quotas follow', async () => {
    const { user, token } = await userWithSession(server, 'free');
    await expectError(await call(server, 'POST', '/keys', token, { label: 'ci' }), 402, 'SUBSCRIPTION_REQUIRED');
    const session = await checkout(token);
    const subscription = standIn.completeCheckout(session.session_id);
    expect(tierOf(user.id)).toBe('free');

    const created = standIn.event('customer.subscription.created', subscription);
    expect(await deliver(created)).toBe('applied');
    expect(tierOf(user.id)).toBe('dev');
    const completed = standIn.event('checkout.session.completed', {
      id: session.session_id,
      object: 'checkout.session',
      mode: 'subscription',
      customer: subscription['customer'],
      subscription: subscription['id'],
      client_reference_id: user.id,
    });
    expect(await deliver(completed)).toBe('applied');

    expect((await call(server, 'POST', '/keys', token, { label: 'ci' })).status).toBe(201);
    const view = await subscriptionView(token);
    expect(view).toMatchObject({ tier: 'dev', plan_name: 'Developer', status: 'active', subscription_id: subscription['id'], billing_cycle: 'monthly', cancel_at_period_end: false, billing_configured: true });
    expect(view['renews_at']).toBe(view['current_period_end']);
    expect(Date.parse(String(view['renews_at']))).toBe(server.services.clock().getTime() + 30 * 86_400_000);
    expect(view['entitlements']).toMatchObject({ api_keys: true, scans: { burst_per_minute: SCAN_LIMITS.dev.burstPerMinute, public: { month: 200 }, private: { month: 70 } } });
  });

  it('handles a replayed event id once: 200 duplicate, nothing changes', async () => {
    const { user, subscriptionId } = await subscribed('dev');
    standIn.updateSubscription(subscriptionId, { status: 'canceled' });
    const deleted = standIn.event('customer.subscription.deleted', standIn.subscription(subscriptionId));
    const { body, signature } = standIn.signed(deleted);
    expect((await webhook(body, signature)).status).toBe(200);
    expect(tierOf(user.id)).toBe('free');
    const events = count('billing_events');

    // Stripe's state moves on; a replay of the old delivery must not act on it.
    standIn.updateSubscription(subscriptionId, { status: 'active' });
    const fetches = standIn.requestsTo('GET', `/v1/subscriptions/${subscriptionId}`).length;
    const replay = await webhook(body, signature);
    expect(((await replay.json()) as { data: { outcome: string } }).data.outcome).toBe('duplicate');
    expect(tierOf(user.id)).toBe('free');
    expect(count('billing_events')).toBe(events);
    expect(standIn.requestsTo('GET', `/v1/subscriptions/${subscriptionId}`)).toHaveLength(fetches);
  });

  it('keeps the newer state when an older event arrives after a newer one', async () => {
    const { user, subscriptionId } = await subscribed('dev');
    const base = Math.floor(server.services.clock().getTime() / 1000) + 100;
    const older = standIn.event('customer.subscription.updated', standIn.subscription(subscriptionId), base);
    standIn.updateSubscription(subscriptionId, { lookupKey: 'svc_team_monthly' });
    const newer = standIn.event('customer.subscription.updated', standIn.subscription(subscriptionId), base + 10);

    expect(await deliver(newer)).toBe('applied');
    expect(tierOf(user.id)).toBe('team');
    const fetches = standIn.requestsTo('GET', `/v1/subscriptions/${subscriptionId}`).length;
    expect(await deliver(older)).toBe('stale');
    expect(tierOf(user.id)).toBe('team');
    expect((await subscriptionView((await server.services.sessions.issue(user)).token))['tier']).toBe('team');
    // A stale event is settled from the stored state, without asking Stripe.
    expect(standIn.requestsTo('GET', `/v1/subscriptions/${subscriptionId}`)).toHaveLength(fetches);
    expect(server.db.prepare<[string], { outcome: string }>('SELECT outcome FROM billing_events WHERE event_id = ?').get(String(older['id']))?.outcome).toBe('stale');
  });

  it('refuses a bad signature with 400 INVALID_FIELD stripe-signature and writes nothing', async () => {
    const { user, subscriptionId } = await subscribed('dev');
    standIn.updateSubscription(subscriptionId, { status: 'canceled' });
    const event = standIn.event('customer.subscription.deleted', standIn.subscription(subscriptionId));
    const { body, signature } = standIn.signed(event);
    const events = count('billing_events');
    const tampered = [
      [body.replace('"canceled"', '"active"'), signature],
      [body, standIn.signed(event, 'whsec_attacker').signature],
      [body, undefined],
    ] as const;
    for (const [raw, header] of tampered) {
      const error = await expectError(await webhook(raw, header), 400, 'INVALID_FIELD');
      expect(error.details).toEqual({ field: 'stripe-signature' });
    }
    // Parsed-and-re-serialised JSON is not the signed body either.
    const reformatted = await webhook(JSON.stringify(JSON.parse(body)), signature);
    await expectError(reformatted, 400, 'INVALID_FIELD');
    expect(count('billing_events')).toBe(events);
    expect(tierOf(user.id)).toBe('dev');
  });

  it('returns the user to free when the subscription is deleted, and records payment failures without a tier change', async () => {
    const { user, token, subscriptionId } = await subscribed('business');
    expect(tierOf(user.id)).toBe('business');
    const failed = standIn.event('invoice.payment_failed', { id: 'in_1', object: 'invoice', customer: 'cus_x', parent: { subscription_details: { subscription: subscriptionId } } });
    expect(await deliver(failed)).toBe('ignored');
    standIn.updateSubscription(subscriptionId, { status: 'past_due' });
    expect(await deliver(standIn.event('customer.subscription.updated', standIn.subscription(subscriptionId)))).toBe('applied');
    expect(tierOf(user.id)).toBe('business');

    standIn.updateSubscription(subscriptionId, { status: 'canceled' });
    expect(await deliver(standIn.event('customer.subscription.deleted', standIn.subscription(subscriptionId)))).toBe('applied');
    expect(tierOf(user.id)).toBe('free');
    await expectError(await call(server, 'POST', '/keys', token, { label: 'ci' }), 402, 'SUBSCRIPTION_REQUIRED');
    expect(await subscriptionView(token)).toMatchObject({ tier: 'free', status: 'canceled', renews_at: null });
    expect(await deliver(standIn.event('customer.created', { id: 'cus_1', object: 'customer' }))).toBe('ignored');
  });

  it("gives team members their owner's paid tier", async () => {
    const { user: owner } = await subscribed('team');
    const { user: member, token } = await userWithSession(server, 'free');
    const teamId = randomUUID();
    seedTeam(server.db, { id: teamId, name: 'acme', ownerId: owner.id, memberIds: [member.id], now: server.services.clock() });
    expect(await subscriptionView(token)).toMatchObject({ tier: 'free', effective_tier: 'team', paid_by: 'org', entitlements: { create_team: true } });
  });

  it('upgrades with proration, but the tier waits for the webhook', async () => {
    const { token: stranger } = await userWithSession(server, 'free');
    await expectError(await call(server, 'POST', '/billing/upgrade', stranger, { tier: 'team' }), 409, 'CONFLICT');
    const { user, token, subscriptionId } = await subscribed('dev');
    await expectError(await call(server, 'POST', '/billing/upgrade', token, { tier: 'dev' }), 409, 'CONFLICT');
    for (const [body, field] of [[{ tier: 'free' }, 'tier'], [{ tier: 'team', billing_cycle: 'daily' }, 'billing_cycle'], [{ tier: 'team', seats: 3 }, 'seats']] as const) {
      const error = await expectError(await call(server, 'POST', '/billing/upgrade', token, body), 400, 'INVALID_FIELD');
      expect(error.details?.['field']).toBe(field);
    }
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`)).toHaveLength(0);

    const response = await call(server, 'POST', '/billing/upgrade', token, { tier: 'team' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({ subscription_id: subscriptionId, status: 'active', tier: 'team', billing_cycle: 'monthly', cancel_at_period_end: false });
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`)[0]?.params).toMatchObject({
      'items[0][price]': standIn.priceOf('svc_team_monthly').id,
      proration_behavior: 'create_prorations',
    });
    expect(tierOf(user.id)).toBe('dev');
    expect(await deliver(standIn.event('customer.subscription.updated', standIn.subscription(subscriptionId)))).toBe('applied');
    expect(tierOf(user.id)).toBe('team');
  });

  it('cancels at the period end and reactivates', async () => {
    const { token: stranger } = await userWithSession(server, 'free');
    await expectError(await call(server, 'POST', '/billing/cancel', stranger), 409, 'CONFLICT');
    await expectError(await call(server, 'POST', '/billing/reactivate', stranger), 409, 'CONFLICT');
    const { user, token, subscriptionId } = await subscribed('dev');

    const cancelled = await call(server, 'POST', '/billing/cancel', token);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { data: { cancel_at_period_end: boolean } }).data.cancel_at_period_end).toBe(true);
    expect(await deliver(standIn.event('customer.subscription.updated', standIn.subscription(subscriptionId)))).toBe('applied');
    const pending = await subscriptionView(token);
    expect(pending).toMatchObject({ tier: 'dev', cancel_at_period_end: true, renews_at: null });
    expect(pending['current_period_end']).toEqual(expect.any(String));
    expect(tierOf(user.id)).toBe('dev');

    const reactivated = await call(server, 'POST', '/billing/reactivate', token);
    expect(((await reactivated.json()) as { data: { cancel_at_period_end: boolean } }).data.cancel_at_period_end).toBe(false);
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`).map((request) => request.params['cancel_at_period_end'])).toEqual(['true', 'false']);
  });

  it('refuses a second checkout while subscribed, opens the portal and lists invoices', async () => {
    const { token: stranger } = await userWithSession(server, 'free');
    await expectError(await call(server, 'POST', '/billing/portal', stranger), 409, 'CONFLICT');
    const none = await call(server, 'GET', '/billing/invoices', stranger);
    expect(((await none.json()) as { data: unknown }).data).toEqual({ invoices: [], has_more: false });

    const { token, customerId } = await subscribed('dev');
    await expectError(await call(server, 'POST', '/checkout/session', token, { tier: 'team', billing_cycle: 'monthly' }), 409, 'CONFLICT');

    const portal = await call(server, 'POST', '/billing/portal', token);
    expect(portal.status).toBe(200);
    expect(((await portal.json()) as { data: { portal_url: string } }).data.portal_url).toMatch(/^https:\/\/billing\.stripe\.com\//);

    const invoices = [1, 2, 3].map((i) => standIn.addInvoice(customerId, { created: 1_800_000_000 + i }));
    const page = await call(server, 'GET', '/billing/invoices?limit=2', token);
    const body = (await page.json()) as { data: { invoices: Record<string, unknown>[]; has_more: boolean } };
    expect(body.data.has_more).toBe(true);
    expect(body.data.invoices[0]).toEqual({
      id: invoices[2]?.['id'],
      number: invoices[2]?.['number'],
      status: 'paid',
      amount_due: 1900,
      amount_paid: 1900,
      currency: 'usd',
      created: new Date((1_800_000_000 + 3) * 1000).toISOString(),
      hosted_invoice_url: invoices[2]?.['hosted_invoice_url'],
      invoice_pdf: invoices[2]?.['invoice_pdf'],
    });
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'starting_after=evil']) {
      await expectError(await call(server, 'GET', `/billing/invoices?${query}`, token), 400, 'INVALID_FIELD');
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when Stripe fails, and a webhook then is not recorded (Stripe retries it)', async () => {
    const { user, subscriptionId } = await subscribed('dev');
    const { token } = await userWithSession(server, 'free');
    standIn.failNext('/v1/customers', 503);
    await expectError(await call(server, 'POST', '/checkout/session', token, { tier: 'dev', billing_cycle: 'monthly' }), 503, 'SERVICE_UNAVAILABLE');

    standIn.updateSubscription(subscriptionId, { status: 'canceled' });
    const event = standIn.event('customer.subscription.deleted', standIn.subscription(subscriptionId));
    const { body, signature } = standIn.signed(event);
    standIn.failNext(`/v1/subscriptions/${subscriptionId}`, 500);
    await expectError(await webhook(body, signature), 503, 'SERVICE_UNAVAILABLE');
    expect(tierOf(user.id)).toBe('dev');
    expect((await webhook(body, signature)).status).toBe(200);
    expect(tierOf(user.id)).toBe('free');
  });

  it('serves the return page', async () => {
    const response = await fetch(`${server.url}/billing/return?checkout=success`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('svc billing status');
  });
});
