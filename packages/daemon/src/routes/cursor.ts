import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField } from '@svc/core';
import { z } from '@hono/zod-openapi';

// Every list of the daemon pages with these cursors. A cursor is base64url(JSON {k: list and sort, p: position})
// + '.' + a truncated HMAC under a key derived from the JWT secret, so it is opaque, pages stay stable (it holds the
// sort keys of the last item, not an offset), and an edited or foreign cursor is refused (400, field `cursor`)
// rather than silently read as some other position.

export const pageQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int({ error: 'limit must be a whole number' })
    .min(1, { error: 'limit must be at least 1' })
    .max(100, { error: 'limit may be at most 100' })
    .default(20)
    .openapi({ description: 'Items per page, 1–100, default 20.' }),
  cursor: z.string().max(1000, { error: 'The cursor is malformed; use next_cursor as returned.' }).optional().openapi({ description: 'The `next_cursor` of the previous page.' }),
});

const SIGNATURE_BYTES = 16;

function sign(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

export function encodeSignedCursor(key: string, kind: string, position: unknown): string {
  const payload = Buffer.from(JSON.stringify({ k: kind, p: position })).toString('base64url');
  return `${payload}.${sign(key, payload).toString('base64url')}`;
}

export function decodeSignedCursor<T extends z.ZodType>(key: string, kind: string, cursor: string, schema: T): z.infer<T> {
  const invalid = (message: string) => invalidField('cursor', message);
  const [payload, signature, extra] = cursor.split('.');
  if (payload === undefined || signature === undefined || extra !== undefined) throw invalid('The cursor is malformed; use next_cursor as returned.');
  // Compared as text: base64url decoding skips characters outside its alphabet and the unused bits of the last
  // character, so comparing decoded bytes would accept spellings of the signature the daemon never issued.
  const given = Buffer.from(signature);
  const expected = Buffer.from(sign(key, payload).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('The cursor is invalid or was altered; use next_cursor as returned.');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('The cursor is malformed; use next_cursor as returned.');
  }
  const parsed = z.object({ k: z.string(), p: schema }).safeParse(decoded);
  if (!parsed.success) throw invalid('The cursor is malformed; use next_cursor as returned.');
  const { k, p } = parsed.data as { k: string; p: z.infer<T> };
  if (k !== kind) throw invalid(`This cursor belongs to another listing (${k}); a cursor only continues the list and sort it came from.`);
  return p;
}
