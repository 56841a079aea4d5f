import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { createExport } from './create-export.js';
import { getExport } from './get-export.js';
import { getExportArtifact } from './get-export-artifact.js';
import { listExports } from './list-exports.js';

export function registerExportRoutes(app: FastifyInstance, ctx: RouteContext) {
  listExports(app, ctx);
  createExport(app, ctx);
  getExport(app, ctx);
  getExportArtifact(app, ctx);
}
