import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message as the server received it (headers and body). */
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export interface TestSmtpOptions {
  /** Refuses a recipient the way a real server does (an error with responseCode); undefined accepts it. */
  refuseRecipient?: (address: SMTPServerAddress, session: SMTPServerSession) => { message: string; responseCode: number } | undefined;
}

/**
 * A real SMTP server (the smtp-server package) on 127.0.0.1 without TLS or auth, so the daemon's nodemailer
 * transport talks real SMTP to it. STARTTLS is disabled: its self-signed certificate would fail verification.
 */
export async function startTestSmtpServer(options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, session, callback) {
      const refusal = options.refuseRecipient?.(address, session);
      if (refusal === undefined) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.responseCode }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          from: from === false ? '' : from.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The six-digit code of a sign-in mail. */
export function codeFromMail(mail: ReceivedMail | undefined): string {
  const code = /sign-in code is (\d{6})\b/.exec(mail?.raw ?? '')?.[1];
  if (code === undefined) throw new Error('no sign-in code in the mail');
  return code;
}
