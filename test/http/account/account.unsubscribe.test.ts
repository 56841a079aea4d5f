/** POST /me/unsubscribe/{stream}/ and the token route of onboarding mail. */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { newSession, newUser } from '../../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});

/** An onboarding link token for the user, as the welcome mail carries it. */
async function onboardingToken(userId: string): Promise<string> {
  await t.services.mailStreams.startOnboarding(userId);
  const [job] = await t.db.query<{ data: { headers: Record<string, string> } }>(
    `SELECT data FROM ${t.queue.schema}.job WHERE name = 'mail.send' AND data->>'userId' = $1 ORDER BY created_on LIMIT 1`,
    [userId],
  );
  return /token=([0-9a-f-]{36})/.exec(job.data.headers['List-Unsubscribe'])![1];
}

const optedOut = (userId: string) => t.db.query<{ stream: string }>(`SELECT stream FROM mail_stream_optouts WHERE user_id = $1 ORDER BY stream`, [userId]);

describe('POST /me/unsubscribe/{stream}/', () => {
  it('leaves each stream; a repeat answers already_unsubscribed', async () => {
    const u = await newUser(t);
    for (const stream of ['onboarding', 'digests', 'activity_reminders']) {
      const first = await t.post(`/api/v1/me/unsubscribe/${stream}/`, {}, { token: u.token });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ stream, unsubscribed: true, already_unsubscribed: false });
      const again = await t.post(`/api/v1/me/unsubscribe/${stream}/`, undefined, { token: u.token });
      expect(again.body).toEqual({ stream, unsubscribed: true, already_unsubscribed: true });
    }
    expect((await optedOut(u.user.id)).map((r) => r.stream)).toEqual(['activity_reminders', 'digests', 'onboarding']);
  });

  it('an unknown stream is 400 unknown_stream with details.offered', async () => {
    const u = await newUser(t);
    const res = await t.post('/api/v1/me/unsubscribe/newsletters/', {}, { token: u.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unknown_stream');
    expect(res.body.details.offered).toEqual(['onboarding', 'digests', 'activity_reminders']);
  });

  it('needs an Idempotency-Key and a caller; a replay is answered from the store; sessions work', async () => {
    const u = await newUser(t);
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: u.token, idempotencyKey: false })).status).toBe(428);
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, {})).status).toBe(401);
    const key = crypto.randomUUID();
    expect((await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: u.token, idempotencyKey: key })).body.already_unsubscribed).toBe(false);
    const replay = await t.post('/api/v1/me/unsubscribe/digests/', {}, { token: u.token, idempotencyKey: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.already_unsubscribed).toBe(false);
    const s = await newSession(t, u);
    expect((await t.post('/api/v1/me/unsubscribe/onboarding/', {}, { session: s })).status).toBe(200);
  });
});

describe('POST /me/unsubscribe/{stream}/token/', () => {
  it('checks the stream first (400), then the token (401)', async () => {
    const u = await newUser(t);
    const token = await onboardingToken(u.user.id);
    const notSupported = await t.post(`/api/v1/me/unsubscribe/digests/token/?token=not-a-token`, undefined, { idempotencyKey: false });
    expect(notSupported.status).toBe(400);
    expect(notSupported.body.code).toBe('stream_not_token_supported');
    // A real token does not make another stream work either.
    expect((await t.post(`/api/v1/me/unsubscribe/activity_reminders/token/?token=${token}`, undefined, { idempotencyKey: false })).body.code).toBe(
      'stream_not_token_supported',
    );
    const unknown = await t.post(`/api/v1/me/unsubscribe/newsletters/token/`, undefined, { idempotencyKey: false });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_stream');
    for (const url of ['/api/v1/me/unsubscribe/onboarding/token/', `/api/v1/me/unsubscribe/onboarding/token/?token=${crypto.randomUUID()}`, '/api/v1/me/unsubscribe/onboarding/token/?token=x']) {
      const res = await t.post(url, undefined, { idempotencyKey: false });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
    expect(await optedOut(u.user.id)).toEqual([]);
  });

  it('leaves onboarding with the token alone: no credential, no Idempotency-Key; a repeat says already_unsubscribed', async () => {
    const u = await newUser(t);
    const token = await onboardingToken(u.user.id);
    const url = `/api/v1/me/unsubscribe/onboarding/token/?token=${token}`;
    const res = await t.post(url, undefined, { idempotencyKey: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ stream: 'onboarding', unsubscribed: true, already_unsubscribed: false });
    expect((await t.post(url, {}, { idempotencyKey: false })).body.already_unsubscribed).toBe(true);
    // Upper-case hex is the same UUID.
    expect((await t.post(url.toUpperCase().replace('/API/V1/ME/UNSUBSCRIBE/ONBOARDING/TOKEN/?TOKEN=', '/api/v1/me/unsubscribe/onboarding/token/?token='), undefined, { idempotencyKey: false })).status).toBe(200);
    expect((await optedOut(u.user.id)).map((r) => r.stream)).toEqual(['onboarding']);
  });

  it('takes the one-click form post of RFC 8058 (urlencoded and multipart)', async () => {
    const u = await newUser(t);
    const token = await onboardingToken(u.user.id);
    const url = `/api/v1/me/unsubscribe/onboarding/token/?token=${token}`;
    const form = await t.request('POST', url, {
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      idempotencyKey: false,
    });
    expect(form.status).toBe(200);
    expect(form.body.already_unsubscribed).toBe(false);
    const boundary = 'mb-test-boundary';
    const multipart = await t.request('POST', url, {
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      idempotencyKey: false,
    });
    expect(multipart.status).toBe(200);
    expect(multipart.body.already_unsubscribed).toBe(true);
  });

  it('a token of a deleted account is 401', async () => {
    const u = await newUser(t);
    const token = await onboardingToken(u.user.id);
    await t.db.query(`UPDATE users SET deleted_at = now() WHERE id = $1`, [u.user.id]);
    expect((await t.post(`/api/v1/me/unsubscribe/onboarding/token/?token=${token}`, undefined, { idempotencyKey: false })).status).toBe(401);
  });
});
