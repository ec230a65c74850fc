import { z } from 'zod';

/** An email address as the API and `svcd admin` accept it; 254 is the SMTP path limit (RFC 5321 4.5.3.1.3). */
export const emailAddress = z
  .string({ error: 'email is required' })
  .trim()
  .pipe(z.email({ error: 'email must be an email address' }).max(254, { error: 'email is too long' }));
