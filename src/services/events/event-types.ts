/** Every change an integrator may react to; `ping` is only ever sent to one endpoint on request. */
export const EVENT_TYPES = [
  'submission.created',
  'submission.updated',
  'submission.approved',
  'submission.rejected',
  'submission.pinned',
  'submission.unpinned',
  'submission.deleted',
  'media.processed',
  'export.completed',
  'export.failed',
  'transcription.completed',
  'transcription.failed',
  'member.added',
  'member.removed',
  'invitation.accepted',
  'book.created',
  'book.updated',
  'book.archived',
  'book.restored',
  'book.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the API shows it and as a webhook body carries it. */
export interface EventJson {
  id: string;
  type: EventType | 'ping';
  created_at: string;
  book_slug: string | null;
  data: { object: unknown };
}

/** Events are kept this long, then removed by housekeeping. */
export const EVENT_RETENTION_DAYS = 30;
