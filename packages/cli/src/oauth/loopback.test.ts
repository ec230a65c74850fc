import { describe, expect, it } from 'vitest';
import { SignInError, startLoopback } from './loopback.js';

// The redirect listener on its own: what it answers, what it accepts, and that it is gone afterwards.

describe('the loopback redirect listener', () => {
  it('listens on 127.0.0.1, ignores other paths, takes the one answer with the right state, and closes', async () => {
    const loopback = await startLoopback({ state: 'st-1', signal: new AbortController().signal });
    try {
      expect(loopback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const favicon = await fetch(new URL('/favicon.ico', loopback.redirectUrl));
      expect(favicon.status).toBe(404);
      await favicon.body?.cancel();

      const answer = await fetch(`${loopback.redirectUrl}?code=c0de&state=st-1`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await answer.text()).toBe('svc: signed in. You can close this tab and go back to the terminal.\n');
      expect(await loopback.code).toBe('c0de');
      // One answer only: the listener no longer accepts connections.
      await expect(fetch(`${loopback.redirectUrl}?code=other&state=st-1`)).rejects.toThrow();
    } finally {
      await loopback.close();
    }
  });

  it('answers an error in plain text, never as markup, and rejects', async () => {
    const loopback = await startLoopback({ state: 'st-2', signal: new AbortController().signal });
    try {
      const answer = await fetch(`${loopback.redirectUrl}?error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script>')}&state=st-2`);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      await expect(loopback.code).rejects.toThrow(new SignInError('the authorization server answered access_denied: <script>alert(1)</script>'));
      await answer.body?.cancel();
    } finally {
      await loopback.close();
    }
  });

  it('a missing code is an error; Ctrl-C ends the wait', async () => {
    const first = await startLoopback({ state: 's', signal: new AbortController().signal });
    await (await fetch(`${first.redirectUrl}?state=s`)).body?.cancel();
    await expect(first.code).rejects.toThrow('the answer has no authorization code');
    await first.close();

    const controller = new AbortController();
    const second = await startLoopback({ state: 's', signal: controller.signal });
    controller.abort();
    await expect(second.code).rejects.toThrow('interrupted');
    await second.close();
  });
});
