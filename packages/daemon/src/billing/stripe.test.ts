import { ServiceError } from '@svc/core';
import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CLOCK_START } from '../test/clock.js';
import { startStripeStandIn, STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, type StripeStandIn } from '../test/stripe-stand-in.js';
import { lookupKeyOf, planOfLookupKey, PLAN_LOOKUP_KEYS } from './plans.js';
import { StripeBillingProvider, stripeConnection } from './stripe.js';

let standIn: StripeStandIn;
let provider: StripeBillingProvider;
const clock = () => TEST_CLOCK_START;

beforeEach(async () => {
  standIn = await startStripeStandIn({ clock });
  provider = new StripeBillingProvider({
    secretKey: STAND_IN_SECRET_KEY,
    webhookSecret: STAND_IN_WEBHOOK_SECRET,
    returnUrl: 'https://svc.example.com/billing/return',
    apiUrl: standIn.url,
    maxNetworkRetries: 0,
  });
});
afterEach(async () => {
  await standIn.close();
});

async function serviceError(promise: Promise<unknown> | (() => unknown)): Promise<ServiceError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}

describe('plans', () => {
  it('maps every tier and cycle to a lookup key and back', () => {
    expect(PLAN_LOOKUP_KEYS).toEqual(['svc_dev_monthly', 'svc_dev_annual', 'svc_team_monthly', 'svc_team_annual', 'svc_business_monthly', 'svc_business_annual']);
    for (const key of PLAN_LOOKUP_KEYS) expect(lookupKeyOf(planOfLookupKey(key) ?? { tier: 'dev', billingCycle: 'monthly' })).toBe(key);
    expect(planOfLookupKey('svc_free_monthly')).toBeUndefined();
    expect(planOfLookupKey('pro_monthly')).toBeUndefined();
    expect(planOfLookupKey(null)).toBeUndefined();
  });

  it('turns SVC_STRIPE_API_URL into the SDK connection options', () => {
    expect(stripeConnection(undefined)).toEqual({});
    expect(stripeConnection('http://127.0.0.1:12111')).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    expect(stripeConnection('https://stripe.internal')).toEqual({ host: 'stripe.internal', port: 443, protocol: 'https' });
  });
});

describe('StripeBillingProvider against the stand-in', () => {
  it('creates one customer per user, even for racing calls, with the key and API version in the headers', async () => {
    const [first, second] = await Promise.all([
      provider.createCustomer({ userId: 'u1', email: 'ada@example.com' }),
      provider.createCustomer({ userId: 'u1', email: 'ada@example.com' }),
    ]);
    expect(first.customerId).toMatch(/^cus_/);
    expect(second.customerId).toBe(first.customerId);
    const [request] = standIn.requestsTo('POST', '/v1/customers');
    expect(request?.params).toEqual({ email: 'ada@example.com', 'metadata[svc_user_id]': 'u1' });
    expect(request?.headers['idempotency-key']).toBe('svc-customer-u1');
    expect(request?.headers['authorization']).toBe(`Bearer ${STAND_IN_SECRET_KEY}`);
    expect(request?.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(request?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });

  it('starts a subscription checkout for the price of the lookup key, offering the promotion-code field', async () => {
    const { customerId } = await provider.createCustomer({ userId: 'u1', email: 'ada@example.com' });
    const session = await provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'dev', billingCycle: 'monthly', referralCode: 'friend-42' });
    expect(session.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(session.id).toMatch(/^cs_test_/);

    const [lookup] = standIn.requestsTo('GET', '/v1/prices');
    expect(lookup?.params).toEqual({ 'lookup_keys[0]': 'svc_dev_monthly', active: 'true', limit: '1' });
    const [request] = standIn.requestsTo('POST', '/v1/checkout/sessions');
    expect(request?.params).toEqual({
      mode: 'subscription',
      customer: customerId,
      client_reference_id: 'u1',
      'line_items[0][price]': standIn.priceOf('svc_dev_monthly').id,
      'line_items[0][quantity]': '1',
      allow_promotion_codes: 'true',
      'metadata[svc_user_id]': 'u1',
      'metadata[svc_referral_code]': 'friend-42',
      'subscription_data[metadata][svc_user_id]': 'u1',
      'subscription_data[metadata][svc_referral_code]': 'friend-42',
      success_url: 'https://svc.example.com/billing/return?checkout=success&session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://svc.example.com/billing/return?checkout=cancelled',
    });

    // Price ids are cached: a second checkout of the same plan asks Stripe once more for the session only.
    await provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'dev', billingCycle: 'monthly' });
    expect(standIn.requestsTo('GET', '/v1/prices')).toHaveLength(1);
    await provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'business', billingCycle: 'annual' });
    expect(standIn.requestsTo('POST', '/v1/checkout/sessions').at(-1)?.params['line_items[0][price]']).toBe(standIn.priceOf('svc_business_annual').id);
  });

  it('applies a promotion code by its id, and refuses an unknown or inactive one', async () => {
    const promotionId = standIn.addPromotionCode('LAUNCH50');
    standIn.addPromotionCode('EXPIRED', false);
    const { customerId } = await provider.createCustomer({ userId: 'u1', email: 'ada@example.com' });
    await provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'team', billingCycle: 'annual', promoCode: 'LAUNCH50' });
    const [lookup] = standIn.requestsTo('GET', '/v1/promotion_codes');
    expect(lookup?.params).toEqual({ code: 'LAUNCH50', active: 'true', limit: '1' });
    const [request] = standIn.requestsTo('POST', '/v1/checkout/sessions');
    expect(request?.params['discounts[0][promotion_code]']).toBe(promotionId);
    expect(request?.params['allow_promotion_codes']).toBeUndefined();

    for (const code of ['NOPE', 'EXPIRED']) {
      const error = await serviceError(provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'team', billingCycle: 'annual', promoCode: code }));
      expect(error.code).toBe('INVALID_FIELD');
      expect(error.details).toEqual({ field: 'promo_code' });
    }
    expect(standIn.requestsTo('POST', '/v1/checkout/sessions')).toHaveLength(1);
  });

  it('changes the plan with proration, cancels at the period end and reactivates', async () => {
    const { customerId } = await provider.createCustomer({ userId: 'u1', email: 'ada@example.com' });
    const session = await provider.createCheckoutSession({ userId: 'u1', customerId, tier: 'dev', billingCycle: 'monthly' });
    const subscription = standIn.completeCheckout(session.id);
    const subscriptionId = String(subscription['id']);

    const read = await provider.getSubscription(subscriptionId);
    expect(read).toMatchObject({ id: subscriptionId, customerId, userId: 'u1', status: 'active', plan: { tier: 'dev', billingCycle: 'monthly' }, cancelAtPeriodEnd: false });
    expect(Date.parse(read.currentPeriodEnd ?? '')).toBe(TEST_CLOCK_START.getTime() + 30 * 86_400_000);

    const changed = await provider.changePlan({ subscriptionId, plan: { tier: 'team', billingCycle: 'monthly' } });
    expect(changed.plan).toEqual({ tier: 'team', billingCycle: 'monthly' });
    const itemId = (subscription['items'] as { data: { id: string }[] }).data[0]?.id;
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`).at(-1)?.params).toEqual({
      'items[0][id]': itemId,
      'items[0][price]': standIn.priceOf('svc_team_monthly').id,
      proration_behavior: 'create_prorations',
    });

    expect((await provider.cancelAtPeriodEnd(subscriptionId)).cancelAtPeriodEnd).toBe(true);
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`).at(-1)?.params).toEqual({ cancel_at_period_end: 'true' });
    expect((await provider.reactivate(subscriptionId)).cancelAtPeriodEnd).toBe(false);
    expect(standIn.requestsTo('POST', `/v1/subscriptions/${subscriptionId}`).at(-1)?.params).toEqual({ cancel_at_period_end: 'false' });
  });

  it('opens a portal session for the customer with the return URL', async () => {
    const { customerId } = await provider.createCustomer({ userId: 'u1', email: 'ada@example.com' });
    const portal = await provider.createPortalSession({ customerId });
    expect(portal.url).toMatch(/^https:\/\/billing\.stripe\.com\//);
    expect(standIn.requestsTo('POST', '/v1/billing_portal/sessions')[0]?.params).toEqual({ customer: customerId, return_url: 'https://svc.example.com/billing/return' });
  });

  it('lists invoices newest first, page by page', async () => {
    const { customerId } = await provider.createCustomer({ userId: 'u1', email: 'ada@example.com' });
    const made = [0, 1, 2].map((i) => standIn.addInvoice(customerId, { created: 1_800_000_000 + i, amount_due: 1000 + i }));
    standIn.addInvoice('cus_someone_else');
    const first = await provider.listInvoices({ customerId, limit: 2 });
    expect(first.hasMore).toBe(true);
    expect(first.invoices.map((invoice) => invoice.id)).toEqual([made[2]?.['id'], made[1]?.['id']]);
    expect(first.invoices[0]).toEqual({
      id: made[2]?.['id'],
      number: made[2]?.['number'],
      status: 'paid',
      amountDue: 1002,
      amountPaid: 1002,
      currency: 'usd',
      created: new Date((1_800_000_000 + 2) * 1000).toISOString(),
      hostedInvoiceUrl: made[2]?.['hosted_invoice_url'],
      invoicePdf: made[2]?.['invoice_pdf'],
    });
    const second = await provider.listInvoices({ customerId, limit: 2, startingAfter: first.invoices[1]?.id });
    expect(second).toMatchObject({ hasMore: false, invoices: [{ id: made[0]?.['id'] }] });
    expect(standIn.requestsTo('GET', '/v1/invoices')[1]?.params).toEqual({ customer: customerId, limit: '2', starting_after: made[1]?.['id'] });
  });

  it('answers SERVICE_UNAVAILABLE when Stripe fails, and passes other errors on', async () => {
    standIn.failNext('/v1/customers', 500);
    expect((await serviceError(provider.createCustomer({ userId: 'u2', email: 'b@example.com' }))).code).toBe('SERVICE_UNAVAILABLE');
    await standIn.close();
    expect((await serviceError(provider.createCustomer({ userId: 'u2', email: 'b@example.com' }))).code).toBe('SERVICE_UNAVAILABLE');
    standIn = await startStripeStandIn({ clock });
    const wrongKey = new StripeBillingProvider({ secretKey: 'sk_test_wrong', webhookSecret: 'whsec_x', returnUrl: 'http://x/', apiUrl: standIn.url, maxNetworkRetries: 0 });
    await expect(wrongKey.createCustomer({ userId: 'u2', email: 'b@example.com' })).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });
});

describe('parseWebhook', () => {
  const now = TEST_CLOCK_START;

  it('verifies the signature over the raw body and reduces the event', () => {
    const subscription = { id: 'sub_1', object: 'subscription', customer: 'cus_1', status: 'active', items: { data: [] } };
    const event = standIn.event('customer.subscription.updated', subscription, 1_800_000_000);
    const { body, signature } = standIn.signed(event);
    expect(provider.parseWebhook(new TextEncoder().encode(body), signature, now)).toEqual({
      id: event['id'],
      type: 'customer.subscription.updated',
      created: 1_800_000_000,
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      userId: undefined,
    });

    const checkout = standIn.event('checkout.session.completed', { id: 'cs_1', object: 'checkout.session', mode: 'subscription', customer: 'cus_1', subscription: 'sub_1', client_reference_id: 'u1' });
    const signedCheckout = standIn.signed(checkout);
    expect(provider.parseWebhook(new TextEncoder().encode(signedCheckout.body), signedCheckout.signature, now)).toMatchObject({ subscriptionId: 'sub_1', customerId: 'cus_1', userId: 'u1' });
  });

  it('refuses a changed body, a wrong secret, a missing header and an old timestamp with INVALID_FIELD stripe-signature', async () => {
    const event = standIn.event('customer.subscription.deleted', { id: 'sub_1', object: 'subscription', customer: 'cus_1' });
    const { body, signature } = standIn.signed(event);
    const cases: [string, string | undefined][] = [
      [body.replace('sub_1', 'sub_2'), signature],
      [body, standIn.signed(event, 'whsec_other').signature],
      [body, undefined],
      [body, 'garbage'],
      [body, standIn.signed(event, STAND_IN_WEBHOOK_SECRET, Math.floor(now.getTime() / 1000) - 3600).signature],
    ];
    for (const [raw, header] of cases) {
      const error = await serviceError(() => provider.parseWebhook(new TextEncoder().encode(raw), header, now));
      expect(error.code).toBe('INVALID_FIELD');
      expect(error.details).toEqual({ field: 'stripe-signature' });
    }
  });
});
