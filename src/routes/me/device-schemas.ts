import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { Id, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { DEVICE_PLATFORMS } from '../../services/devices/device-repository.js';

export const Device = Type.Object(
  {
    id: Id,
    platform: StringEnum(DEVICE_PLATFORMS),
    name: Nullable(Type.String({ description: 'What the user calls it ("Ada\'s iPhone")' })),
    created_at: Timestamp,
    last_used_at: Nullable(Type.String({ ...Timestamp, description: 'The last push delivered to it' })),
  },
  {
    $id: 'Device',
    title: 'Device',
    description: 'A device registered for push; its token is never shown back',
    examples: [{ id: '01935f4e-9d10-7c44-8b2e-5a1c7e3f9b20', platform: 'ios', name: "Ada's iPhone", created_at: '2026-11-21T10:00:00.000000Z', last_used_at: null }],
  },
);

const Name = Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'A name for the device' })));

export const RegisterDeviceBody = Type.Union(
  [
    Type.Object(
      {
        platform: StringEnum(['ios', 'android'] as const, { description: 'ios: an APNs device token (hex); android: an FCM registration token' }),
        name: Name,
        token: Type.String({ minLength: 1, maxLength: 4096 }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        platform: Type.Literal('web'),
        name: Name,
        subscription: Type.Object(
          {
            endpoint: Type.String({ minLength: 1, maxLength: 2048, description: "The push service URL the browser's PushSubscription names" }),
            keys: Type.Object(
              { p256dh: Type.String({ minLength: 1, maxLength: 200 }), auth: Type.String({ minLength: 1, maxLength: 100 }) },
              { additionalProperties: true },
            ),
            expirationTime: Type.Optional(Nullable(Type.Number())),
          },
          { additionalProperties: true, description: "PushSubscription.toJSON() as the browser gives it" },
        ),
      },
      { additionalProperties: false },
    ),
  ],
  {
    examples: [
      { platform: 'ios', name: "Ada's iPhone", token: '740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad' },
      { platform: 'web', subscription: { endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/gAAAA…', keys: { p256dh: 'BNcRd…', auth: 'tBHI…' } } },
    ],
  },
);

export const DeviceList = Type.Object(
  {
    items: Type.Array(Type.Ref('Device')),
    web_push_public_key: Nullable(Type.String({ description: 'The VAPID public key a browser subscribes with (applicationServerKey); null when Web Push is not configured' })),
  },
  { description: 'Your devices, oldest first, and the key a browser subscribes with' },
);

export const DeviceParams = Type.Object({ device_id: Type.String({ maxLength: 200, description: 'Device id' }) });

/** onRequest of /me/devices/{device_id}/: an id not shaped like ours names nothing (404), before a key is looked at. */
export async function deviceIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { device_id?: string }).device_id)) throw errors.notFound('device');
}
