import send from '@fastify/send';
import type { FastifyInstance } from 'fastify';
import { AppError, errors } from '../../errors.js';
import type { RouteContext } from '../../services/index.js';
import { createLocalObjectStore, localStoreOptions, type LocalObjectStore } from '../../storage/local-store.js';
import { assertObjectKey } from '../../storage/object-store.js';

const PREFIX = '/files/';

const REFUSALS = {
  malformed: 'This file link is malformed or incomplete.',
  mismatch: 'This file link does not carry a valid signature: it was altered or not issued by this service.',
  expired: 'This file link has expired; ask the API for a fresh one.',
} as const;

/**
 * GET and HEAD `/files/<key>?X-Amz-…`: the local store's signed download
 * URLs, outside /api/v1 and the OpenAPI document (clients only follow URLs
 * the API handed them). Nothing is read before the signature checks out.
 * On S3 storage the URLs point at the bucket and this route does not exist.
 */
export function registerFileRoutes(app: FastifyInstance, { config }: Pick<RouteContext, 'config'>, store?: LocalObjectStore) {
  if (config.storage.kind !== 'local') return;
  const files = store ?? createLocalObjectStore(localStoreOptions(config));

  app.route({
    method: ['GET', 'HEAD'],
    url: `${PREFIX}*`,
    schema: { hide: true },
    config: { internal: true, auth: 'none' },
    handler: async (request, reply) => {
      const now = new Date();
      // The raw path, not the decoded parameter: the key is signed as issued, and a valid key needs no escaping.
      const [rawPath, rawQuery = ''] = splitOnce(request.url, '?');
      const key = rawPath.slice(PREFIX.length);
      if (!isObjectKey(key)) throw refuse('malformed');
      const check = files.verifyUrl(key, rawQuery, now);
      if (!check.ok) throw refuse(check.reason);

      const meta = await files.head(key);
      if (!meta) throw errors.notFound('file');
      const result = await send(request.raw, `/${key}`, {
        root: files.root,
        dotfiles: 'deny',
        index: false,
        extensions: false,
        cacheControl: false,
        contentType: false,
      });
      if (result.type === 'directory') throw errors.notFound('file');
      if (result.type === 'error') {
        result.stream.destroy();
        switch (result.statusCode) {
          case 416:
            throw errors.rangeNotSatisfiable('The requested range lies outside the file.', { size_bytes: meta.sizeBytes }, {
              headers: { 'content-range': result.headers['Content-Range'] ?? `bytes */${meta.sizeBytes}` },
            });
          case 412:
            throw errors.preconditionFailed(null, 'The file does not match the request\'s If-Match or If-Unmodified-Since.');
          case 500:
            throw result.metadata.error;
          default:
            throw errors.notFound('file');
        }
      }

      for (const [name, value] of Object.entries(result.headers)) reply.header(name.toLowerCase(), value);
      if (result.statusCode !== 304) reply.header('content-type', check.contentType ?? meta.contentType ?? 'application/octet-stream');
      if (check.contentDisposition) reply.header('content-disposition', check.contentDisposition);
      reply.header('x-content-type-options', 'nosniff');
      // Uploaded bytes are served from the API's own origin: an SVG or HTML file opened directly runs no script.
      reply.header('content-security-policy', 'sandbox');
      // A cache may keep the answer only as long as the URL that fetched it is valid.
      reply.header('cache-control', `private, max-age=${Math.max(0, Math.floor((check.expiresAt.getTime() - now.getTime()) / 1000))}`);
      return reply.code(result.statusCode).send(result.stream);
    },
  });

  // Signed links are read-only: any other method is 405 with Allow (not a 308 to the path with a slash).
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${PREFIX}*`,
    schema: { hide: true },
    config: { internal: true, auth: 'none' },
    handler: async (request) => {
      throw errors.methodNotAllowed(`Method ${request.method} is not allowed here; use GET, HEAD.`, { allowed: ['GET', 'HEAD'] }, {
        headers: { allow: 'GET, HEAD' },
      });
    },
  });
}

function refuse(reason: keyof typeof REFUSALS): AppError {
  return errors.forbidden(REFUSALS[reason], { reason });
}

function isObjectKey(key: string): boolean {
  try {
    assertObjectKey(key);
    return true;
  } catch {
    return false;
  }
}

function splitOnce(s: string, sep: string): [string, string?] {
  const i = s.indexOf(sep);
  return i === -1 ? [s] : [s.slice(0, i), s.slice(i + 1)];
}
