import { PAID_TIERS, type PaidTier } from '@svc/core';

// Which Stripe price sells which plan. Prices are found by lookup key rather than by six price-id settings: an
// operator creates the prices once in the Stripe dashboard with these keys, and moving a plan to a new price is
// "transfer the lookup key" in Stripe, with no daemon restart. The key also names the plan of a subscription
// item, so a webhook needs no second mapping back from price to tier.

export const BILLING_CYCLES = ['monthly', 'annual'] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

export interface Plan {
  tier: PaidTier;
  billingCycle: BillingCycle;
}

const PREFIX = 'svc';

/** `svc_dev_monthly`, `svc_business_annual`, … */
export function lookupKeyOf({ tier, billingCycle }: Plan): string {
  return `${PREFIX}_${tier}_${billingCycle}`;
}

/** Every lookup key the daemon sells, for the operator's setup and the docs. */
export const PLAN_LOOKUP_KEYS: readonly string[] = PAID_TIERS.flatMap((tier) => BILLING_CYCLES.map((billingCycle) => lookupKeyOf({ tier, billingCycle })));

/** The plan a price sells, from its lookup key; undefined for a price that is not one of ours. */
export function planOfLookupKey(key: string | null | undefined): Plan | undefined {
  if (key === null || key === undefined) return undefined;
  const match = /^svc_([a-z]+)_([a-z]+)$/.exec(key);
  const tier = PAID_TIERS.find((candidate) => candidate === match?.[1]);
  const billingCycle = BILLING_CYCLES.find((candidate) => candidate === match?.[2]);
  return tier === undefined || billingCycle === undefined ? undefined : { tier, billingCycle };
}
