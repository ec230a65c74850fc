import type { PaidTier } from '@svc/core';
import type { BillingCycle, Plan } from './plans.js';

// The daemon's view of a hosted payment provider (DESIGN.md: billing/ is the Stripe adapter). Routes and the
// webhook speak these domain shapes only, so the Stripe SDK stays inside stripe.ts and another provider could sit
// behind the same interface. Every method may throw ServiceError: SERVICE_UNAVAILABLE when the provider cannot be
// reached (the caller may retry), BILLING_NOT_CONFIGURED when the provider account lacks a price for a plan.

/** Provider subscription statuses in which the plan's tier applies (past_due: dunning is still retrying). */
export const ENTITLED_STATUSES = ['active', 'trialing', 'past_due'] as const;

export interface SubscriptionState {
  id: string;
  customerId: string;
  /** The svc user the checkout was started for (kept in the subscription's metadata), when known. */
  userId: string | undefined;
  /** The provider's status: active, trialing, past_due, canceled, unpaid, incomplete, incomplete_expired, paused. */
  status: string;
  /** Undefined when the subscribed price is not one of the plans of plans.ts. */
  plan: Plan | undefined;
  /** ISO 8601; the renewal date, or the end date when cancel_at_period_end. */
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

export interface InvoiceSummary {
  id: string;
  number: string | null;
  status: string | null;
  /** In the currency's smallest unit (cents). */
  amountDue: number;
  amountPaid: number;
  currency: string;
  /** ISO 8601. */
  created: string;
  hostedInvoiceUrl: string | null;
  invoicePdf: string | null;
}

export interface CheckoutInput {
  userId: string;
  customerId: string;
  tier: PaidTier;
  billingCycle: BillingCycle;
  promoCode?: string | undefined;
  referralCode?: string | undefined;
}

/** A verified webhook event, reduced to what the daemon acts on. */
export interface BillingEvent {
  id: string;
  type: string;
  /** Unix seconds, when the provider created the event: orders out-of-order deliveries. */
  created: number;
  /** The subscription the event is about, if any. */
  subscriptionId: string | undefined;
  customerId: string | undefined;
  /** checkout.session.completed: the svc user id the checkout was started for. */
  userId: string | undefined;
}

export interface BillingProvider {
  /** A customer record for the user; the same user gets the same customer even when two requests race. */
  createCustomer(input: { userId: string; email: string }): Promise<{ customerId: string }>;
  /** Throws INVALID_FIELD (promo_code) when the promotion code is unknown or inactive. */
  createCheckoutSession(input: CheckoutInput): Promise<{ id: string; url: string }>;
  createPortalSession(input: { customerId: string }): Promise<{ url: string }>;
  getSubscription(subscriptionId: string): Promise<SubscriptionState>;
  /** Switches the subscription to the plan's price now, prorating the rest of the period. */
  changePlan(input: { subscriptionId: string; plan: Plan }): Promise<SubscriptionState>;
  cancelAtPeriodEnd(subscriptionId: string): Promise<SubscriptionState>;
  reactivate(subscriptionId: string): Promise<SubscriptionState>;
  /** Newest first. */
  listInvoices(input: { customerId: string; limit: number; startingAfter?: string | undefined }): Promise<{ invoices: InvoiceSummary[]; hasMore: boolean }>;
  /**
   * Verifies the signature over the exact bytes received and returns the event. Throws INVALID_FIELD naming the
   * `stripe-signature` header when the signature is missing, wrong or too old.
   */
  parseWebhook(rawBody: Uint8Array, signatureHeader: string | undefined, now: Date): BillingEvent;
}
