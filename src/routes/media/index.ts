import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { deleteMedia } from './delete-media.js';
import { getMedia } from './get-media.js';
import { getOriginal } from './get-original.js';
import { uploadMedia } from './upload-media.js';
import { putCover } from '../books/cover.js';

export async function registerMediaRoutes(app: FastifyInstance, ctx: RouteContext) {
  // The multipart parser only where uploads are taken: elsewhere a multipart body stays 415.
  await app.register(async (uploads) => {
    await uploads.register(multipart, { throwFileSizeLimit: true });
    uploadMedia(uploads, ctx);
    putCover(uploads, ctx);
  });
  getMedia(app, ctx);
  getOriginal(app, ctx);
  deleteMedia(app, ctx);
}
