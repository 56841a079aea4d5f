import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { ACCOUNT_EXPORT_STATUSES } from '../../services/exports/export-types.js';

const Status = StringEnum(ACCOUNT_EXPORT_STATUSES, {
  description:
    'pending (queued) → processing (being written; also while a retry waits) → complete, or failed (see error) once its retries are spent. ' +
    'A complete export becomes expired when its 30 days are over: the file is gone, request a new export.',
});

export const AccountExportParams = Type.Object({
  job_id: Type.String({ maxLength: 200, description: 'Export job id (opaque), from POST /me/export/' }),
});

export const AccountExportRequested = Type.Object(
  { id: Id, status: Status, created_at: Timestamp },
  {
    title: 'AccountExportRequested',
    description: 'Accepted: your data export is queued; poll GET /me/export/{id}/ (the Location header)',
    examples: [{ id: '01935f52-3c4d-7e5f-8a6b-7c8d9e0f1a2b', status: 'pending', created_at: '2026-11-21T10:00:00.123456Z' }],
  },
);

export const AccountExportJob = Type.Object(
  {
    id: Id,
    status: Status,
    created_at: Timestamp,
    started_at: Nullable(Type.String({ ...Timestamp, description: 'When a worker first took the job' })),
    completed_at: Nullable(Type.String({ ...Timestamp, description: 'When it completed or failed' })),
    expires_at: Nullable(Type.String({ ...Timestamp, description: 'Until when the file is kept (30 days after completion); null until complete' })),
    size_bytes: Nullable(Type.Integer({ description: 'Size of the gzip file; null unless complete' })),
    error: Nullable(Type.String({ description: 'Why it failed; null otherwise' })),
    download_url: Nullable(
      Type.String({ description: 'Signed link to the gzip-compressed JSON file, valid 60 minutes, minted afresh on every poll; null unless complete' }),
    ),
    url_expires_at: Nullable(Type.String({ ...Timestamp, description: 'When download_url stops working; null with it' })),
  },
  {
    title: 'AccountExportJob',
    description: 'A GDPR data export of your account',
    examples: [
      {
        id: '01935f52-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
        status: 'complete',
        created_at: '2026-11-21T10:00:00.123456Z',
        started_at: '2026-11-21T10:00:00.456789Z',
        completed_at: '2026-11-21T10:00:02.654321Z',
        expires_at: '2026-12-21T10:00:02.654321Z',
        size_bytes: 48213,
        error: null,
        download_url: 'https://files.example.com/account-exports/…?X-Amz-Expires=3600&X-Amz-Signature=…',
        url_expires_at: '2026-11-21T11:05:00.000000Z',
      },
    ],
  },
);
