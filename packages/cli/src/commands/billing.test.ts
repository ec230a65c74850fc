import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StripeBillingProvider } from '../../../daemon/src/billing/stripe.js';
import { userWithSession } from '../../../daemon/src/test/http.js';
import { startTestServer } from '../../../daemon/src/test/server.js';
import type { TestServer } from '../../../daemon/src/test/server.js';
import { startStripeStandIn, STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET } from '../../../daemon/src/test/stripe-stand-in.js';
import type { StripeStandIn } from '../../../daemon/src/test/stripe-stand-in.js';
import { ApiClient } from '../client/api-client.js';
import { captureIo, runSvc } from '../test/io.js';
import { billingCheckoutCommand, billingPortalCommand, formatAmount } from './billing.js';

// svc billing against a real svcd whose Stripe adapter talks to the Stripe stand-in.

let dir: string;
let server: TestServer;
let standIn: StripeStandIn | undefined;

async function start(withStripe: boolean): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-billing-'));
  // Stripe's clock is the daemon's, read when Stripe needs it (the server starts below).
  standIn = withStripe ? await startStripeStandIn({ clock: () => server.services.clock() }) : undefined;
  const billing =
    standIn === undefined
      ? undefined
      : new StripeBillingProvider({ secretKey: STAND_IN_SECRET_KEY, webhookSecret: STAND_IN_WEBHOOK_SECRET, returnUrl: 'http://127.0.0.1:7878/billing/return', apiUrl: standIn.url, maxNetworkRetries: 0 });
  server = await startTestServer(() => (billing === undefined ? {} : { billing }));
}

afterEach(async () => {
  await server.close();
  await standIn?.close();
  await rm(dir, { recursive: true, force: true });
});

function env(token: string): NodeJS.ProcessEnv {
  return { SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file', SVC_SERVER: server.url, SVC_TOKEN: token };
}

/** Stripe's confirmation of a paid checkout, as the webhook delivers it. */
async function confirm(sessionId: string): Promise<string> {
  if (standIn === undefined) throw new Error('no stand-in');
  const subscription = standIn.completeCheckout(sessionId);
  const { body, signature } = standIn.signed(standIn.event('customer.subscription.created', subscription));
  const response = await fetch(`${server.url}/webhooks/stripe`, { method: 'POST', headers: { 'stripe-signature': signature, 'content-type': 'application/json' }, body });
  expect(response.status).toBe(200);
  return String(subscription['id']);
}

describe('svc billing with Stripe', () => {
  it('checkout prints the URL alone on stdout; the webhook raises the plan; status, upgrade, cancel, reactivate, invoices', async () => {
    await start(true);
    const { token } = await userWithSession(server, 'free');

    const before = await runSvc(['billing', 'status'], captureIo(env(token)));
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^plan: {6}Free \(free\)\nstatus: {4}no subscription\napi keys: {2}no \(paid plans\)\n/);

    const checkout = await runSvc(['billing', 'checkout', '--tier', 'dev', '--promo', 'WELCOME'], captureIo(env(token)));
    // An unknown promotion code is the server's INVALID_FIELD, one line, exit 2.
    expect(checkout).toEqual({ code: 2, stdout: '', stderr: 'svc: The promotion code "WELCOME" does not exist or is no longer active. (INVALID_FIELD)\n' });
    standIn?.addPromotionCode('WELCOME');
    const paid = await runSvc(['billing', 'checkout', '--tier', 'dev', '--promo', 'WELCOME'], captureIo(env(token)));
    expect(paid.code).toBe(0);
    expect(paid.stdout).toMatch(/^https:\/\/checkout\.stripe\.com\/\S+\n$/);
    expect(paid.stderr).toBe('svc: checkout for the Developer plan (monthly); pay on the page below, then your plan changes once the payment provider confirms it (see `svc billing status`)\n');
    expect(standIn?.requestsTo('POST', '/v1/checkout/sessions').at(-1)?.params['discounts[0][promotion_code]']).toMatch(/^promo_/);

    const json = await runSvc(['billing', 'checkout', '--tier', 'dev', '--cycle', 'annual', '--json'], captureIo(env(token)));
    // --json: stdout is one JSON document and nothing else, so it pipes into jq.
    const session = JSON.parse(json.stdout) as { checkout_url: string; session_id: string };
    expect(session.session_id).toMatch(/^cs_test_/);
    expect(session.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const subscriptionId = await confirm(session.session_id);

    const status = await runSvc(['billing', 'status'], captureIo(env(token)));
    expect(status.stdout).toMatch(/^plan: {6}Developer \(dev\), annual\nstatus: {4}active\nrenews: {4}\d{4}-\d\d-\d\d\napi keys: {2}yes, up to 10 active\n/);
    expect(status.stdout).toContain('scans:     50/day, 100/week, 200/month; burst 10/minute\n');
    const statusJson = JSON.parse((await runSvc(['billing', 'status', '--json'], captureIo(env(token)))).stdout) as { tier: string; subscription_id: string };
    expect(statusJson).toMatchObject({ tier: 'dev', subscription_id: subscriptionId });

    const upgrade = await runSvc(['billing', 'upgrade', '--tier', 'team'], captureIo(env(token)));
    expect(upgrade).toEqual({
      code: 0,
      stdout: `subscription ${subscriptionId} switched to Team (annual), prorated; your plan changes once the payment provider confirms it (see \`svc billing status\`)\n`,
      stderr: '',
    });
    const cancel = await runSvc(['billing', 'cancel'], captureIo(env(token)));
    expect(cancel.stdout).toMatch(new RegExp(`^subscription ${subscriptionId} ends on \\d{4}-\\d\\d-\\d\\d; until then nothing changes`));
    const reactivate = await runSvc(['billing', 'reactivate', '--json'], captureIo(env(token)));
    expect(JSON.parse(reactivate.stdout)).toMatchObject({ subscription_id: subscriptionId, cancel_at_period_end: false, tier: 'team' });

    const customer = standIn?.requestsTo('POST', '/v1/customers')[0];
    expect(customer).toBeDefined();
    const customerId = String(standIn?.requestsTo('POST', '/v1/checkout/sessions')[0]?.params['customer']);
    for (let i = 0; i < 3; i++) standIn?.addInvoice(customerId, { created: 1_800_000_000 + i * 86_400, amount_due: 1900 + i });
    const invoices = await runSvc(['billing', 'invoices', '--limit', '2'], captureIo(env(token)));
    const lines = invoices.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DATE\s+NUMBER\s+STATUS\s+AMOUNT\s+INVOICE$/);
    expect(lines[1]).toMatch(/^2027-01-17\s+SVC-0003\s+paid\s+\$19\.02\s+https:\/\/invoice\.stripe\.com\/\S+$/);
    expect(lines[3]).toMatch(/^more: svc billing invoices --starting-after in_\w+$/);
    const next = await runSvc(['billing', 'invoices', '--starting-after', lines[3]!.split(' ').at(-1)!, '--json'], captureIo(env(token)));
    expect(JSON.parse(next.stdout)).toMatchObject({ has_more: false, invoices: [{ number: 'SVC-0001', amount_due: 1900 }] });

    const portal = await runSvc(['billing', 'portal'], captureIo(env(token)));
    expect(portal.stdout).toMatch(/^https:\/\/billing\.stripe\.com\/\S+\n$/);
  });

  it('opens the URL only with --open, through the injected opener', async () => {
    await start(true);
    const { token } = await userWithSession(server, 'free');
    const client = new ApiClient(server.url, token);
    const opened: string[] = [];
    const io = captureIo(env(token));
    await billingCheckoutCommand(io, client, { tier: 'team', cycle: 'monthly' }, async (url) => {
      opened.push(url);
    });
    expect(opened).toEqual([]);
    await billingCheckoutCommand(io, client, { tier: 'team', cycle: 'monthly', open: true }, async (url) => {
      opened.push(url);
    });
    expect(opened).toHaveLength(1);
    expect(io.out().trimEnd().split('\n').at(-1)).toBe(opened[0]);
    expect(io.err()).toContain('svc: opened in your browser\n');

    const failing = captureIo(env(token));
    // A browser that cannot start is a note: the URL is printed anyway and the command succeeds.
    const code = await billingPortalCommand(failing, client, { open: true }, async () => {
      throw new Error('no display');
    });
    expect(code).toBe(0);
    expect(failing.out()).toMatch(/^https:\/\/billing\.stripe\.com\//);
    expect(failing.err()).toContain('could not open a browser (no display)');
  });

  it('refuses bad flags as usage errors and a stale plan change with the server code', async () => {
    await start(true);
    const { token } = await userWithSession(server, 'free');
    const badTier = await runSvc(['billing', 'checkout', '--tier', 'gold'], captureIo(env(token)));
    expect(badTier.code).toBe(2);
    expect(badTier.stderr).toContain("option '--tier <tier>' argument 'gold' is invalid");
    const noTier = await runSvc(['billing', 'upgrade'], captureIo(env(token)));
    expect(noTier.code).toBe(2);
    expect(noTier.stderr).toContain("required option '--tier <tier>' not specified");
    const noSubscription = await runSvc(['billing', 'upgrade', '--tier', 'team'], captureIo(env(token)));
    expect(noSubscription).toEqual({ code: 2, stdout: '', stderr: 'svc: There is no active subscription; start one with POST /checkout/session. (CONFLICT)\n' });
    expect(standIn?.requests).toHaveLength(0);
  });
});

describe('svc billing without Stripe', () => {
  it('prints one line with BILLING_NOT_CONFIGURED and exits 2; status still works', async () => {
    await start(false);
    const { token } = await userWithSession(server, 'team');
    for (const args of [['checkout', '--tier', 'dev'], ['portal'], ['upgrade', '--tier', 'business'], ['cancel'], ['reactivate'], ['invoices']]) {
      const result = await runSvc(['billing', ...args], captureIo(env(token)));
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^svc: Billing is not configured on this server .*svcd admin set-tier.* \(BILLING_NOT_CONFIGURED\)\n$/);
    }
    const status = await runSvc(['billing', 'status'], captureIo(env(token)));
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('plan:      Team (team)\n');
    expect(status.stdout).toContain('billing:   not configured on this server');
  });
});

describe('formatAmount', () => {
  it('formats the smallest currency unit', () => {
    expect(formatAmount(1900, 'usd')).toBe('$19.00');
    expect(formatAmount(49900, 'eur')).toBe('€499.00');
  });
});
