import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSmtpServer, type TestSmtpServer } from '../test/smtp.js';
import { describeSmtpError, MailDeliveryError, SmtpMailTransport } from './smtp.js';

let smtp: TestSmtpServer | undefined;
afterEach(async () => {
  await smtp?.close();
  smtp = undefined;
});

const message = { to: 'ada@example.com', subject: 'Your svc sign-in code: 123456', text: 'Your svc sign-in code is 123456.\n' };

/** A TCP server that accepts connections and never says a word, like a firewall that swallows packets. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('SmtpMailTransport', () => {
  it('delivers the message over SMTP with the configured sender', async () => {
    smtp = await startTestSmtpServer();
    await new SmtpMailTransport({ url: smtp.url, from: 'svc <svc@example.org>' }).send(message);
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail?.from).toBe('svc@example.org');
    expect(mail?.to).toEqual(['ada@example.com']);
    expect(mail?.raw).toMatch(/^From: svc <svc@example\.org>\r?$/m);
    expect(mail?.raw).toMatch(/^To: ada@example\.com\r?$/m);
    expect(mail?.raw).toMatch(/^Subject: Your svc sign-in code: 123456\r?$/m);
    expect(mail?.raw).toContain('Your svc sign-in code is 123456.');
  });

  it('turns a refused recipient into a MailDeliveryError whose reason has the reply code', async () => {
    smtp = await startTestSmtpServer({ refuseRecipient: () => ({ message: 'relay denied by policy', responseCode: 550 }) });
    const sending = new SmtpMailTransport({ url: smtp.url, from: 'svc@example.org' }).send(message);
    const error = await sending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(MailDeliveryError);
    const delivery = error as MailDeliveryError;
    expect(delivery.reason).toMatch(/relay denied by policy/);
    expect(delivery.reason).toMatch(/reply 550/);
    expect(delivery.reason).toMatch(/command RCPT TO/);
    // The message is what a caller could see; it names nothing of the server.
    expect(delivery.message).toBe('The mail server did not accept the message.');
    expect(smtp.received).toHaveLength(0);
  });

  it('fails fast when nothing listens on the port', async () => {
    const closed = await silentServer();
    const { port } = closed;
    await closed.close();
    const started = Date.now();
    await expect(new SmtpMailTransport({ url: `smtp://127.0.0.1:${port}`, from: 'svc@example.org' }).send(message)).rejects.toThrow(MailDeliveryError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on a server that never greets after the timeout, not nodemailer’s minutes', async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const sending = new SmtpMailTransport({ url: `smtp://127.0.0.1:${silent.port}`, from: 'svc@example.org', timeoutMs: 300 }).send(message);
      const error = await sending.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect((error as MailDeliveryError).reason).toMatch(/greeting|timeout/i);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });

  it('describes errors for the log with the SMTP fields it finds', () => {
    const error = Object.assign(new Error('Invalid login'), { code: 'EAUTH', command: 'AUTH PLAIN', responseCode: 535 });
    expect(describeSmtpError(error)).toBe('Invalid login; code EAUTH; command AUTH PLAIN; reply 535');
    expect(describeSmtpError('plain text')).toBe('plain text');
  });
});
