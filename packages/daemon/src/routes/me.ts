import { ACCOUNT_TIERS, ServiceError, successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { requireSession } from '../middleware/session.js';
import { createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';
import type { NotificationSettings, User } from '../store/repositories.js';

const notifications = z.object({
  scan_completed: z.boolean(),
  new_location: z.boolean(),
  invites: z.boolean(),
});

const profile = z
  .object({
    email: z.string(),
    user_id: z.string(),
    tier: z.enum(ACCOUNT_TIERS),
    org_id: z.string().optional().openapi({ description: 'Only when the caller belongs to a team (spec 2.6)' }),
    display_name: z.string().nullable(),
    notifications,
  })
  .openapi('Profile');

const me = createRoute({
  method: 'get',
  path: '/me',
  summary: 'The signed-in user',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  responses: {
    200: jsonContent(envelope(profile), 'The profile (spec 2.6)'),
    ...errorResponses('UNAUTHORIZED', 'INTERNAL_ERROR'),
  },
});

const flag = (what: string) => z.boolean({ error: `notifications.${what} must be true or false` });

const updateMe = createRoute({
  method: 'put',
  path: '/me',
  summary: 'Update the display name and notification settings',
  description:
    'Every field is optional and only the fields given change. `display_name`: 1–100 characters, or null to clear it. ' +
    '`notifications`: `scan_completed` (stored for a scan-finished mail; svcd sends none yet), `new_location` (mail when an API key is used from a new network), ' +
    '`invites` (team invites to this address are mailed; when off, the inviter gets the token to pass on). Unknown fields are 400 INVALID_FIELD.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: {
    body: {
      required: true,
      ...jsonContent(
        z.strictObject({
          display_name: z
            .string({ error: 'display_name must be a string or null' })
            .trim()
            .min(1, { error: 'display_name must not be empty (null clears it)' })
            .max(100, { error: 'display_name may have at most 100 characters' })
            .nullable()
            .optional(),
          notifications: z
            .strictObject({ scan_completed: flag('scan_completed').optional(), new_location: flag('new_location').optional(), invites: flag('invites').optional() })
            .optional(),
        }),
        'The fields to change',
      ),
    },
  },
  responses: {
    200: jsonContent(envelope(profile), 'The profile after the change'),
    ...errorResponses('UNAUTHORIZED', 'INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'),
  },
});

async function profileOf(c: Context<AppEnv>, user: User): Promise<z.infer<typeof profile>> {
  const membership = await c.get('services').teams.membershipOf(user.id);
  return {
    email: user.email,
    user_id: user.id,
    tier: user.tier,
    ...(membership === undefined ? {} : { org_id: membership.teamId }),
    display_name: user.displayName,
    notifications: { scan_completed: user.notifications.scanCompleted, new_location: user.notifications.newLocation, invites: user.notifications.invites },
  };
}

export const meRoutes = createRouter()
  .openapi(me, async (c) => {
    return c.json(successEnvelope(await profileOf(c, c.get('user'))), 200);
  })
  .openapi(updateMe, async (c) => {
    const body = c.req.valid('json');
    const changes: { displayName?: string | null; notifications?: Partial<NotificationSettings> } = {};
    if (body.display_name !== undefined) changes.displayName = body.display_name;
    if (body.notifications !== undefined) {
      const { scan_completed, new_location, invites } = body.notifications;
      changes.notifications = {
        ...(scan_completed === undefined ? {} : { scanCompleted: scan_completed }),
        ...(new_location === undefined ? {} : { newLocation: new_location }),
        ...(invites === undefined ? {} : { invites }),
      };
    }
    const user = await c.get('services').users.updateProfile(c.get('session').userId, changes);
    if (user === undefined) throw new ServiceError('UNAUTHORIZED');
    return c.json(successEnvelope(await profileOf(c, user)), 200);
  });
