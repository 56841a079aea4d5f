import { Type } from '@sinclair/typebox';
import { ListEnvelope, Nullable, StringEnum } from '../../http/schemas/common.js';
import { CHANNELS } from '../../services/channels/channel-service.js';

export const ChannelStatus = Type.Object(
  {
    channel: StringEnum([...CHANNELS, 'push'] as const, { description: 'push: notifications to members\' devices (out, not in); the other channels take memories in' }),
    enabled: Type.Boolean({ description: "Takes memories for this book now: allowed by the plan, configured on the platform, and not switched off in the book's settings (settings.channels.<channel>: false)" }),
    plan_allowed: Type.Boolean({ description: "The book's plan includes the channel" }),
    platform_configured: Type.Boolean({ description: 'The operator has set the channel up' }),
    address: Nullable(Type.String({ description: 'Where contributors send to: the public phone number, the mail address, the bot; null when there is none' })),
    deep_link: Nullable(Type.String({ description: 'A link that opens the channel on the book (web form, mailto:, sms:, t.me, wa.me…); null when there is none' })),
    providers: Type.Optional(
      Type.Array(StringEnum(['web_push', 'fcm', 'apns'] as const), { description: 'The push row only: the push providers the operator configured (Web Push with VAPID, FCM HTTP v1, APNs)' }),
    ),
  },
  {
    $id: 'ChannelStatus',
    title: 'ChannelStatus',
    description: 'How contributors reach a book on one channel. Provider credentials and webhook secrets are never included.',
    examples: [
      { channel: 'telegram', enabled: true, plan_allowed: true, platform_configured: true, address: '@memorybook_bot', deep_link: 'https://t.me/memorybook_bot?start=grandma-turns-90' },
    ],
  },
);

export const ChannelList = ListEnvelope(Type.Ref('ChannelStatus'), 'ChannelList', 'One row per channel: web, email, sms, rcs, imessage, whatsapp, telegram, then push');
