/** The deletion step-up: password or one-time code (real mail over SMTP, SMS through a Twilio stand-in), its limits. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser, type TestUser } from '../../helpers/factories.js';
import { startProviderServer, type TestProviderServer } from '../../helpers/provider-server.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';
import { codeIn } from './account-helpers.js';

let t: TestApp;
let smtp: TestSmtpServer;
let sms: TestProviderServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  sms = await startProviderServer();
  t = await buildTestApp({
    worker: true,
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Memory Book <books@example.test>',
      TWILIO_ACCOUNT_SID: 'AC0123456789',
      TWILIO_AUTH_TOKEN: 'test-auth-token',
      TWILIO_FROM_NUMBER: '+15550000000',
      TWILIO_API_BASE: sms.url,
    },
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
  await sms.close();
});

const REAUTH = '/api/v1/me/delete/reauth/';
const OTP = '/api/v1/me/delete/reauth/otp/';
const noKey = (u: TestUser) => ({ token: u.token, idempotencyKey: false as const });

async function mailedCode(u: TestUser): Promise<string> {
  const mail = await waitForMailTo(u.email);
  return codeIn(mail.text);
}

async function waitForMailTo(email: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = smtp.received.filter((m) => m.to.includes(email));
    if (found.length) return found[found.length - 1];
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('POST /me/delete/reauth/ with a password', () => {
  it('answers a single-use grant for 300 seconds, without an Idempotency-Key', async () => {
    const u = await newUser(t);
    const res = await t.post(REAUTH, { password: u.password }, noKey(u));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ reauth_token: expect.stringMatching(/^reauth_[0-9A-Za-z]{40}$/), expires_in: 300 });
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    // Only its hash is stored.
    const rows = await t.db.query<{ token_hash: Uint8Array; expires_in: number }>(
      `SELECT token_hash, round(extract(epoch FROM expires_at - created_at))::int AS expires_in FROM reauth_grants WHERE user_id = $1`,
      [u.user.id],
    );
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0].token_hash).toString('utf8')).not.toContain(res.body.reauth_token);
    expect(rows[0].expires_in).toBe(300);
  });

  it('works from a browser session too', async () => {
    const u = await newUser(t);
    const res = await t.post(REAUTH, { password: u.password }, { session: await newSession(t, u), idempotencyKey: false });
    expect(res.status).toBe(200);
  });

  it('a wrong password is 403 invalid_credentials', async () => {
    const u = await newUser(t);
    const res = await t.post(REAUTH, { password: 'not the password' }, noKey(u));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('invalid_credentials');
  });

  it('takes exactly one of password and otp (422 otherwise)', async () => {
    const u = await newUser(t);
    for (const body of [{}, { password: u.password, otp: '123456' }, { pin: '1' }]) {
      const res = await t.post(REAUTH, body, noKey(u));
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc[0]).toBe('body');
    }
  });

  it('allows five tries per 15 minutes, then 429 rate_limited with Retry-After (per user)', async () => {
    const u = await newUser(t);
    const other = await newUser(t);
    for (let i = 0; i < 4; i++) expect((await t.post(REAUTH, { password: 'wrong' }, noKey(u))).status).toBe(403);
    // The fifth try may still succeed; the sixth is refused even with the right password.
    expect((await t.post(REAUTH, { password: u.password }, noKey(u))).status).toBe(200);
    const limited = await t.post(REAUTH, { password: u.password }, noKey(u));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    const wait = Number(limited.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(900);
    // Another user has a budget of their own.
    expect((await t.post(REAUTH, { password: other.password }, noKey(other))).status).toBe(200);
  });
});

describe('POST /me/delete/reauth/otp/ and {otp}', () => {
  it('mails a six-digit code (masked address, ten minutes); the code buys a grant once', async () => {
    const u = await newUser(t, { firstName: 'Ada' });
    const sent = await t.post(OTP, undefined, noKey(u));
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ channel: 'email', sent_to: `${u.email[0]}••••@example.test`, expires_in: 600 });
    const mail = await waitForMailTo(u.email);
    expect(mail.from).toBe('books@example.test');
    expect(mail.subject).toContain('delete');
    const code = codeIn(mail.text);
    // Stored as an HMAC, never the code itself.
    const [row] = await t.db.query<{ code_hash: Uint8Array; attempts: number }>(`SELECT code_hash, attempts FROM reauth_codes WHERE user_id = $1`, [u.user.id]);
    expect(Buffer.from(row.code_hash).toString('hex')).not.toContain(Buffer.from(code).toString('hex'));

    const ok = await t.post(REAUTH, { otp: code }, noKey(u));
    expect(ok.status).toBe(200);
    expect(ok.body.expires_in).toBe(300);
    const again = await t.post(REAUTH, { otp: code }, noKey(u));
    expect(again.status).toBe(403);
    expect(again.body.code).toBe('invalid_credentials');
  });

  it('a code is good for five attempts', async () => {
    const u = await newUser(t);
    expect((await t.post(OTP, { channel: 'email' }, noKey(u))).status).toBe(202);
    const code = await mailedCode(u);
    const wrong = code === '000000' ? '000001' : '000000';
    // Five wrong attempts spread over time (the route allows five tries per 15 minutes).
    for (let i = 0; i < 5; i++) {
      await t.db.query('DELETE FROM rate_limit_hits WHERE bucket = $1', [`account_reauth:${u.user.id}`]);
      expect((await t.post(REAUTH, { otp: wrong }, noKey(u))).body.code).toBe('invalid_credentials');
    }
    await t.db.query('DELETE FROM rate_limit_hits WHERE bucket = $1', [`account_reauth:${u.user.id}`]);
    expect((await t.post(REAUTH, { otp: code }, noKey(u))).status).toBe(403);
    const [row] = await t.db.query<{ attempts: number }>(`SELECT attempts FROM reauth_codes WHERE user_id = $1`, [u.user.id]);
    expect(row.attempts).toBe(5);
  });

  it('a code expires after ten minutes', async () => {
    const u = await newUser(t);
    expect((await t.post(OTP, {}, noKey(u))).status).toBe(202);
    const code = await mailedCode(u);
    await t.db.query(
      `UPDATE reauth_codes SET created_at = created_at - interval '10 minutes 1 second', expires_at = expires_at - interval '10 minutes 1 second' WHERE user_id = $1`,
      [u.user.id],
    );
    const res = await t.post(REAUTH, { otp: code }, noKey(u));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('invalid_credentials');
  });

  it('a new code replaces the last one', async () => {
    const u = await newUser(t);
    expect((await t.post(OTP, {}, noKey(u))).status).toBe(202);
    const first = await mailedCode(u);
    const before = smtp.received.length;
    expect((await t.post(OTP, {}, noKey(u))).status).toBe(202);
    await smtp.waitFor(before + 1);
    const second = await mailedCode(u);
    if (first !== second) expect((await t.post(REAUTH, { otp: first }, noKey(u))).status).toBe(403);
    expect((await t.post(REAUTH, { otp: second }, noKey(u))).status).toBe(200);
  });

  it('sends the code by SMS to the phone on the account', async () => {
    const u = await newUser(t);
    await t.db.query(`UPDATE users SET phone_number = '+15551234567' WHERE id = $1`, [u.user.id]);
    const res = await t.post(OTP, { channel: 'sms' }, noKey(u));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ channel: 'sms', sent_to: '+•••••••••67', expires_in: 600 });
    const [msg] = await sms.waitFor(1, (r) => r.form.To === '+15551234567');
    expect(msg.form.From).toBe('+15550000000');
    expect((await t.post(REAUTH, { otp: codeIn(msg.form.Body) }, noKey(u))).status).toBe(200);
  });

  it('SMS without a phone number is 400 validation_failed; an unknown channel 422', async () => {
    const u = await newUser(t);
    const res = await t.post(OTP, { channel: 'sms' }, noKey(u));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: { field: 'channel' } });
    expect((await t.post(OTP, { channel: 'pigeon' }, noKey(u))).status).toBe(422);
  });

  it('sending codes is limited to five per 15 minutes', async () => {
    const u = await newUser(t);
    for (let i = 0; i < 5; i++) expect((await t.post(OTP, {}, noKey(u))).status).toBe(202);
    const res = await t.post(OTP, {}, noKey(u));
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('needs a signed-in caller', async () => {
    expect((await t.post(OTP, {}, { idempotencyKey: false })).status).toBe(401);
    expect((await t.post(REAUTH, { password: 'x' }, { idempotencyKey: false })).status).toBe(401);
  });
});
