import { describe, expect, it } from 'vitest';
import {
  canCreateTeam,
  canMintApiKeys,
  compareTiers,
  effectiveTier,
  hasPrivateScanBudget,
  isTier,
  parseTier,
  TIER_DISPLAY_NAMES,
  TIERS,
  type Tier,
} from './tiers.js';

describe('tiers', () => {
  it('orders tiers from anonymous to business', () => {
    const shuffled: Tier[] = ['team', 'anonymous', 'business', 'dev', 'free'];
    expect(shuffled.sort(compareTiers)).toEqual(['anonymous', 'free', 'dev', 'team', 'business']);
  });

  it.each([
    // tier, mint keys, private budget, create team
    ['anonymous', false, false, false],
    ['free', false, false, false],
    ['dev', true, true, false],
    ['team', true, true, true],
    ['business', true, true, true],
  ] as const)('%s: keys %s, private scans %s, teams %s', (tier, keys, privateScans, teams) => {
    expect(canMintApiKeys(tier)).toBe(keys);
    expect(hasPrivateScanBudget(tier)).toBe(privateScans);
    expect(canCreateTeam(tier)).toBe(teams);
  });

  it('uses the spec spelling dev and shows Developer', () => {
    expect(TIER_DISPLAY_NAMES.dev).toBe('Developer');
    expect(isTier('dev')).toBe(true);
    expect(isTier('developer')).toBe(false);
    expect(TIERS).not.toContain('developer');
  });

  it.each([
    ['dev', 'dev'],
    ['Developer', 'dev'],
    [' BUSINESS ', 'business'],
    ['free', 'free'],
    ['enterprise', undefined],
    ['', undefined],
  ] as const)('parses %j as %s', (input, tier) => {
    expect(parseTier(input)).toBe(tier);
  });

  it.each([
    ['free', undefined, 'free', 'user'],
    ['free', 'team', 'team', 'org'],
    ['team', 'team', 'team', 'org'],
    ['business', 'team', 'business', 'user'],
    ['dev', 'business', 'business', 'org'],
  ] as const)('user on %s in a %s team gets %s paid by %s', (user, team, tier, paidBy) => {
    expect(effectiveTier(user, team)).toEqual({ tier, paidBy });
  });
});
