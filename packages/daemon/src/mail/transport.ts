import type { OutboxRepository } from '../store/repositories.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Where the daemon's mail goes. An SMTP transport (nodemailer, when SVC_SMTP_URL is set) implements the same interface. */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
}

/**
 * The embedded default: mail is queued in the outbox table, where `svcd admin outbox` shows it. A
 * self-hosted daemon without SMTP thus still lets its operator hand out sign-in codes.
 */
export class OutboxMailTransport implements MailTransport {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.outbox.add({ ...message, now: this.clock() });
  }
}
