import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import { setLocation } from '../../http/response-headers.js';
import type { RouteContext } from '../../services/index.js';
import { RegisterDeviceBody } from './device-schemas.js';

export function registerDevice(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/me/devices/',
    {
      schema: {
        operationId: 'registerDevice',
        tags: ['identity'],
        summary: 'Register a device for push',
        description:
          'An APNs device token (ios), an FCM registration token (android) or a Web Push subscription (web; subscribe with web_push_public_key ' +
          'from GET /me/devices/). 201 with the device, never its token; the same token (for web, the same endpoint) again answers that ' +
          'device (200), now yours. A Web Push endpoint passes the webhook address guard: an address that is not public is 400 ' +
          'validation_failed (details.field subscription.endpoint, details.reason private_address), unless the operator allows it.',
        body: RegisterDeviceBody,
        response: { 201: Type.Ref('Device', { description: 'Registered' }), 200: Type.Ref('Device', { description: 'This token was registered already' }) },
      },
      config: { location: [201] },
    },
    async (request, reply) => {
      const { created, device } = await services.devices.register(unitOf(request), actorOf(request), request.body);
      if (!created) return reply.code(200).send(device);
      return setLocation(reply.code(201), `/api/v1/me/devices/${device.id}/`).send(device);
    },
  );
}
