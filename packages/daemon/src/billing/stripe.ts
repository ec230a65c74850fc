import { invalidField, ServiceError } from '@svc/core';
import Stripe from 'stripe';
import type { BillingEvent, BillingProvider, CheckoutInput, InvoiceSummary, SubscriptionState } from './billing.js';
import { lookupKeyOf, planOfLookupKey, type Plan } from './plans.js';

export interface StripeBillingOptions {
  secretKey: string;
  webhookSecret: string;
  /** Where Stripe sends the browser back to after checkout and from the customer portal. */
  returnUrl: string;
  /** The API's base URL; default https://api.stripe.com. A test stand-in or stripe-mock elsewhere. */
  apiUrl?: string | undefined;
  /** The SDK retries connection errors and 409/429/5xx answers with the same idempotency key. */
  maxNetworkRetries?: number;
  timeoutMs?: number;
}

/** The SDK's host/port/protocol options from one URL, so an operator configures one value. */
export function stripeConnection(apiUrl: string | undefined): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (apiUrl === undefined) return {};
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port), protocol };
}

/** Seconds since the epoch (Stripe's timestamps) as ISO 8601. */
function isoFromUnix(seconds: number | null | undefined): string | null {
  return seconds === null || seconds === undefined ? null : new Date(seconds * 1000).toISOString();
}

function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.id;
}

/** BillingProvider over the `stripe` SDK: the only file that knows Stripe's API shapes. */
export class StripeBillingProvider implements BillingProvider {
  private readonly stripe: Stripe;
  /** Lookup key → price id; prices are immutable in Stripe, so a found id stays right (a moved key needs a restart). */
  private readonly prices = new Map<string, string>();

  constructor(private readonly options: StripeBillingOptions) {
    this.stripe = new Stripe(options.secretKey, {
      ...stripeConnection(options.apiUrl),
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      timeout: options.timeoutMs ?? 20_000,
      telemetry: false,
      appInfo: { name: 'svcd' },
    });
  }

  async createCustomer({ userId, email }: { userId: string; email: string }): Promise<{ customerId: string }> {
    const customer = await this.call(() =>
      // The idempotency key makes two racing first checkouts of one user get one customer, not two.
      this.stripe.customers.create({ email, metadata: { svc_user_id: userId } }, { idempotencyKey: `svc-customer-${userId}` }),
    );
    return { customerId: customer.id };
  }

  async createCheckoutSession(input: CheckoutInput): Promise<{ id: string; url: string }> {
    const price = await this.priceId({ tier: input.tier, billingCycle: input.billingCycle });
    const promotionCode = input.promoCode === undefined ? undefined : await this.promotionCodeId(input.promoCode);
    const metadata: Record<string, string> = { svc_user_id: input.userId };
    if (input.referralCode !== undefined) metadata['svc_referral_code'] = input.referralCode;
    const returnUrl = new URL(this.options.returnUrl);
    const success = new URL(returnUrl);
    success.searchParams.set('checkout', 'success');
    const cancel = new URL(returnUrl);
    cancel.searchParams.set('checkout', 'cancelled');
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customerId,
        client_reference_id: input.userId,
        line_items: [{ price, quantity: 1 }],
        // Stripe refuses allow_promotion_codes together with discounts: a code given here is applied, else the
        // page offers the code field.
        ...(promotionCode === undefined ? { allow_promotion_codes: true } : { discounts: [{ promotion_code: promotionCode }] }),
        metadata,
        // The subscription carries the user id too, so its webhooks find the user without the session.
        subscription_data: { metadata },
        // Stripe substitutes the placeholder; it must not be URL-encoded.
        success_url: `${success.toString()}&session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: cancel.toString(),
      }),
    );
    if (session.url === null) throw new ServiceError('INTERNAL_ERROR', 'Stripe returned a checkout session without a URL.');
    return { id: session.id, url: session.url };
  }

  async createPortalSession({ customerId }: { customerId: string }): Promise<{ url: string }> {
    const session = await this.call(() => this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: this.options.returnUrl }));
    return { url: session.url };
  }

  async getSubscription(subscriptionId: string): Promise<SubscriptionState> {
    return toSubscriptionState(await this.call(() => this.stripe.subscriptions.retrieve(subscriptionId)));
  }

  async changePlan({ subscriptionId, plan }: { subscriptionId: string; plan: Plan }): Promise<SubscriptionState> {
    const price = await this.priceId(plan);
    const current = await this.call(() => this.stripe.subscriptions.retrieve(subscriptionId));
    const item = current.items.data[0];
    if (item === undefined) throw new ServiceError('CONFLICT', 'The subscription has no item to change.');
    const updated = await this.call(() =>
      this.stripe.subscriptions.update(subscriptionId, {
        // Replacing the item's price (same item id) switches the plan rather than adding a second one.
        items: [{ id: item.id, price }],
        proration_behavior: 'create_prorations',
      }),
    );
    return toSubscriptionState(updated);
  }

  async cancelAtPeriodEnd(subscriptionId: string): Promise<SubscriptionState> {
    return toSubscriptionState(await this.call(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })));
  }

  async reactivate(subscriptionId: string): Promise<SubscriptionState> {
    return toSubscriptionState(await this.call(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: false })));
  }

  async listInvoices({ customerId, limit, startingAfter }: { customerId: string; limit: number; startingAfter?: string | undefined }) {
    const page = await this.call(() =>
      this.stripe.invoices.list({ customer: customerId, limit, ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) }),
    );
    return { invoices: page.data.map(toInvoiceSummary), hasMore: page.has_more };
  }

  parseWebhook(rawBody: Uint8Array, signatureHeader: string | undefined, now: Date): BillingEvent {
    if (signatureHeader === undefined || signatureHeader.trim() === '') {
      throw invalidField('stripe-signature', 'The Stripe-Signature header is missing.');
    }
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(Buffer.from(rawBody), signatureHeader, this.options.webhookSecret, undefined, undefined, now.getTime());
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw invalidField('stripe-signature', 'The Stripe-Signature header does not match the body, or the event is too old.');
      }
      // A correctly signed body that is not an event object.
      throw invalidField('(body)', 'The webhook body is not a Stripe event.');
    }
    return toBillingEvent(event);
  }

  private async priceId(plan: Plan): Promise<string> {
    const key = lookupKeyOf(plan);
    const cached = this.prices.get(key);
    if (cached !== undefined) return cached;
    const found = await this.call(() => this.stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 }));
    const price = found.data[0];
    if (price === undefined) {
      throw new ServiceError('BILLING_NOT_CONFIGURED', `The Stripe account has no active price with the lookup key ${key}; the operator must create it.`, {
        lookup_key: key,
      });
    }
    this.prices.set(key, price.id);
    return price.id;
  }

  /** The id of an active promotion code a customer typed (codes are what people see; discounts need the id). */
  private async promotionCodeId(code: string): Promise<string> {
    const found = await this.call(() => this.stripe.promotionCodes.list({ code, active: true, limit: 1 }));
    const promotion = found.data[0];
    if (promotion === undefined) throw invalidField('promo_code', `The promotion code "${code}" does not exist or is no longer active.`);
    return promotion.id;
  }

  /** Stripe's failures as the daemon's codes; the SDK's own message may name account details, so it is logged, not shown. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (
        error instanceof Stripe.errors.StripeConnectionError ||
        error instanceof Stripe.errors.StripeAPIError ||
        error instanceof Stripe.errors.StripeRateLimitError
      ) {
        throw new ServiceError('SERVICE_UNAVAILABLE', 'The payment provider cannot be reached right now; try again later.');
      }
      throw error;
    }
  }
}

function toSubscriptionState(subscription: Stripe.Subscription): SubscriptionState {
  const item = subscription.items.data[0];
  const metadataUser = subscription.metadata['svc_user_id'];
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer) ?? '',
    userId: metadataUser === undefined || metadataUser === '' ? undefined : metadataUser,
    status: subscription.status,
    plan: planOfLookupKey(item?.price.lookup_key),
    // Since API version 2025-03-31 the period lives on the items; one item per svc subscription.
    currentPeriodEnd: isoFromUnix(item?.current_period_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
  };
}

function toInvoiceSummary(invoice: Stripe.Invoice): InvoiceSummary {
  return {
    id: invoice.id ?? '',
    number: invoice.number,
    status: invoice.status,
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    currency: invoice.currency,
    created: isoFromUnix(invoice.created) ?? '',
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
    invoicePdf: invoice.invoice_pdf ?? null,
  };
}

function toBillingEvent(event: Stripe.Event): BillingEvent {
  const base = { id: event.id, type: event.type, created: event.created };
  const object = event.data.object as unknown as Record<string, unknown>;
  const customerId = idOf(object['customer'] as string | { id: string } | null | undefined);
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      return {
        ...base,
        subscriptionId: session.mode === 'subscription' ? idOf(session.subscription) : undefined,
        customerId,
        userId: session.client_reference_id ?? undefined,
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return { ...base, subscriptionId: event.data.object.id, customerId, userId: undefined };
    case 'invoice.payment_failed':
    case 'invoice.paid': {
      const invoice = event.data.object;
      const subscription = invoice.parent?.subscription_details?.subscription;
      return { ...base, subscriptionId: idOf(subscription), customerId, userId: undefined };
    }
    default:
      return { ...base, subscriptionId: undefined, customerId, userId: undefined };
  }
}
