import {
  canCreateTeam,
  canMintApiKeys,
  DEFAULT_ERROR_MESSAGES,
  effectiveTier,
  hasPrivateScanBudget,
  invalidField,
  MAX_ACTIVE_KEYS,
  PAID_TIERS,
  SCAN_LIMITS,
  ServiceError,
  successEnvelope,
  TIER_DISPLAY_NAMES,
  type AccountTier,
  type Tier,
} from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ENTITLED_STATUSES, type BillingProvider, type SubscriptionState } from '../billing/billing.js';
import { BILLING_CYCLES, PLAN_LOOKUP_KEYS, type BillingCycle } from '../billing/plans.js';
import type { AppEnv } from '../env.js';
import { requireSession } from '../middleware/session.js';
import { createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';
import type { StoredSubscription } from '../store/repositories.js';

// Spec 4.2 with the gaps of 4.7 (1, 3) filled; docs/daemon.md "Billing" is the user-facing copy. The webhook is the
// only writer of a user's tier after payment: these routes ask Stripe for changes, Stripe confirms by webhook.

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const;
const PROVIDER_ERRORS = ['BILLING_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'] as const;
const ENTITLED = new Set<string>(ENTITLED_STATUSES);

/** The configured provider; without SVC_STRIPE_SECRET_KEY every billing route is 501 before its body is read. */
const requireBilling = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('services').billing === undefined) {
    throw new ServiceError(
      'BILLING_NOT_CONFIGURED',
      'Billing is not configured on this server (SVC_STRIPE_SECRET_KEY is unset); an operator sets plans with `svcd admin set-tier`.',
    );
  }
  await next();
});

function provider(c: Context<AppEnv>): BillingProvider {
  const billing = c.get('services').billing;
  if (billing === undefined) throw new ServiceError('BILLING_NOT_CONFIGURED');
  return billing;
}

/** Spec 2.7 bodies are strict: an unknown field is named like any other invalid one, not silently dropped. */
const strictBody = (result: { success: true } | { success: false; error: z.ZodError }): undefined => {
  if (result.success) return;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') throw invalidField(String(issue.keys[0]), `Unknown field "${String(issue.keys[0])}".`);
  const field = issue === undefined || issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.');
  throw invalidField(field, issue?.message ?? DEFAULT_ERROR_MESSAGES.INVALID_FIELD);
};

// Promotion and referral codes are what people type; a tight alphabet keeps odd bytes away from Stripe and logs.
const code = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: `${field} must be 1 to 64 letters, digits, "-" or "_"` });
const tierField = z.enum(PAID_TIERS, { error: `tier must be one of ${PAID_TIERS.join(', ')}` });
const cycleField = z.enum(BILLING_CYCLES, { error: `billing_cycle must be one of ${BILLING_CYCLES.join(', ')}` });

const checkoutBody = z.strictObject({
  tier: tierField,
  billing_cycle: cycleField,
  promo_code: code('promo_code').optional(),
  referral_code: code('referral_code').optional(),
});

const upgradeBody = z.strictObject({
  tier: tierField,
  billing_cycle: cycleField.optional().openapi({ description: "Default: the current subscription's cycle" }),
});

const subscriptionRecord = z
  .object({
    subscription_id: z.string(),
    status: z.string().openapi({ description: "Stripe's status: active, trialing, past_due, canceled, unpaid, incomplete, …" }),
    tier: z.enum(PAID_TIERS).nullable(),
    billing_cycle: z.enum(BILLING_CYCLES).nullable(),
    current_period_end: z.string().nullable(),
    cancel_at_period_end: z.boolean(),
  })
  .openapi('BillingSubscription');

function record(state: SubscriptionState): z.infer<typeof subscriptionRecord> {
  return {
    subscription_id: state.id,
    status: state.status,
    tier: state.plan?.tier ?? null,
    billing_cycle: state.plan?.billingCycle ?? null,
    current_period_end: state.currentPeriodEnd,
    cancel_at_period_end: state.cancelAtPeriodEnd,
  };
}

const windowCaps = z.object({ day: z.number().optional(), week: z.number().optional(), month: z.number().optional() });
const entitlements = z
  .object({
    api_keys: z.boolean(),
    max_active_api_keys: z.number(),
    create_team: z.boolean(),
    private_scans: z.boolean(),
    deep_scans: z.boolean(),
    scans: z.object({
      burst_per_minute: z.number(),
      public: windowCaps,
      deep: windowCaps.nullable(),
      private: windowCaps.nullable(),
      private_deep: windowCaps.nullable(),
    }),
  })
  .openapi('Entitlements');

/** What a tier gives, from the same tables the quota and key checks use, so this never disagrees with them. */
export function entitlementsOf(tier: Tier): z.infer<typeof entitlements> {
  const limits = SCAN_LIMITS[tier];
  return {
    api_keys: canMintApiKeys(tier),
    max_active_api_keys: canMintApiKeys(tier) ? MAX_ACTIVE_KEYS : 0,
    create_team: canCreateTeam(tier),
    private_scans: hasPrivateScanBudget(tier),
    deep_scans: limits.deep !== null,
    scans: {
      burst_per_minute: limits.burstPerMinute,
      public: limits.scans,
      deep: limits.deep,
      private: limits.private?.scans ?? null,
      private_deep: limits.private?.deep ?? null,
    },
  };
}

const subscriptionView = z
  .object({
    tier: z.enum(['free', ...PAID_TIERS]).openapi({ description: "The account's own plan" }),
    plan_name: z.string(),
    effective_tier: z.string().openapi({ description: "The plan whose quotas apply: the team's when it ranks at least as high" }),
    paid_by: z.enum(['user', 'org']),
    status: z.string().openapi({ description: '`none` without a Stripe subscription (free, or a tier set by an operator)' }),
    subscription_id: z.string().nullable(),
    billing_cycle: z.enum(BILLING_CYCLES).nullable(),
    current_period_end: z.string().nullable(),
    renews_at: z.string().nullable().openapi({ description: 'The renewal date; null when the subscription ends at current_period_end or there is none' }),
    cancel_at_period_end: z.boolean(),
    billing_configured: z.boolean(),
    entitlements,
  })
  .openapi('Subscription');

const invoice = z
  .object({
    id: z.string(),
    number: z.string().nullable(),
    status: z.string().nullable().openapi({ description: 'draft, open, paid, uncollectible or void' }),
    amount_due: z.number().openapi({ description: "In the currency's smallest unit (cents)" }),
    amount_paid: z.number(),
    currency: z.string(),
    created: z.string(),
    hosted_invoice_url: z.string().nullable(),
    invoice_pdf: z.string().nullable(),
  })
  .openapi('Invoice');

const checkout = createRoute({
  method: 'post',
  path: '/checkout/session',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'Start a hosted checkout for a paid plan',
  description: `Spec 2.7. Returns the Stripe Checkout URL; the plan starts when Stripe confirms the payment by webhook, not when this answers. A promo_code must be an active Stripe promotion code (else 400 INVALID_FIELD promo_code); without one the page offers a code field. referral_code is kept in the subscription's metadata (svc_referral_code). An account that already has an active subscription gets 409 CONFLICT (use /billing/upgrade or the portal). Stripe prices: lookup keys ${PLAN_LOOKUP_KEYS.join(', ')}.`,
  request: { body: { required: true, ...jsonContent(checkoutBody, 'The plan to buy') } },
  responses: {
    200: jsonContent(envelope(z.object({ checkout_url: z.string(), session_id: z.string() })), 'Open checkout_url in a browser'),
    ...errorResponses('UNAUTHORIZED', 'CONFLICT', ...BODY_ERRORS, ...PROVIDER_ERRORS),
  },
});

const portal = createRoute({
  method: 'post',
  path: '/billing/portal',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'Open a hosted customer-portal session',
  description: 'Payment method, invoices, cancel and plan change on Stripe. portal_url is single-use and short-lived. 409 CONFLICT before the first checkout (no Stripe customer yet).',
  responses: {
    200: jsonContent(envelope(z.object({ portal_url: z.string() })), 'Open portal_url in a browser'),
    ...errorResponses('UNAUTHORIZED', 'CONFLICT', ...PROVIDER_ERRORS),
  },
});

const upgrade = createRoute({
  method: 'post',
  path: '/billing/upgrade',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'Switch plan now, with proration',
  description:
    "Changes the subscription's price at once and prorates the rest of the period (also to a lower tier). The account's tier changes when Stripe's webhook confirms the change. 409 CONFLICT without an active subscription (use /checkout/session) or when the plan is already the current one.",
  request: { body: { required: true, ...jsonContent(upgradeBody, 'The new plan') } },
  responses: {
    200: jsonContent(envelope(subscriptionRecord), 'The subscription as Stripe now holds it'),
    ...errorResponses('UNAUTHORIZED', 'CONFLICT', ...BODY_ERRORS, ...PROVIDER_ERRORS),
  },
});

const cancel = createRoute({
  method: 'post',
  path: '/billing/cancel',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'Cancel at the end of the period',
  description: 'No body. The plan stays until current_period_end, then the account returns to free. Repeating it is harmless. 409 CONFLICT without an active subscription.',
  responses: {
    200: jsonContent(envelope(subscriptionRecord), 'cancel_at_period_end is true'),
    ...errorResponses('UNAUTHORIZED', 'CONFLICT', ...PROVIDER_ERRORS),
  },
});

const reactivate = createRoute({
  method: 'post',
  path: '/billing/reactivate',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'Undo a pending cancellation',
  description: 'No body. Only before the period ends; a subscription that has ended needs a new checkout (409 CONFLICT).',
  responses: {
    200: jsonContent(envelope(subscriptionRecord), 'cancel_at_period_end is false'),
    ...errorResponses('UNAUTHORIZED', 'CONFLICT', ...PROVIDER_ERRORS),
  },
});

const invoices = createRoute({
  method: 'get',
  path: '/billing/invoices',
  security: SESSION_SECURITY,
  middleware: [requireSession, requireBilling] as const,
  summary: 'List past invoices',
  description: 'Newest first. Page with `starting_after` = the last id of the previous page while has_more is true.',
  request: {
    query: z.object({
      limit: z.coerce.number({ error: 'limit must be a number' }).int({ error: 'limit must be a whole number' }).min(1, { error: 'limit must be 1 to 100' }).max(100, { error: 'limit must be 1 to 100' }).optional().openapi({ description: 'Default 10' }),
      starting_after: z.string().regex(/^in_[A-Za-z0-9]+$/, { error: 'starting_after must be an invoice id (in_…)' }).optional(),
    }),
  },
  responses: {
    200: jsonContent(envelope(z.object({ invoices: z.array(invoice), has_more: z.boolean() })), 'The invoices'),
    ...errorResponses('UNAUTHORIZED', 'INVALID_FIELD', ...PROVIDER_ERRORS),
  },
});

const subscription = createRoute({
  method: 'get',
  path: '/subscription',
  summary: 'Current plan, renewal date and entitlements',
  description: 'Answered from the state the webhooks stored, so it also works without Stripe configured (a tier set with `svcd admin set-tier` shows status `none`).',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  responses: {
    200: jsonContent(envelope(subscriptionView), 'The subscription'),
    ...errorResponses('UNAUTHORIZED', 'INTERNAL_ERROR'),
  },
});

const webhook = createRoute({
  method: 'post',
  path: '/webhooks/stripe',
  summary: 'Stripe webhook endpoint',
  description:
    'Called by Stripe, not by clients: the body is read raw and verified against the Stripe-Signature header (SVC_STRIPE_WEBHOOK_SECRET) before it is parsed. A bad or missing signature is 400 INVALID_FIELD (field stripe-signature) and writes nothing. Each event id is handled once: a replay answers 200 with outcome `duplicate`. Handled: checkout.session.completed, customer.subscription.created/updated/deleted (the subscription is re-read from Stripe; an event older than the last applied one is `stale`), invoice.payment_failed (recorded; the tier stays until Stripe changes the subscription status). Others are `ignored`.',
  responses: {
    200: jsonContent(envelope(z.object({ event_id: z.string(), outcome: z.enum(['applied', 'stale', 'ignored', 'duplicate']) })), 'Handled (or already handled)'),
    ...errorResponses('INVALID_FIELD', 'PAYLOAD_TOO_LARGE', ...PROVIDER_ERRORS),
  },
});

const returnPage = createRoute({
  method: 'get',
  path: '/billing/return',
  summary: 'Where Stripe sends the browser back to',
  description: 'The default SVC_STRIPE_RETURN_URL: a page that says the tab can be closed.',
  responses: { 200: { content: { 'text/html': { schema: z.string() } }, description: 'A short HTML page' } },
});

/** The subscription a change applies to: an entitled one, or 409 naming what to do instead. */
async function activeSubscription(c: Context<AppEnv>, hint: string): Promise<StoredSubscription> {
  const current = await c.get('services').billingRecords.currentSubscription(c.get('session').userId);
  if (current === undefined || !ENTITLED.has(current.status)) throw new ServiceError('CONFLICT', `There is no active subscription; ${hint}`);
  return current;
}

export const billingRoutes = createRouter()
  .openapi(
    checkout,
    async (c) => {
      const body = c.req.valid('json');
      const billing = provider(c);
      const { billingRecords, clock } = c.get('services');
      const user = c.get('user');
      const current = await billingRecords.currentSubscription(user.id);
      if (current !== undefined && ENTITLED.has(current.status)) {
        throw new ServiceError('CONFLICT', `This account already has a ${current.tier ?? 'paid'} subscription; change it with POST /billing/upgrade or the portal.`);
      }
      let customerId = await billingRecords.customerOf(user.id);
      if (customerId === undefined) {
        const created = await billing.createCustomer({ userId: user.id, email: user.email });
        customerId = await billingRecords.linkCustomer({ userId: user.id, customerId: created.customerId, now: clock() });
      }
      const session = await billing.createCheckoutSession({
        userId: user.id,
        customerId,
        tier: body.tier,
        billingCycle: body.billing_cycle,
        promoCode: body.promo_code,
        referralCode: body.referral_code,
      });
      return c.json(successEnvelope({ checkout_url: session.url, session_id: session.id }), 200);
    },
    strictBody,
  )
  .openapi(portal, async (c) => {
    const customerId = await c.get('services').billingRecords.customerOf(c.get('session').userId);
    if (customerId === undefined) throw new ServiceError('CONFLICT', 'There is no billing account yet; start one with POST /checkout/session.');
    const session = await provider(c).createPortalSession({ customerId });
    return c.json(successEnvelope({ portal_url: session.url }), 200);
  })
  .openapi(
    upgrade,
    async (c) => {
      const body = c.req.valid('json');
      const current = await activeSubscription(c, 'start one with POST /checkout/session.');
      const billingCycle: BillingCycle = body.billing_cycle ?? current.billingCycle ?? 'monthly';
      if (current.tier === body.tier && current.billingCycle === billingCycle) {
        throw new ServiceError('CONFLICT', `The subscription is already on the ${body.tier} ${billingCycle} plan.`);
      }
      const state = await provider(c).changePlan({ subscriptionId: current.subscriptionId, plan: { tier: body.tier, billingCycle } });
      return c.json(successEnvelope(record(state)), 200);
    },
    strictBody,
  )
  .openapi(cancel, async (c) => {
    const current = await activeSubscription(c, 'nothing to cancel.');
    return c.json(successEnvelope(record(await provider(c).cancelAtPeriodEnd(current.subscriptionId))), 200);
  })
  .openapi(reactivate, async (c) => {
    const current = await activeSubscription(c, 'a subscription that has ended needs a new checkout (POST /checkout/session).');
    return c.json(successEnvelope(record(await provider(c).reactivate(current.subscriptionId))), 200);
  })
  .openapi(invoices, async (c) => {
    const { limit = 10, starting_after: startingAfter } = c.req.valid('query');
    const customerId = await c.get('services').billingRecords.customerOf(c.get('session').userId);
    if (customerId === undefined) return c.json(successEnvelope({ invoices: [], has_more: false }), 200);
    const page = await provider(c).listInvoices({ customerId, limit, startingAfter });
    return c.json(
      successEnvelope({
        invoices: page.invoices.map((item) => ({
          id: item.id,
          number: item.number,
          status: item.status,
          amount_due: item.amountDue,
          amount_paid: item.amountPaid,
          currency: item.currency,
          created: item.created,
          hosted_invoice_url: item.hostedInvoiceUrl,
          invoice_pdf: item.invoicePdf,
        })),
        has_more: page.hasMore,
      }),
      200,
    );
  })
  .openapi(subscription, async (c) => {
    const { billingRecords, teams, billing } = c.get('services');
    const user = c.get('user');
    const current = await billingRecords.currentSubscription(user.id);
    const membership = await teams.membershipOf(user.id);
    const effective = effectiveTier(user.tier, membership?.teamTier);
    const ending = current?.cancelAtPeriodEnd === true || current === undefined || !ENTITLED.has(current.status);
    return c.json(
      successEnvelope({
        tier: user.tier satisfies AccountTier,
        plan_name: TIER_DISPLAY_NAMES[user.tier],
        effective_tier: effective.tier,
        paid_by: effective.paidBy,
        status: current?.status ?? 'none',
        subscription_id: current?.subscriptionId ?? null,
        billing_cycle: current?.billingCycle ?? null,
        current_period_end: current?.currentPeriodEnd ?? null,
        renews_at: ending ? null : (current.currentPeriodEnd ?? null),
        cancel_at_period_end: current?.cancelAtPeriodEnd ?? false,
        billing_configured: billing !== undefined,
        entitlements: entitlementsOf(effective.tier),
      }),
      200,
    );
  })
  .openapi(webhook, async (c) => {
    const billing = provider(c);
    const { billingRecords, users, clock, logger } = c.get('services');
    // The exact bytes Stripe signed: nothing may parse (and re-serialise) the body before verification.
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const event = billing.parseWebhook(raw, c.req.header('stripe-signature'), clock());
    const reply = (outcome: 'applied' | 'stale' | 'ignored' | 'duplicate') => {
      logger.info('stripe webhook', { request_id: c.get('requestId'), event_id: event.id, type: event.type, outcome });
      return c.json(successEnvelope({ event_id: event.id, outcome }), 200);
    };
    if (await billingRecords.isEventProcessed(event.id)) return reply('duplicate');

    const changesSubscription = event.type === 'checkout.session.completed' || event.type.startsWith('customer.subscription.');
    if (!changesSubscription || event.subscriptionId === undefined) {
      return reply(await billingRecords.recordEvent({ event, now: clock() }));
    }
    const stored = await billingRecords.findSubscription(event.subscriptionId);
    if (stored !== undefined && stored.lastEventCreated > event.created) {
      // Older than what is applied: recorded as handled (stale) without asking Stripe.
      return reply(await billingRecords.recordEvent({ event, subscription: stored, now: clock() }));
    }
    // The event's copy may be older than a later event already delivered; Stripe's current state never is.
    const state = await billing.getSubscription(event.subscriptionId);
    const userId =
      (await billingRecords.userOfCustomer(state.customerId)) ?? state.userId ?? (event.type === 'checkout.session.completed' ? event.userId : undefined);
    if (userId === undefined || (await users.findById(userId)) === undefined) {
      logger.error('stripe webhook for an unknown customer', { event_id: event.id, type: event.type, customer: state.customerId });
      return reply(await billingRecords.recordEvent({ event, now: clock() }));
    }
    await billingRecords.linkCustomer({ userId, customerId: state.customerId, now: clock() });
    return reply(
      await billingRecords.recordEvent({
        event,
        subscription: {
          subscriptionId: state.id,
          userId,
          customerId: state.customerId,
          status: state.status,
          tier: state.plan?.tier ?? null,
          billingCycle: state.plan?.billingCycle ?? null,
          currentPeriodEnd: state.currentPeriodEnd,
          cancelAtPeriodEnd: state.cancelAtPeriodEnd,
        },
        now: clock(),
      }),
    );
  })
  .openapi(returnPage, (c) =>
    c.html(
      '<!doctype html><meta charset="utf-8"><title>svc billing</title><p>Done. Your plan changes as soon as Stripe confirms it; check with <code>svc billing status</code>. You can close this tab.</p>',
      200,
    ),
  );
