import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEAN_ENV, startSvcdProcess, SVCD_BIN, type SvcdProcess } from '../../daemon/src/test/process.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../daemon/src/test/smtp.js';
import { startStripeStandIn, STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, type StripeStandIn } from '../../daemon/src/test/stripe-stand-in.js';

// Issue 4's "Done when", scripted: the real `svc` binary against the real `svcd` process over HTTP, mail over real
// SMTP, Stripe's API stood in for by a local server speaking its wire format. Two people, each with their own config
// dir: Ada pays, creates a team and invites Bob by e-mail; Bob accepts; each sees the other's private scans; Ada reads
// the usage report, hands the team to Bob and leaves it.

const svcBin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const fixture = fileURLToPath(new URL('../../../fixtures/servers/clean-files-ts', import.meta.url));

let dir: string;
let smtp: TestSmtpServer;
let stripe: StripeStandIn;
let daemon: SvcdProcess;
let base: string;
let daemonEnv: Record<string, string | undefined>;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `svc <args>` as the person whose config dir is `home`; `input` is written to stdin once `before` resolves. */
function svc(home: string, args: string[], input?: { before: () => Promise<string> }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [svcBin, ...args], {
      env: { ...CLEAN_ENV, SVC_SERVER: base, SVC_CONFIG_DIR: home, SVC_CREDENTIAL_STORE: 'file', NO_COLOR: '1' },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (input === undefined) child.stdin.end();
    else input.before().then((text) => child.stdin.end(`${text}\n`), reject);
  });
}

async function ok(run: Promise<Run>): Promise<Run> {
  const result = await run;
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
  return result;
}

/** Quoted-printable bodies break long lines with a trailing `=` and escape `=` itself. */
function mailText(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

async function mailTo(address: string, pattern: RegExp, after: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (const mail of smtp.received.slice(after)) {
      const match = mail.to.includes(address) ? pattern.exec(mailText(mail.raw)) : null;
      if (match !== null) return match;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${address} matching ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `svc login`, typing the code from the mail at the prompt (stdin) the way a person would. */
async function login(home: string, email: string): Promise<void> {
  const before = smtp.received.length;
  const result = await svc(home, ['login', '--email', email], { before: async () => (await mailTo(email, /sign-in code is (\d{6})/, before))[1]! });
  expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
}

async function sessionToken(email: string): Promise<string> {
  const result = spawnSync(process.execPath, [SVCD_BIN, 'admin', 'token', email], { env: daemonEnv, encoding: 'utf8' });
  expect(result.status).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  if (!existsSync(svcBin)) throw new Error(`${svcBin} is missing`);
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'svc-account-e2e-')));
  await cp(fixture, path.join(dir, 'roots', 'server'), { recursive: true });
  smtp = await startTestSmtpServer();
  stripe = await startStripeStandIn();
  daemonEnv = {
    ...CLEAN_ENV,
    SVC_DATA_DIR: path.join(dir, 'data'),
    SVC_SCAN_ROOTS: path.join(dir, 'roots'),
    SVC_SCAN_WORKERS: '1',
    SVC_SMTP_URL: smtp.url,
    SVC_STRIPE_SECRET_KEY: STAND_IN_SECRET_KEY,
    SVC_STRIPE_WEBHOOK_SECRET: STAND_IN_WEBHOOK_SECRET,
    SVC_STRIPE_API_URL: stripe.url,
  };
  daemon = await startSvcdProcess(daemonEnv);
  base = daemon.url;
}, 30_000);

afterAll(async () => {
  await daemon.stop();
  await smtp.close();
  await stripe.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svc account commands against svcd, end to end', () => {
  it('pays, builds a team by e-mail invite, shares private scans, reports usage, transfers and leaves', async () => {
    const ada = path.join(dir, 'ada');
    const bob = path.join(dir, 'bob');
    const target = path.join(dir, 'roots', 'server');
    await login(ada, 'ada@example.com');
    await login(bob, 'bob@example.com');
    expect((await ok(svc(ada, ['whoami', '--json']))).stdout).toMatch(/"tier": "free"/);

    // On the free plan there is no team and no private scan (402, one line, exit 2).
    const refused = await svc(ada, ['team', 'create', 'Acme']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/SUBSCRIPTION_REQUIRED/);
    expect((await svc(ada, ['scan', '--remote', target, '--format', 'json'])).stderr).toMatch(/SUBSCRIPTION_REQUIRED/);

    // Checkout, Stripe's confirmation of the payment, and the signed webhook that is the only thing raising the tier.
    const checkout = JSON.parse((await ok(svc(ada, ['billing', 'checkout', '--tier', 'team', '--cycle', 'monthly', '--json']))).stdout) as {
      checkout_url: string;
      session_id: string;
    };
    expect(checkout.checkout_url).toMatch(/^https:\/\//);
    expect(JSON.parse((await ok(svc(ada, ['billing', 'status', '--json']))).stdout)).toMatchObject({ tier: 'free' });
    const subscription = stripe.completeCheckout(checkout.session_id);
    const adaId = (JSON.parse((await ok(svc(ada, ['whoami', '--json']))).stdout) as { user_id: string }).user_id;
    const event = stripe.event('checkout.session.completed', {
      id: checkout.session_id,
      object: 'checkout.session',
      mode: 'subscription',
      customer: subscription['customer'],
      subscription: subscription['id'],
      client_reference_id: adaId,
    });
    const { body, signature } = stripe.signed(event);
    const delivered = await fetch(`${base}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body });
    expect(delivered.status).toBe(200);
    expect(JSON.parse((await ok(svc(ada, ['billing', 'status', '--json']))).stdout)).toMatchObject({ tier: 'team' });

    // The team plan's quota: a team, and private scans.
    await ok(svc(ada, ['team', 'create', 'Acme']));
    const before = smtp.received.length;
    await ok(svc(ada, ['team', 'invite', 'bob@example.com']));
    const token = (await mailTo('bob@example.com', /svc team accept (\S+)/, before))[1]!;
    await ok(svc(bob, ['team', 'accept', token]));
    const team = JSON.parse((await ok(svc(bob, ['team', 'show', '--json']))).stdout) as { name: string; members: Array<{ email: string; role: string }> };
    expect(team.name).toBe('Acme');
    expect(team.members.map((member) => [member.email, member.role]).sort()).toEqual([
      ['ada@example.com', 'owner'],
      ['bob@example.com', 'member'],
    ]);

    // Each scans privately on the team's plan and sees the other's scan.
    const adaScan = JSON.parse((await ok(svc(ada, ['scan', '--remote', target, '--format', 'json']))).stdout) as { reports: unknown[] };
    expect(adaScan.reports).toHaveLength(1);
    await ok(svc(bob, ['scan', '--remote', target, '--format', 'json']));
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const history = await fetch(`${base}/user/scans`, { headers: { authorization: `Bearer ${await sessionToken(email)}` } });
      const { data } = (await history.json()) as { data: { items: Array<{ user_id: string; visibility: string; org_id: string | null }> } };
      expect(data.items).toHaveLength(2);
      expect(new Set(data.items.map((scan) => scan.user_id)).size).toBe(2);
      expect(data.items.every((scan) => scan.visibility === 'private' && scan.org_id !== null)).toBe(true);
    }

    const usage = JSON.parse((await ok(svc(ada, ['team', 'usage', '--json']))).stdout) as {
      totals: { scans_used: number; members_count: number };
      members: Array<{ email: string; scans_used: number }>;
    };
    expect(usage.totals).toEqual({ scans_used: 2, members_count: 2 });
    expect(usage.members.map((member) => member.scans_used)).toEqual([1, 1]);

    // Ada hands the team to Bob and leaves it.
    await ok(svc(ada, ['team', 'transfer', 'bob@example.com']));
    const afterTransfer = JSON.parse((await ok(svc(bob, ['team', 'show', '--json']))).stdout) as { members: Array<{ email: string; role: string }> };
    expect(afterTransfer.members.find((member) => member.email === 'bob@example.com')?.role).toBe('owner');
    await ok(svc(ada, ['team', 'leave']));
    const gone = await svc(ada, ['team', 'show']);
    expect(gone.code).toBe(2);
    expect(gone.stderr.trim().split('\n')).toHaveLength(1);
    const bobsTeam = JSON.parse((await ok(svc(bob, ['team', 'show', '--json']))).stdout) as { members: unknown[] };
    expect(bobsTeam.members).toHaveLength(1);
  }, 120_000);
});
