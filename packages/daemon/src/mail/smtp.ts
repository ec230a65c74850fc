import { createTransport, type Transporter } from 'nodemailer';
import type { MailMessage, MailTransport } from './transport.js';

/**
 * A message the mail server did not take. `reason` is for the operator's log only: it can name the server, the
 * account or the recipient policy, none of which an HTTP caller should learn.
 */
export class MailDeliveryError extends Error {
  override readonly name = 'MailDeliveryError';

  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super('The mail server did not accept the message.', options);
  }
}

export interface SmtpMailOptions {
  /**
   * SVC_SMTP_URL: `smtps://` is TLS from the start (port 465); `smtp://` upgrades with STARTTLS when the server
   * offers it. nodemailer reads further options from the query string (`?requireTLS=true`, `?socketTimeout=60000`).
   */
  url: string;
  /** SVC_MAIL_FROM. */
  from: string;
  /** Upper bound for connecting, for the greeting, and for each later wait on the server. */
  timeoutMs?: number;
}

/**
 * nodemailer waits up to 2 minutes to connect and 10 minutes on a silent socket by default; a sign-in request
 * holds its HTTP caller for the whole send, so a dead server must fail it in seconds instead. The URL's query
 * string may still set other values: it is the operator's to tune.
 */
export const SMTP_TIMEOUT_MS = 15_000;

/**
 * Mail over SMTP (nodemailer), chosen when SVC_SMTP_URL is set. One connection per message: the daemon sends a
 * handful of messages an hour, which does not pay for a pool and its idle connections.
 */
export class SmtpMailTransport implements MailTransport {
  readonly #transporter: Transporter;
  readonly #from: string;

  constructor({ url, from, timeoutMs = SMTP_TIMEOUT_MS }: SmtpMailOptions) {
    this.#transporter = createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    this.#from = from;
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.#transporter.sendMail({
        from: this.#from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    } catch (error) {
      throw new MailDeliveryError(describeSmtpError(error), { cause: error });
    }
  }
}

/** What the operator needs from a nodemailer error: its message plus the SMTP command and reply code. */
export function describeSmtpError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, command, responseCode } = error as Error & { code?: unknown; command?: unknown; responseCode?: unknown };
  const parts = [error.message];
  if (typeof code === 'string') parts.push(`code ${code}`);
  if (typeof command === 'string') parts.push(`command ${command}`);
  if (typeof responseCode === 'number') parts.push(`reply ${responseCode}`);
  return parts.join('; ');
}
