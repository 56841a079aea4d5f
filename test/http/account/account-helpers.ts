import type { TestApp } from '../../helpers/build-test-app.js';
import type { TestUser } from '../../helpers/factories.js';
import type { ReceivedMail } from '../../helpers/smtp-server.js';

/** A fresh single-use grant for the user, by password. */
export async function grantFor(t: TestApp, u: TestUser): Promise<string> {
  const res = await t.post('/api/v1/me/delete/reauth/', { password: u.password }, { token: u.token, idempotencyKey: false });
  if (res.status !== 200) throw new Error(`reauth failed: ${res.status} ${res.text}`);
  return res.body.reauth_token;
}

/** One header of a received message, unfolded (RFC 5322 continuation lines joined). */
export function mailHeader(mail: ReceivedMail, name: string): string | undefined {
  const head = mail.raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The six-digit code in a deletion-code mail or SMS. */
export function codeIn(text: string): string {
  const m = /\b(\d{6})\b/.exec(text);
  if (!m) throw new Error(`no code in: ${text}`);
  return m[1];
}

/** Jobs of this name waiting for a later start (the onboarding follow-up), made due now. */
export async function makeDelayedJobsDue(t: TestApp, name: string): Promise<number> {
  const rows = await t.db.query(
    `UPDATE ${t.queue.schema}.job SET start_after = now() WHERE name = $1 AND state = 'created' AND start_after > now() RETURNING id`,
    [name],
  );
  return rows.length;
}

/** States of the jobs of this name whose payload is about this user, oldest first. */
export async function jobStates(t: TestApp, name: string, userId: string): Promise<string[]> {
  const rows = await t.db.query<{ state: string }>(
    `SELECT state FROM ${t.queue.schema}.job WHERE name = $1 AND data->>'userId' = $2 ORDER BY created_on, id`,
    [name, userId],
  );
  return rows.map((r) => r.state);
}
