import { spawn } from 'node:child_process';
import { platform } from 'node:os';
import { TIER_DISPLAY_NAMES, visibleLine, type Tier } from '@svc/core';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { ApiClient } from '../client/api-client.js';
import { CliError, runCommand } from '../client/run.js';
import { connect } from '../credentials/connect.js';
import type { CommandIo } from '../terminal.js';
import { printJson, textTable } from '../ui/output.js';

// `svc billing …`: the billing routes of svcd (docs/daemon.md "Billing"). The hosted pages (checkout, portal) are
// printed as a URL, alone on stdout so a script can capture it, and opened in a browser only with --open.

export const BILLING_TIERS = ['dev', 'team', 'business'] as const;
export const BILLING_CYCLES = ['monthly', 'annual'] as const;

/** Opens a URL in the user's browser; injected so tests never start one. */
export type UrlOpener = (url: string) => Promise<void>;

interface JsonOption {
  json?: boolean;
}

export interface CheckoutOptions extends JsonOption {
  tier: (typeof BILLING_TIERS)[number];
  cycle: (typeof BILLING_CYCLES)[number];
  promo?: string;
  referral?: string;
  open?: boolean;
}

export interface UpgradeOptions extends JsonOption {
  tier: (typeof BILLING_TIERS)[number];
  cycle?: (typeof BILLING_CYCLES)[number];
}

export interface SubscriptionRecord {
  subscription_id: string;
  status: string;
  tier: string | null;
  billing_cycle: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
}

interface WindowCaps {
  day?: number;
  week?: number;
  month?: number;
}

export interface SubscriptionView {
  tier: string;
  plan_name: string;
  effective_tier: string;
  paid_by: 'user' | 'org';
  status: string;
  subscription_id: string | null;
  billing_cycle: string | null;
  current_period_end: string | null;
  renews_at: string | null;
  cancel_at_period_end: boolean;
  billing_configured: boolean;
  entitlements: {
    api_keys: boolean;
    max_active_api_keys: number;
    create_team: boolean;
    private_scans: boolean;
    deep_scans: boolean;
    scans: { burst_per_minute: number; public: WindowCaps; deep: WindowCaps | null; private: WindowCaps | null; private_deep: WindowCaps | null };
  };
}

export interface Invoice {
  id: string;
  number: string | null;
  status: string | null;
  amount_due: number;
  amount_paid: number;
  currency: string;
  created: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
}

const CONFIRM_NOTE = 'your plan changes once the payment provider confirms it (see `svc billing status`)';

const day = (iso: string | null) => (iso === null ? 'unknown' : iso.slice(0, 10));
const planName = (tier: string | null) => (tier === null ? 'an unknown plan' : (TIER_DISPLAY_NAMES[tier as Tier] ?? tier));

/** The URL alone on stdout; with --open also in the browser (a failure to open is a note, the URL is still there). */
/** The URL alone on stdout (unless --json printed it already), then the browser with --open. */
async function showUrl(io: CommandIo, url: string, { open, json }: { open?: boolean; json?: boolean }, opener: UrlOpener): Promise<void> {
  if (json !== true) io.stdout.write(`${url}\n`);
  if (open !== true) return;
  try {
    await opener(url);
    io.stderr.write('svc: opened in your browser\n');
  } catch (error) {
    io.stderr.write(`svc: could not open a browser (${error instanceof Error ? error.message : String(error)}); open the URL above yourself\n`);
  }
}

export async function billingCheckoutCommand(io: CommandIo, client: ApiClient, options: CheckoutOptions, opener: UrlOpener = openInBrowser): Promise<number> {
  const body = {
    tier: options.tier,
    billing_cycle: options.cycle,
    ...(options.promo === undefined ? {} : { promo_code: options.promo }),
    ...(options.referral === undefined ? {} : { referral_code: options.referral }),
  };
  const session = await client.request<{ checkout_url: string; session_id: string }>('POST', '/checkout/session', { body, signal: io.signal });
  if (options.json === true) printJson(io, session);
  else io.stderr.write(`svc: checkout for the ${planName(options.tier)} plan (${options.cycle}); pay on the page below, then ${CONFIRM_NOTE}\n`);
  await showUrl(io, session.checkout_url, options, opener);
  return 0;
}

export async function billingPortalCommand(io: CommandIo, client: ApiClient, options: JsonOption & { open?: boolean }, opener: UrlOpener = openInBrowser): Promise<number> {
  const session = await client.request<{ portal_url: string }>('POST', '/billing/portal', { signal: io.signal });
  if (options.json === true) printJson(io, session);
  else io.stderr.write('svc: the customer portal (payment method, invoices, plan, cancel); the link works once and expires soon\n');
  await showUrl(io, session.portal_url, options, opener);
  return 0;
}

export async function billingUpgradeCommand(io: CommandIo, client: ApiClient, options: UpgradeOptions): Promise<number> {
  const body = { tier: options.tier, ...(options.cycle === undefined ? {} : { billing_cycle: options.cycle }) };
  const subscription = await client.request<SubscriptionRecord>('POST', '/billing/upgrade', { body, signal: io.signal });
  if (options.json === true) printJson(io, subscription);
  else io.stdout.write(`subscription ${subscription.subscription_id} switched to ${planName(subscription.tier)} (${subscription.billing_cycle ?? 'unknown cycle'}), prorated; ${CONFIRM_NOTE}\n`);
  return 0;
}

export async function billingCancelCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const subscription = await client.request<SubscriptionRecord>('POST', '/billing/cancel', { signal: io.signal });
  if (options.json === true) printJson(io, subscription);
  else io.stdout.write(`subscription ${subscription.subscription_id} ends on ${day(subscription.current_period_end)}; until then nothing changes (undo with \`svc billing reactivate\`)\n`);
  return 0;
}

export async function billingReactivateCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const subscription = await client.request<SubscriptionRecord>('POST', '/billing/reactivate', { signal: io.signal });
  if (options.json === true) printJson(io, subscription);
  else io.stdout.write(`subscription ${subscription.subscription_id} renews again on ${day(subscription.current_period_end)}\n`);
  return 0;
}

export function formatAmount(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

export async function billingInvoicesCommand(io: CommandIo, client: ApiClient, options: JsonOption & { limit?: number; startingAfter?: string }): Promise<number> {
  const page = await client.request<{ invoices: Invoice[]; has_more: boolean }>('GET', '/billing/invoices', {
    query: { limit: options.limit, starting_after: options.startingAfter },
    signal: io.signal,
  });
  if (options.json === true) {
    printJson(io, page);
    return 0;
  }
  if (page.invoices.length === 0) {
    io.stdout.write('no invoices\n');
    return 0;
  }
  const rows = [
    ['DATE', 'NUMBER', 'STATUS', 'AMOUNT', 'INVOICE'],
    ...page.invoices.map((invoice) => [
      day(invoice.created),
      visibleLine(invoice.number ?? invoice.id),
      invoice.status ?? '',
      formatAmount(invoice.amount_due, invoice.currency),
      visibleLine(invoice.hosted_invoice_url ?? invoice.invoice_pdf ?? ''),
    ]),
  ];
  io.stdout.write(`${textTable(rows)}\n`);
  const last = page.invoices.at(-1);
  if (page.has_more && last !== undefined) io.stdout.write(`more: svc billing invoices --starting-after ${last.id}\n`);
  return 0;
}

function caps(windows: WindowCaps | null): string {
  if (windows === null) return 'none';
  const parts = (['day', 'week', 'month'] as const).flatMap((window) => (windows[window] === undefined ? [] : [`${windows[window]}/${window}`]));
  return parts.length === 0 ? 'none' : parts.join(', ');
}

export function renderSubscription(view: SubscriptionView): string {
  const lines = [`plan:      ${view.plan_name} (${view.tier})${view.billing_cycle === null ? '' : `, ${view.billing_cycle}`}`];
  lines.push(`status:    ${view.status === 'none' ? 'no subscription' : view.status}`);
  if (view.cancel_at_period_end) lines.push(`ends:      ${day(view.current_period_end)} (cancelled; \`svc billing reactivate\` undoes it)`);
  else if (view.renews_at !== null) lines.push(`renews:    ${day(view.renews_at)}`);
  if (view.effective_tier !== view.tier) lines.push(`in effect: ${planName(view.effective_tier)} (${view.effective_tier}), paid by your ${view.paid_by === 'org' ? 'team' : 'account'}`);
  const e = view.entitlements;
  lines.push(
    `api keys:  ${e.api_keys ? `yes, up to ${e.max_active_api_keys} active` : 'no (paid plans)'}`,
    `teams:     ${e.create_team ? 'can create a team' : 'no (team and business plans)'}`,
    `scans:     ${caps(e.scans.public)}; burst ${e.scans.burst_per_minute}/minute`,
    `deep:      ${caps(e.scans.deep)}`,
    `private:   ${caps(e.scans.private)}; deep ${caps(e.scans.private_deep)}`,
  );
  if (!view.billing_configured) lines.push('billing:   not configured on this server (an operator sets plans with `svcd admin set-tier`)');
  return `${lines.join('\n')}\n`;
}

export async function billingStatusCommand(io: CommandIo, client: ApiClient, options: JsonOption): Promise<number> {
  const view = await client.request<SubscriptionView>('GET', '/subscription', { signal: io.signal });
  if (options.json === true) printJson(io, view);
  else io.stdout.write(renderSubscription(view));
  return 0;
}

/** The platform's opener; detached so the browser outlives svc. Only with --open, never in tests. */
export function openInBrowser(url: string): Promise<void> {
  const os = platform();
  const [command, args] =
    os === 'darwin' ? ['open', [url]] : os === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args as string[], { detached: true, stdio: 'ignore' });
    child.once('error', (error) => reject(new CliError(`${command}: ${error.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

const SERVER_HELP = 'the svc server (default: SVC_SERVER, then `svc config set-server`, then http://127.0.0.1:7878)';

const BILLING_HELP = `
Needs \`svc login\` (a session; API keys are refused). Plans change only when the payment provider confirms a payment
or a change; \`svc billing status\` shows the plan in effect. On a server without Stripe every command but status
fails with BILLING_NOT_CONFIGURED; an operator sets plans there with \`svcd admin set-tier\`.

Exit codes: 0 done, 2 error (one line on stderr with the server's message and code).
`;

function common(command: Command): Command {
  return command.option('--server <url>', SERVER_HELP).option('--json', 'print the result as JSON on stdout');
}

function limitOption(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100) throw new InvalidArgumentError('must be a whole number from 1 to 100.');
  return Number(value);
}

type WithServer<T> = T & { server?: string };

export function registerBillingCommands(program: Command, io: CommandIo, setExitCode: (code: number) => void, opener: UrlOpener = openInBrowser): void {
  const run = async (action: () => Promise<number | void>) => setExitCode(await runCommand(io, action));
  const session = (options: { server?: string }) => connect(io, options, 'session');

  const billing = program.command('billing').description('plans and payment: checkout, portal, upgrade, cancel, reactivate, invoices, status');
  billing.addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing checkout --tier dev --open\n  $ svc billing status\n  $ svc billing upgrade --tier team\n`);

  common(billing.command('checkout'))
    .description('start paying for a plan: prints the hosted checkout URL')
    .addOption(new Option('--tier <tier>', 'the plan').choices(BILLING_TIERS).makeOptionMandatory())
    .addOption(new Option('--cycle <cycle>', 'how often you pay').choices(BILLING_CYCLES).default('monthly'))
    .option('--promo <code>', 'a promotion code to apply')
    .option('--referral <code>', 'a referral code')
    .option('--open', 'also open the URL in your browser')
    .addHelpText(
      'after',
      `${BILLING_HELP}
Examples:
  $ svc billing checkout --tier dev
  $ svc billing checkout --tier team --cycle annual --promo LAUNCH50 --open
  $ URL=$(svc billing checkout --tier business)
`,
    )
    .action((options: WithServer<CheckoutOptions>) => run(async () => billingCheckoutCommand(io, await session(options), options, opener)));

  common(billing.command('portal'))
    .description('the hosted customer portal (payment method, invoices, plan, cancel): prints a single-use URL')
    .option('--open', 'also open the URL in your browser')
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing portal --open\n`)
    .action((options: WithServer<JsonOption & { open?: boolean }>) => run(async () => billingPortalCommand(io, await session(options), options, opener)));

  common(billing.command('upgrade'))
    .description('switch the subscription to another plan now; the rest of the period is prorated')
    .addOption(new Option('--tier <tier>', 'the new plan (a lower one works too)').choices(BILLING_TIERS).makeOptionMandatory())
    .addOption(new Option('--cycle <cycle>', 'the new billing cycle (default: the current one)').choices(BILLING_CYCLES))
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing upgrade --tier team\n  $ svc billing upgrade --tier business --cycle annual\n`)
    .action((options: WithServer<UpgradeOptions>) => run(async () => billingUpgradeCommand(io, await session(options), options)));

  common(billing.command('cancel'))
    .description('cancel at the end of the current period (the plan stays until then)')
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing cancel\n`)
    .action((options: WithServer<JsonOption>) => run(async () => billingCancelCommand(io, await session(options), options)));

  common(billing.command('reactivate'))
    .description('undo a pending cancellation before the period ends')
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing reactivate\n`)
    .action((options: WithServer<JsonOption>) => run(async () => billingReactivateCommand(io, await session(options), options)));

  common(billing.command('invoices'))
    .description('past invoices, newest first: date, number, status, amount, link')
    .option('--limit <n>', 'how many, 1 to 100 (default 10)', limitOption)
    .option('--starting-after <id>', 'the next page: the last invoice id of the previous one')
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing invoices\n  $ svc billing invoices --limit 50 --json | jq '.invoices[].hosted_invoice_url'\n`)
    .action((options: WithServer<JsonOption & { limit?: number; startingAfter?: string }>) =>
      run(async () => billingInvoicesCommand(io, await session(options), options)),
    );

  common(billing.command('status'))
    .description('the plan, its status, the renewal date and what the plan includes (quotas, API keys, teams)')
    .addHelpText('after', `${BILLING_HELP}\nExamples:\n  $ svc billing status\n  $ svc billing status --json | jq .renews_at\n`)
    .action((options: WithServer<JsonOption>) => run(async () => billingStatusCommand(io, await session(options), options)));
}
