import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, expectError, userWithSession } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';

let server: TestServer;

afterEach(async () => {
  await server.close();
});

interface Profile {
  email: string;
  user_id: string;
  tier: string;
  org_id?: string;
  display_name: string | null;
  notifications: { scan_completed: boolean; new_location: boolean; invites: boolean };
}

async function profile(response: Response): Promise<Profile> {
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Profile }).data;
}

const userRow = (id: string) => server.db.prepare('SELECT * FROM users WHERE id = ?').get(id);

describe('GET /me and PUT /me', () => {
  it('reads the profile with every notification on by default, and changes only the fields given', async () => {
    server = await startTestServer();
    const { user, token } = await userWithSession(server, 'dev', 'ada@example.com');
    expect(await profile(await call(server, 'GET', '/me', token))).toEqual({
      email: 'ada@example.com',
      user_id: user.id,
      tier: 'dev',
      display_name: null,
      notifications: { scan_completed: true, new_location: true, invites: true },
    });

    const named = await profile(await call(server, 'PUT', '/me', token, { display_name: '  Ada Lovelace ' }));
    expect(named.display_name).toBe('Ada Lovelace');
    expect(named.notifications).toEqual({ scan_completed: true, new_location: true, invites: true });

    const quiet = await profile(await call(server, 'PUT', '/me', token, { notifications: { new_location: false } }));
    expect(quiet).toMatchObject({ display_name: 'Ada Lovelace', notifications: { scan_completed: true, new_location: false, invites: true } });
    expect(await profile(await call(server, 'GET', '/me', token))).toEqual(quiet);

    const cleared = await profile(await call(server, 'PUT', '/me', token, { display_name: null, notifications: { invites: false, scan_completed: false } }));
    expect(cleared).toMatchObject({ display_name: null, notifications: { scan_completed: false, new_location: false, invites: false } });
    expect(await profile(await call(server, 'PUT', '/me', token, {}))).toEqual(cleared);
  });

  it('refuses unknown fields, non-booleans, empty and long names with 400 INVALID_FIELD and changes nothing', async () => {
    server = await startTestServer();
    const { user, token } = await userWithSession(server, 'free');
    const before = userRow(user.id);
    const cases: Array<[unknown, string]> = [
      [{ nickname: 'x' }, '(body)'],
      [{ notifications: { new_location: 'off' } }, 'notifications.new_location'],
      [{ notifications: { marketing: true } }, 'notifications'],
      [{ notifications: true }, 'notifications'],
      [{ display_name: '   ' }, 'display_name'],
      [{ display_name: 'x'.repeat(101) }, 'display_name'],
      [{ display_name: 42 }, 'display_name'],
    ];
    for (const [body, field] of cases) {
      const error = await expectError(await call(server, 'PUT', '/me', token, body), 400, 'INVALID_FIELD');
      expect({ body, field: error.details?.['field'] }).toEqual({ body, field });
    }
    await expectError(await call(server, 'PUT', '/me', token, undefined, { 'content-type': 'application/json' }), 400, 'INVALID_FIELD');
    expect(userRow(user.id)).toEqual(before);
  });

  it('refuses API keys with the 401 that names the session', async () => {
    server = await startTestServer();
    const { user, token } = await userWithSession(server, 'dev');
    const { key } = await createKey(server, token);
    const before = userRow(user.id);
    const error = await expectError(await call(server, 'PUT', '/me', key, { display_name: 'Key' }), 401, 'UNAUTHORIZED');
    expect(error.details).toEqual({ credential: 'session' });
    expect(userRow(user.id)).toEqual(before);
  });

  it('sends no new-location mail while new_location is off, and does again once it is on', async () => {
    server = await startTestServer(() => ({ trustedProxies: ['127.0.0.1/32'] }));
    const { token } = await userWithSession(server, 'dev', 'grace@example.com');
    const { key } = await createKey(server, token);
    const outbox = () => server.db.prepare<[], { to: string; subject: string }>('SELECT "to", subject FROM outbox ORDER BY id').all();
    const use = (ip: string) => call(server, 'GET', '/api/v1/keys/self', key, undefined, { 'x-forwarded-for': ip });

    await profile(await call(server, 'PUT', '/me', token, { notifications: { new_location: false } }));
    expect((await use('203.0.113.5')).status).toBe(200);
    expect(outbox()).toEqual([]);

    await profile(await call(server, 'PUT', '/me', token, { notifications: { new_location: true } }));
    // The network seen while the mail was off stays seen; a new one is reported.
    expect((await use('203.0.113.6')).status).toBe(200);
    expect(outbox()).toEqual([]);
    expect((await use('198.51.100.9')).status).toBe(200);
    expect(outbox()).toEqual([{ to: 'grace@example.com', subject: expect.stringContaining('new location (198.51.100.9)') }]);
  });
});
