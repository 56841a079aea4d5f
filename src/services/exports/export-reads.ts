import type { Queryable } from '../../db/client.js';
import * as exportsRepo from './export-repository.js';
import type { ExportRow } from './export-types.js';

/** The exports domain's read for the other domains (events): never export-repository.ts itself (the domain-walls rule). */
export function findExportById(q: Queryable, id: string): Promise<ExportRow | undefined> {
  return exportsRepo.findExportById(q, id);
}
