/** GET /books/{slug}/channels/: the seven rows, from the book's plan and the operator's configuration; never a secret. */
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { buildTestApp, TEST_SECRET, type TestApp } from '../../helpers/build-test-app.js';
import { addMember, newBook, newUser, setGrace } from '../../helpers/factories.js';

const CHANNELS = ['web', 'email', 'sms', 'rcs', 'imessage', 'whatsapp', 'telegram'];
const ROWS = [...CHANNELS, 'push'];
const url = (slug: string) => `/api/v1/books/${slug}/channels/`;
const byChannel = (items: any[]) => Object.fromEntries(items.map((r) => [r.channel, r]));

/** Every secret the service knows, each a value that appears nowhere else. */
const SECRETS: Record<string, string> = {
  TWILIO_AUTH_TOKEN: 'secret-twilio-auth-token-7f3a',
  TWILIO_ACCOUNT_SID: 'ACsecretaccountsid0123456789abcdef',
  TELEGRAM_BOT_TOKEN: '987654:secret-telegram-bot-token-c1d2',
  TELEGRAM_WEBHOOK_SECRET: 'secret-telegram-webhook-e5f6',
  TWILIO_WEBHOOK_SECRET: 'secret-twilio-webhook-a9b8',
  RCS_API_KEY: 'secret-rcs-api-key-4b5c',
  IMESSAGE_API_TOKEN: 'secret-imessage-api-token-6d7e',
  WHATSAPP_ACCESS_TOKEN: 'secret-whatsapp-access-token-8f9a',
  WHATSAPP_APP_SECRET: 'secret-whatsapp-app-secret-3c4d',
  WHATSAPP_VERIFY_TOKEN: 'secret-whatsapp-verify-token-9e0f',
  S3_SECRET_ACCESS_KEY: 'secret-s3-secret-access-key-0b1c',
  AWS_SECRET_ACCESS_KEY: 'secret-aws-secret-access-key-2d3e',
  SMTP_URL: 'smtp://mailer:secret-smtp-password-5e6f@127.0.0.1:2525',
  BACKUP_ERASURE_URL: 'https://eraser:secret-backup-erasure-7a8b@backup.example.test/erase',
  INBOUND_EMAIL_SECRET: 'secret-inbound-email-3c4d5e6f',
};
const PUBLIC = {
  TWILIO_FROM_NUMBER: '+15005550006',
  TELEGRAM_BOT_USERNAME: 'memorybook_bot',
  RCS_AGENT_ID: 'memorybook-agent',
  IMESSAGE_BUSINESS_ID: 'a1b2c3d4-e5f6-7a8b-9c0d-e1f2a3b4c5d6',
  WHATSAPP_PHONE_NUMBER: '+15005550009',
  WHATSAPP_PHONE_NUMBER_ID: '109876543210',
  MAIL_INBOUND_DOMAIN: 'in.memories.example.test',
  INBOUND_EMAIL_AUTHSERV_ID: 'mx.provider.example.test',
};
/** The distinctive part of each secret, so a secret cut up or re-encoded is still found. */
const secretParts = [
  ...Object.values(SECRETS).map((v) => v.replace(/^.*secret-/, 'secret-').replace(/@.*$/, '')),
  SECRETS.TWILIO_ACCOUNT_SID,
  SECRETS.TELEGRAM_BOT_TOKEN,
  TEST_SECRET,
];

describe('without any provider configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });

  it('answers the seven rows in order on one page; a free book allows web and email, and email stays off until inbound mail is on', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const res = await t.get(url(slug), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.headers['last-modified']).toBeUndefined();
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items.map((r: any) => r.channel)).toEqual(ROWS);
    const rows = byChannel(res.body.items);
    const key = (await t.db.query<{ form_key: string }>(`SELECT form_key FROM books WHERE slug = $1`, [slug]))[0].form_key;
    // Not public: the form's address carries the book's form key.
    const formUrl = `http://localhost:8000/b/${slug}/?key=${key}`;
    expect(rows.web).toEqual({ channel: 'web', enabled: true, plan_allowed: true, platform_configured: true, address: formUrl, deep_link: formUrl });
    expect(rows.email).toEqual({ channel: 'email', enabled: false, plan_allowed: true, platform_configured: false, address: null, deep_link: null });
    for (const c of ['sms', 'rcs', 'imessage', 'whatsapp', 'telegram']) {
      expect(rows[c], c).toEqual({ channel: c, enabled: false, plan_allowed: false, platform_configured: false, address: null, deep_link: null });
    }
  });

  it('a premium book is allowed every channel, but an unconfigured one stays off', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    for (const c of CHANNELS) expect(rows[c].plan_allowed, c).toBe(true);
    expect(rows.sms).toMatchObject({ enabled: false, platform_configured: false });
    expect(rows.telegram).toMatchObject({ enabled: false, platform_configured: false });
  });

  it('owner and admin read it, also in the grace period; a contributor 403, an outsider 404', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner)).slug;
    const [admin, contributor, outsider] = [await newUser(t), await newUser(t), await newUser(t)];
    await addMember(t, slug, admin, 'admin');
    await addMember(t, slug, contributor, 'contributor');
    expect((await t.get(url(slug), { token: admin.token })).status).toBe(200);
    const c = await t.get(url(slug), { token: contributor.token });
    expect({ status: c.status, code: c.body.code }).toEqual({ status: 403, code: 'insufficient_role' });
    const o = await t.get(url(slug), { token: outsider.token });
    expect({ status: o.status, code: o.body.code }).toEqual({ status: 404, code: 'not_found' });
    await setGrace(t, slug, true);
    expect((await t.get(url(slug), { token: owner.token })).status).toBe(200);
  });
});

describe('with every provider configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ...SECRETS, ...PUBLIC, PUBLIC_URL: 'https://memories.example.test' } });
  });

  it('shows the public addresses and links, and not one secret', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const res = await t.get(url(slug), { token: owner.token });
    expect(res.status).toBe(200);
    const rows = byChannel(res.body.items);
    for (const c of CHANNELS.filter((c) => c !== 'rcs' && c !== 'imessage')) expect(rows[c], c).toMatchObject({ enabled: true, plan_allowed: true, platform_configured: true });
    expect(rows.web.deep_link).toMatch(new RegExp(`^https://memories\\.example\\.test/b/${slug}/\\?key=[A-Za-z0-9_-]{16,}$`));
    expect(rows.web.address).toBe(rows.web.deep_link);
    // Mail reaches a book at <slug>@MAIL_INBOUND_DOMAIN, public or not.
    expect(rows.email.address).toBe(`${slug}@in.memories.example.test`);
    expect(rows.email.deep_link).toBe(`mailto:${rows.email.address}`);
    expect(rows.sms).toMatchObject({ address: '+15005550006', deep_link: 'sms:+15005550006' });
    expect(rows.telegram).toMatchObject({ address: '@memorybook_bot', deep_link: `https://t.me/memorybook_bot?start=${slug}` });
    expect(rows.whatsapp).toMatchObject({ address: '+15005550009', deep_link: 'https://wa.me/15005550009' });
    // No adapter for them: their credentials do not make them work.
    for (const c of ['rcs', 'imessage']) expect(rows[c], c).toEqual({ channel: c, enabled: false, plan_allowed: true, platform_configured: false, address: null, deep_link: null });

    const raw = `${res.text}\n${JSON.stringify(res.headers)}`;
    for (const secret of secretParts) {
      expect(raw.includes(secret), `the answer holds the secret ${secret}`).toBe(false);
      expect(raw.includes(encodeURIComponent(secret)), `the answer holds the secret ${secret}, URL-encoded`).toBe(false);
      expect(raw.includes(Buffer.from(secret).toString('base64')), `the answer holds the secret ${secret}, base64`).toBe(false);
    }
  });

  it('a plus book: sms and telegram allowed, rcs, imessage and whatsapp not', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    expect(CHANNELS.filter((c) => rows[c].plan_allowed)).toEqual(['web', 'email', 'sms', 'telegram']);
    expect(CHANNELS.filter((c) => rows[c].enabled)).toEqual(['web', 'email', 'sms', 'telegram']);
    // Configured but not allowed: the address is still the platform's.
    expect(rows.whatsapp).toMatchObject({ enabled: false, plan_allowed: false, platform_configured: true });
  });

  it("the book's settings switch a channel off", async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'plus' })).slug;
    expect((await t.patch(`/api/v1/books/${slug}/`, { settings: { channels: { sms: false, email: false } } }, { token: owner.token })).status).toBe(200);
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    expect(rows.sms).toMatchObject({ enabled: false, plan_allowed: true, platform_configured: true });
    expect(rows.email).toMatchObject({ enabled: false, plan_allowed: true });
    expect(rows.telegram.enabled).toBe(true);
  });
});

describe('inbound mail through the SMTP receiver only', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SMTP_INBOUND_PORT: '2525' } });
  });

  it('email is configured, at <slug>@ the public host when MAIL_INBOUND_DOMAIN is not set', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { isPublic: true })).slug;
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    expect(rows.email).toEqual({ channel: 'email', enabled: true, plan_allowed: true, platform_configured: true, address: `${slug}@localhost`, deep_link: `mailto:${slug}@localhost` });
  });
});

describe('configuration', () => {
  const base = { NODE_ENV: 'test', SECRET_KEY: TEST_SECRET, DATA_DIR: '/tmp/memorybook-channels-config' };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  it('a provider is configured whole or not at all, and its values are checked', () => {
    expect(problems({ TWILIO_ACCOUNT_SID: 'AC1' })).toEqual([expect.stringMatching(/^TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER: set all of them or none/)]);
    expect(problems({ TELEGRAM_BOT_TOKEN: '1:x' })).toEqual([expect.stringMatching(/TELEGRAM_BOT_USERNAME, TELEGRAM_BOT_TOKEN/)]);
    expect(problems({ TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'x', TWILIO_FROM_NUMBER: '555-1234' })).toEqual([expect.stringMatching(/^TWILIO_FROM_NUMBER/)]);
    expect(problems({ INVITATION_PHONE_REGION: 'XX' })).toEqual([expect.stringMatching(/^INVITATION_PHONE_REGION/)]);
    expect(problems({ TELEGRAM_API_BASE: 'ftp://x' })).toEqual([expect.stringMatching(/^TELEGRAM_API_BASE/)]);
    const ok = loadConfig({ ...base, INVITATION_PHONE_REGION: 'gb', TELEGRAM_BOT_USERNAME: '@Some_Bot', TELEGRAM_BOT_TOKEN: '1:x' });
    expect(ok.messaging.phoneRegion).toBe('GB');
    expect(ok.messaging.telegram).toEqual({ botUsername: 'Some_Bot', botToken: '1:x', apiBase: 'https://api.telegram.org', webhookSecret: null });
    expect(ok.messaging.twilio).toBeNull();
  });
});
