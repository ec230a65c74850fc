// Plan tiers. The wire spelling is the spec's checkout value (2.7: dev, team, business); "Developer" is only
// a display name, so there is one spelling in data and one place that maps it for people.

export const TIERS = ['anonymous', 'free', 'dev', 'team', 'business'] as const;
export type Tier = (typeof TIERS)[number];

/** Tiers a user can be on (anonymous is the absence of a user). */
export const ACCOUNT_TIERS = ['free', 'dev', 'team', 'business'] as const satisfies readonly Tier[];
export type AccountTier = (typeof ACCOUNT_TIERS)[number];

/** Tiers sold through checkout (spec 2.7). */
export const PAID_TIERS = ['dev', 'team', 'business'] as const satisfies readonly Tier[];
export type PaidTier = (typeof PAID_TIERS)[number];

/** Tiers whose owner may create a team (spec 2.2: values seen are team and business). */
export const TEAM_TIERS = ['team', 'business'] as const satisfies readonly Tier[];
export type TeamTier = (typeof TEAM_TIERS)[number];

export const TIER_DISPLAY_NAMES = {
  anonymous: 'Anonymous',
  free: 'Free',
  dev: 'Developer',
  team: 'Team',
  business: 'Business',
} as const satisfies Record<Tier, string>;

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

/**
 * A tier from operator or user input (`svcd admin set-tier`, `--tier`): the id or the display name, any case.
 * Undefined when nothing matches, so the caller can list the choices.
 */
export function parseTier(input: string): Tier | undefined {
  const wanted = input.trim().toLowerCase();
  return TIERS.find((tier) => tier === wanted || TIER_DISPLAY_NAMES[tier].toLowerCase() === wanted);
}

/** Position in the upgrade order: anonymous < free < dev < team < business. */
export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

export function compareTiers(a: Tier, b: Tier): number {
  return tierRank(a) - tierRank(b);
}

export function isPaidTier(tier: Tier): tier is PaidTier {
  return (PAID_TIERS as readonly Tier[]).includes(tier);
}

export function isTeamTier(tier: Tier): tier is TeamTier {
  return (TEAM_TIERS as readonly Tier[]).includes(tier);
}

/** Spec 5.1 rule 4: API keys are a paid feature; others get 402 SUBSCRIPTION_REQUIRED. */
export function canMintApiKeys(tier: Tier): boolean {
  return isPaidTier(tier);
}

/** Spec 8.2 gives private quotas only to paid tiers; DESIGN.md: free (and anonymous) private scans get 402. */
export function hasPrivateScanBudget(tier: Tier): boolean {
  return isPaidTier(tier);
}

export function canCreateTeam(tier: Tier): boolean {
  return isTeamTier(tier);
}

/**
 * The tier whose quotas and key rights apply to a user, and who pays. DESIGN.md: a team's tier is its owner's
 * plan and members get it while they are members. A member whose own plan ranks higher keeps their own, so
 * joining a team never takes rights away; ties go to the team, which then pays (the scan's org_id).
 */
export function effectiveTier(userTier: AccountTier, teamTier?: Tier): { tier: Tier; paidBy: 'user' | 'org' } {
  if (teamTier !== undefined && compareTiers(teamTier, userTier) >= 0) return { tier: teamTier, paidBy: 'org' };
  return { tier: userTier, paidBy: 'user' };
}
