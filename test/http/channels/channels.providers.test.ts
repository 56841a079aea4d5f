/**
 * The message channels' rows follow what really works: WhatsApp is
 * configured only with all of its settings; RCS and iMessage never, whatever
 * credentials are set, since nothing sends or receives over them yet.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { buildTestApp, TEST_SECRET, type TestApp } from '../../helpers/build-test-app.js';
import { newBook, newUser } from '../../helpers/factories.js';
import { whatsappEnv } from '../webhooks/webhook-helpers.js';

const url = (slug: string) => `/api/v1/books/${slug}/channels/`;
const byChannel = (items: any[]) => Object.fromEntries(items.map((r) => [r.channel, r]));
const RCS_IMESSAGE = { RCS_AGENT_ID: 'memorybook-agent', RCS_API_KEY: 'rcs-key', IMESSAGE_BUSINESS_ID: 'a1b2c3d4', IMESSAGE_API_TOKEN: 'imessage-token' };

describe('rcs and imessage credentials, no WhatsApp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: RCS_IMESSAGE });
  });

  it('rcs and imessage stay not configured, with no address; whatsapp is not configured', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    for (const c of ['rcs', 'imessage', 'whatsapp']) {
      expect(rows[c], c).toEqual({ channel: c, enabled: false, plan_allowed: true, platform_configured: false, address: null, deep_link: null });
    }
    // No WhatsApp webhook is served either.
    expect((await t.app.inject({ method: 'POST', url: '/webhooks/whatsapp/', payload: '{}', headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' } })).statusCode).toBe(404);
  });
});

describe('WhatsApp with all its settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: whatsappEnv() });
  });

  it('is configured and enabled on a premium book, with its number and wa.me link', async () => {
    const owner = await newUser(t);
    const slug = (await newBook(t, owner, { plan: 'premium' })).slug;
    const rows = byChannel((await t.get(url(slug), { token: owner.token })).body.items);
    expect(rows.whatsapp).toEqual({ channel: 'whatsapp', enabled: true, plan_allowed: true, platform_configured: true, address: '+15005550009', deep_link: 'https://wa.me/15005550009' });
    expect(rows.rcs.platform_configured).toBe(false);
  });
});

describe('WhatsApp configuration', () => {
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

  it('all of its settings or none; values checked', () => {
    // The number and token alone (enough before) no longer make a channel: the webhook needs the app secret and verify token.
    expect(problems({ WHATSAPP_PHONE_NUMBER: '+15005550009', WHATSAPP_ACCESS_TOKEN: 'x' })).toEqual([expect.stringMatching(/WHATSAPP_PHONE_NUMBER_ID.*set all of them or none/)]);
    const { WHATSAPP_PHONE_NUMBER_ID: _id, ...noId } = whatsappEnv();
    expect(problems(noId)).toContainEqual(expect.stringMatching(/WHATSAPP_PHONE_NUMBER_ID.*set all of them or none/));
    expect(problems({ ...whatsappEnv(), WHATSAPP_PHONE_NUMBER_ID: 'abc' })).toEqual([expect.stringMatching(/^WHATSAPP_PHONE_NUMBER_ID/)]);
    expect(problems({ ...whatsappEnv(), WHATSAPP_INVITATION_TEMPLATE: 'Not A Name' })).toEqual([expect.stringMatching(/^WHATSAPP_INVITATION_TEMPLATE/)]);
    expect(problems({ ...whatsappEnv(), WHATSAPP_TEMPLATE_LANGUAGE: 'english' })).toEqual([expect.stringMatching(/^WHATSAPP_TEMPLATE_LANGUAGE/)]);
    expect(problems({ ...whatsappEnv(), WHATSAPP_API_BASE: 'ftp://x' })).toEqual([expect.stringMatching(/^WHATSAPP_API_BASE/)]);
    expect(problems({ WHATSAPP_INVITATION_TEMPLATE: 'memorybook_invitation' })).toEqual([expect.stringMatching(/^WHATSAPP_INVITATION_TEMPLATE: needs/)]);
    const ok = loadConfig({ ...base, ...whatsappEnv() });
    expect(ok.messaging.whatsapp).toMatchObject({ apiBase: 'https://graph.facebook.com/v21.0', invitationTemplate: 'memorybook_invitation', templateLanguage: 'en_US', phoneNumberId: '109876543210' });
  });
});
