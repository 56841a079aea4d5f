import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { getTranscription } from './get-transcription.js';
import { requestTranscription } from './request-transcription.js';
import { updateTranscription } from './update-transcription.js';

export function registerTranscriptionRoutes(app: FastifyInstance, ctx: RouteContext) {
  requestTranscription(app, ctx);
  getTranscription(app, ctx);
  updateTranscription(app, ctx);
}
