import { createHmac, randomUUID } from 'node:crypto';
import type { TestApp } from '../../helpers/build-test-app.js';

export const PUBLIC_URL = 'https://memories.example.test';
export const TWILIO = { sid: 'AC0123456789abcdef0123456789abcdef', authToken: 'twilio-auth-token-for-webhooks', from: '+15005550006' };
export const TELEGRAM = { bot: 'memorybook_test_bot', token: '123456:telegram-bot-token-for-webhooks', secret: 'telegram-webhook-secret_0123456789' };

/** The messaging configuration of these suites (the provider API bases point at the local provider server when given). */
export function messagingEnv(providerUrl?: string): Record<string, string> {
  return {
    PUBLIC_URL,
    TWILIO_ACCOUNT_SID: TWILIO.sid,
    TWILIO_AUTH_TOKEN: TWILIO.authToken,
    TWILIO_FROM_NUMBER: TWILIO.from,
    TELEGRAM_BOT_USERNAME: TELEGRAM.bot,
    TELEGRAM_BOT_TOKEN: TELEGRAM.token,
    TELEGRAM_WEBHOOK_SECRET: TELEGRAM.secret,
    ...(providerUrl ? { TWILIO_API_BASE: providerUrl, TELEGRAM_API_BASE: providerUrl } : {}),
  };
}

export const SMS_PATH = '/webhooks/twilio/sms/';
export const TELEGRAM_PATH = '/webhooks/telegram/';

/**
 * Twilio's signature, written out here from Twilio's documentation rather
 * than taken from the service: HMAC-SHA1 under the auth token of the URL
 * followed by each parameter's name and value in name order, base64.
 */
export function sign(url: string, params: Record<string, string>, authToken = TWILIO.authToken): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('');
  return createHmac('sha1', authToken).update(data).digest('base64');
}

/** The fields Twilio posts for an inbound SMS. */
export function smsParams(from: string, body: string, messageSid = `SM${randomUUID().replace(/-/g, '')}`): Record<string, string> {
  return {
    ToCountry: 'US',
    ToState: 'CA',
    SmsMessageSid: messageSid,
    NumMedia: '0',
    SmsSid: messageSid,
    SmsStatus: 'received',
    Body: body,
    To: TWILIO.from,
    NumSegments: '1',
    MessageSid: messageSid,
    AccountSid: TWILIO.sid,
    From: from,
    ApiVersion: '2010-04-01',
  };
}

/** Posts a form to the SMS webhook as Twilio would: signed unless `signature` says otherwise (null: no header). */
export function postSms(t: TestApp, params: Record<string, string>, o: { signature?: string | null; path?: string } = {}) {
  const path = o.path ?? SMS_PATH;
  const signature = o.signature === undefined ? sign(`${PUBLIC_URL}${path}`, params) : o.signature;
  return t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', ...(signature === null ? {} : { 'x-twilio-signature': signature }) },
    payload: new URLSearchParams(params).toString(),
  });
}

let updateId = Math.floor(Math.random() * 1e6) * 1000;

/** A Bot API update carrying a private text message. */
export function telegramUpdate(o: { chatId: number; username?: string; text: string; firstName?: string; lastName?: string; updateId?: number }) {
  return {
    update_id: o.updateId ?? ++updateId,
    message: {
      message_id: 1,
      date: Math.floor(Date.now() / 1000),
      chat: { id: o.chatId, type: 'private', first_name: o.firstName ?? 'Tess', ...(o.username ? { username: o.username } : {}) },
      from: { id: o.chatId, is_bot: false, first_name: o.firstName ?? 'Tess', ...(o.lastName ? { last_name: o.lastName } : {}), ...(o.username ? { username: o.username } : {}) },
      text: o.text,
    },
  };
}

/** Posts an update as Telegram would: with the secret header unless `secret` says otherwise (null: no header). */
export function postTelegram(t: TestApp, update: unknown, o: { secret?: string | null } = {}) {
  const secret = o.secret === undefined ? TELEGRAM.secret : o.secret;
  return t.app.inject({
    method: 'POST',
    url: TELEGRAM_PATH,
    headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }) },
    payload: JSON.stringify(update),
  });
}

/** Everything inbound activation could change, row by row: a refused request must leave it exactly as it was. */
export async function snapshot(t: TestApp): Promise<string> {
  const [row] = await t.db.query<{ s: string }>(
    `SELECT concat_ws(' | ',
       (SELECT count(*) FROM users), (SELECT count(*) FROM book_members), (SELECT count(*) FROM submissions),
       (SELECT count(*) FROM inbound_messages),
       (SELECT string_agg(id || ':' || status || ':' || coalesce(accepted_user_id::text, '-'), ',' ORDER BY id) FROM invitations),
       (SELECT string_agg(id || ':' || coalesce(telegram_chat_id, '-'), ',' ORDER BY id) FROM users)) AS s`,
  );
  return row.s;
}

let phoneSeq = Math.floor(Math.random() * 500);

/** A fresh valid number (Ofcom's drama range), in E.164. */
export function newPhone(): string {
  return `+44207946${String(phoneSeq++ % 1000).padStart(4, '0')}`;
}

export const WHATSAPP = {
  number: '+15005550009',
  numberId: '109876543210',
  accessToken: 'whatsapp-access-token-for-webhooks',
  appSecret: 'whatsapp-app-secret-for-webhooks',
  verifyToken: 'whatsapp-verify-token-for-webhooks',
  template: 'memorybook_invitation',
};
export const WHATSAPP_PATH = '/webhooks/whatsapp/';

/** The WhatsApp Cloud API settings of these suites (the API base points at the local provider server when given). */
export function whatsappEnv(providerUrl?: string): Record<string, string> {
  return {
    WHATSAPP_PHONE_NUMBER: WHATSAPP.number,
    WHATSAPP_PHONE_NUMBER_ID: WHATSAPP.numberId,
    WHATSAPP_ACCESS_TOKEN: WHATSAPP.accessToken,
    WHATSAPP_APP_SECRET: WHATSAPP.appSecret,
    WHATSAPP_VERIFY_TOKEN: WHATSAPP.verifyToken,
    WHATSAPP_INVITATION_TEMPLATE: WHATSAPP.template,
    ...(providerUrl ? { WHATSAPP_API_BASE: providerUrl } : {}),
  };
}

/** Meta's signature, written out from its documentation: sha256= and the hex HMAC-SHA256 of the raw body under the app secret. */
export function hubSignature(body: string, secret = WHATSAPP.appSecret): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** One message as the Cloud API notifies it (`from` in E.164; the payload carries it without the plus). */
export function whatsappPayload(from: string, message: Record<string, unknown>, o: { id?: string; name?: string; phoneNumberId?: string } = {}) {
  const wa = from.replace(/^\+/, '');
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: WHATSAPP.number.slice(1), phone_number_id: o.phoneNumberId ?? WHATSAPP.numberId },
              contacts: [{ profile: { name: o.name ?? 'Wanda App' }, wa_id: wa }],
              messages: [{ from: wa, id: o.id ?? `wamid.${randomUUID().replace(/-/g, '')}`, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
            },
          },
        ],
      },
    ],
  };
}

/** Posts a notification as Meta would: signed unless `signature` says otherwise (null: no header). */
export function postWhatsApp(t: TestApp, payload: unknown, o: { signature?: string | null; raw?: string } = {}) {
  const body = o.raw ?? JSON.stringify(payload);
  const signature = o.signature === undefined ? hubSignature(body) : o.signature;
  return t.app.inject({
    method: 'POST',
    url: WHATSAPP_PATH,
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hub-signature-256': signature }) },
    payload: body,
  });
}
