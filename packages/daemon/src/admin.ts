import { ACCOUNT_TIERS, parseTier, type AccountTier } from '@svc/core';
import { emailAddress } from './auth/email.js';
import { migrate, schemaVersion, type SqliteDatabase } from './store/database.js';
import type { Services } from './services.js';

// `svcd admin …`: operator commands that work on the database directly, with or without a running daemon
// (WAL and busy_timeout let both use the file). Each returns the text to print or throws AdminError.

export class AdminError extends Error {
  override readonly name = 'AdminError';
}

export function adminMigrate(db: SqliteDatabase): string {
  const applied = migrate(db);
  const version = schemaVersion(db);
  return applied.length === 0
    ? `database is up to date (schema version ${version})`
    : `applied migration${applied.length === 1 ? '' : 's'} ${applied.join(', ')} (schema version ${version})`;
}

export async function adminCreateUser(services: Services, email: string, tierInput = 'free'): Promise<string> {
  const user = await services.users.create({ email: checkEmail(email), tier: accountTier(tierInput), now: services.clock() });
  return `created ${user.email} (${user.tier}, id ${user.id})`;
}

export async function adminSetTier(services: Services, email: string, tierInput: string): Promise<string> {
  const user = await services.users.setTier(checkEmail(email), accountTier(tierInput));
  if (user === undefined) throw new AdminError(`no user with the email ${email}`);
  return `${user.email} is now on the ${user.tier} tier`;
}

export async function adminToken(services: Services, email: string): Promise<string> {
  const user = await services.users.findByEmail(checkEmail(email));
  if (user === undefined) throw new AdminError(`no user with the email ${email}; create it with \`svcd admin create-user\``);
  return (await services.sessions.issue(user)).token;
}

export async function adminOutbox(services: Services): Promise<string> {
  const messages = await services.outbox.list();
  if (messages.length === 0) return 'the outbox is empty';
  return messages
    .map((message) => `#${message.id} ${message.createdAt} to ${message.to}\nSubject: ${message.subject}\n\n${message.text.trimEnd()}\n`)
    .join('\n');
}

function checkEmail(email: string): string {
  const result = emailAddress.safeParse(email);
  if (!result.success) throw new AdminError(`"${email}" is not an email address`);
  return result.data;
}

function accountTier(input: string): AccountTier {
  const tier = parseTier(input);
  if (tier === undefined || tier === 'anonymous') throw new AdminError(`unknown tier "${input}"; choose one of ${ACCOUNT_TIERS.join(', ')}`);
  return tier;
}
