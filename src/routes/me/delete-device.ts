import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, unitOf } from '../../http/route-config.js';
import type { RouteContext } from '../../services/index.js';
import { DeviceParams, deviceIdMustBeWellFormed } from './device-schemas.js';

export function deleteDevice(app: FastifyInstance, { services }: RouteContext) {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/me/devices/:device_id/',
    {
      schema: {
        operationId: 'deleteDevice',
        tags: ['identity'],
        summary: 'Remove a device',
        description: 'It gets no more pushes. Another user\'s device, or an unknown id, is 404.',
        params: DeviceParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
      onRequest: deviceIdMustBeWellFormed,
    },
    async (request, reply) => {
      await services.devices.remove(unitOf(request), actorOf(request), request.params.device_id);
      return reply.code(204).send(null);
    },
  );
}
