import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { DeviceList } from './device-schemas.js';

export function listDevices(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/me/devices/',
    {
      schema: {
        operationId: 'listDevices',
        tags: ['identity'],
        summary: 'Your devices registered for push',
        description: 'Oldest first. web_push_public_key is the VAPID key a browser needs to subscribe (null when Web Push is not configured).',
        response: { 200: DeviceList },
      },
    },
    async (request) => services.devices.list(actorOf(request)),
  );
}
