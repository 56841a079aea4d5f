import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errors } from '../../errors.js';
import { Id, ListEnvelope, ListQuery, Nullable, ServiceCheckedEnum, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { isUuid } from '../../lib/ids.js';
import { THEMES } from '../../services/books/book-types.js';
import { EXPORT_FORMATS, EXPORT_INTENTS, EXPORT_STATUSES } from '../../services/exports/export-types.js';

export const ExportParams = Type.Object({
  slug: Type.String({ maxLength: 200, description: 'Book slug' }),
  job_id: Type.String({ maxLength: 200, description: 'Export job id (opaque)' }),
});

/** onRequest of the /exports/{job_id}/ routes: an id not shaped like ours names nothing (404). */
export async function jobIdMustBeWellFormed(request: FastifyRequest) {
  if (!isUuid((request.params as { job_id?: string }).job_id)) throw errors.notFound('export');
}

export const CreateExportBody = StrictObject(
  {
    theme: ServiceCheckedEnum(THEMES, { maxLength: 100, description: 'One of the eleven export themes; unknown: 400 validation_failed with details.offered' }),
    intent: Type.Optional(
      StringEnum(EXPORT_INTENTS, {
        description: 'What the PDF is for, giving its bleed and gutter (mm): screen (0, 0, the default), home (0, 10), shop (3, 15)',
      }),
    ),
    export_format: Type.Optional(
      StringEnum(EXPORT_FORMATS, {
        description: "pdf (the default), json or zip; each needs its plan feature (pdf_export, json_export, zip_export), else 400 validation_failed",
      }),
    ),
  },
  { examples: [{ theme: 'botanical_luxe', intent: 'shop', export_format: 'pdf' }] },
);

export const ExportJob = Type.Object(
  {
    id: Id,
    book_slug: Type.String(),
    status: StringEnum(EXPORT_STATUSES, {
      description: 'pending (queued) → processing (a worker took it; also while a retry waits) → complete, or failed with error once retries are spent',
    }),
    theme: StringEnum(THEMES),
    intent: StringEnum(EXPORT_INTENTS),
    export_format: StringEnum(EXPORT_FORMATS),
    bleed_mm: Type.Number({ description: 'Bleed on every side of the 210 × 210 mm trim; each page is trim + 2 × bleed' }),
    gutter_mm: Type.Number({ description: 'Added to the inner margin (left on odd pages, right on even ones)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: Nullable(Type.String({ ...Timestamp, description: 'When a worker first took the job' })),
    completed_at: Nullable(Type.String({ ...Timestamp, description: 'When it completed or failed' })),
    error: Nullable(Type.String({ description: 'Why it failed; null otherwise' })),
    size_bytes: Nullable(Type.Integer({ description: 'Size of the finished file; null until complete' })),
    page_count: Nullable(Type.Integer({ description: 'Pages of a finished PDF; null otherwise' })),
    expires_at: Nullable(Type.String({ ...Timestamp, description: 'Until when the finished file is kept (7 days); afterwards the artifact answers 410 export_failed' })),
    warnings: Type.Array(Type.String(), {
      description: 'What the owner should know about a finished render, such as photos that print below 200 ppi at their size in the book; empty for most',
    }),
  },
  {
    $id: 'ExportJob',
    title: 'ExportJob',
    description: 'An export of a book, rendered in the background; poll it, then fetch its artifact',
    examples: [
      {
        id: '01935f50-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
        book_slug: 'grandma-turns-90',
        status: 'complete',
        theme: 'botanical_luxe',
        intent: 'shop',
        export_format: 'pdf',
        bleed_mm: 3,
        gutter_mm: 15,
        created_at: '2026-11-21T10:00:00.123456Z',
        updated_at: '2026-11-21T10:00:09.654321Z',
        started_at: '2026-11-21T10:00:00.456789Z',
        completed_at: '2026-11-21T10:00:09.654321Z',
        error: null,
        size_bytes: 18273645,
        page_count: 48,
        expires_at: '2026-11-28T10:00:09.654321Z',
        warnings: [],
      },
    ],
  },
);

export const ExportList = ListEnvelope(Type.Ref('ExportJob'), 'ExportJobList', "One page of a book's exports");
export const ListExportsQuery = ListQuery;

export const ExportArtifact = Type.Object(
  {
    download_url: Type.String({ description: 'Signed; valid until expires_at (15 minutes, never past the file’s 7 days). Do not cache it: ask again' }),
    cover_download_url: Nullable(
      Type.String({ description: 'A `shop` PDF’s cover wrap (back, spine, front, with bleed; PDF/X-4), signed like download_url and valid as long; null for other exports' }),
    ),
    expires_at: Timestamp,
  },
  {
    title: 'ExportArtifact',
    description: "A signed link to the export's file",
    examples: [
      {
        download_url: 'https://files.example.org/exports/…/book.pdf?X-Amz-Expires=900&…',
        cover_download_url: 'https://files.example.org/exports/…/cover.pdf?X-Amz-Expires=900&…',
        expires_at: '2026-11-21T10:15:00.000000Z',
      },
    ],
  },
);
