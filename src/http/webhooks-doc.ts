import { EVENT_TYPES, type EventType } from '../services/events/event-types.js';

/** The resource each event type carries in data.object (a component schema), or the deletion's shape. */
const OBJECTS: Record<EventType | 'ping', { ref?: string; shape?: Record<string, unknown>; summary: string }> = {
  'submission.created': { ref: 'Submission', summary: 'A memory arrived (API, web form, an inbound channel)' },
  'submission.updated': { ref: 'Submission', summary: 'A memory was edited, a file was added to or removed from it, or its share card is ready' },
  'submission.approved': { ref: 'Submission', summary: 'A memory was approved' },
  'submission.rejected': { ref: 'Submission', summary: 'A memory was rejected' },
  'submission.pinned': { ref: 'Submission', summary: 'A memory was pinned' },
  'submission.unpinned': { ref: 'Submission', summary: 'A memory was unpinned' },
  'submission.deleted': { shape: idShape('The deleted submission'), summary: 'A memory was deleted' },
  'media.processed': { ref: 'MediaSummary', summary: 'A media file finished processing: complete, failed, or found infected (scan_result)' },
  'export.completed': { ref: 'ExportJob', summary: 'An export is ready to download' },
  'export.failed': { ref: 'ExportJob', summary: 'An export failed for good' },
  'transcription.completed': { ref: 'Transcription', summary: 'A transcript of a voice note or video is ready' },
  'transcription.failed': { ref: 'Transcription', summary: 'A transcription failed for good (failure_reason says why)' },
  'member.added': { ref: 'Member', summary: 'Someone joined the book (added, or by an invitation)' },
  'member.removed': {
    shape: {
      type: 'object',
      required: ['id', 'user_id'],
      properties: {
        id: { type: 'string', description: "The removed member's user id (kept for existing receivers)" },
        user_id: { type: 'string', description: "The removed member's user id: the field member.added's Member names it by" },
      },
      additionalProperties: false,
    },
    summary: 'A member was removed, or left when their account was deleted',
  },
  'invitation.accepted': { ref: 'Invitation', summary: 'An invitation was accepted' },
  'book.created': { ref: 'Book', summary: 'A book was created (the book as its owner reads it)' },
  'book.updated': { ref: 'Book', summary: "The book changed: its fields, its plan or billing state, its form key (the book as its owner reads it)" },
  'book.archived': { ref: 'Book', summary: 'The book was archived' },
  'book.restored': { ref: 'Book', summary: 'The book was restored' },
  'book.deleted': {
    shape: { type: 'object', required: ['slug'], properties: { slug: { type: 'string', description: 'The deleted book' } }, additionalProperties: false },
    summary: 'The book was deleted',
  },
  ping: {
    shape: { type: 'object', required: ['endpoint_id'], properties: { endpoint_id: { type: 'string' } }, additionalProperties: false },
    summary: 'A test event, sent by POST /webhook_endpoints/{id}/test/',
  },
};

function idShape(description: string) {
  return { type: 'object', required: ['id'], properties: { id: { type: 'string', description } }, additionalProperties: false };
}

const HEADERS = [
  ['webhook-id', 'The event id: the same on every retry of this event, so a receiver can drop repeats'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed; refuse ones far from now'],
  [
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}` under the base64 key after `whsec_` (two during the 24 hours after a rotation); verify with any Standard Webhooks library',
  ],
] as const;

/**
 * The document's `webhooks` section (OpenAPI 3.1): one entry per event type,
 * the request we send to an endpoint, its body an Event whose data.object is
 * the resource named.
 */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    [...EVENT_TYPES, 'ping' as const].map((type) => {
      const o = OBJECTS[type];
      const object = o.ref ? { $ref: `#/components/schemas/${o.ref}` } : o.shape;
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace('.', '_')}`,
            tags: ['webhooks'],
            summary: o.summary,
            description:
              'Sent to every enabled endpoint that wants this type, of the users who were owner or admin of the book when it happened. ' +
              'A 2xx within 15 s is delivered; otherwise retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the endpoint is disabled; 410 disables it at once. ' +
              'Order: the events of one resource go to an endpoint in the order they happened, one at a time (the next once the previous is answered); ' +
              'after a failed attempt later events are not held back by its retry, so compare `sequence` (per resource, larger is newer) or fetch the resource. ' +
              'At most 4 deliveries are in flight to one endpoint at once. File URLs in the object (media download and thumbnail URLs, share cards) are signed when the event happens and live 15 minutes: fetch the resource for fresh ones.',
            parameters: HEADERS.map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Event' },
                      { type: 'object', properties: { type: { const: type }, data: { type: 'object', required: ['object'], properties: { object } } } },
                    ],
                  },
                },
              },
            },
            responses: {
              '200': { description: 'Any 2xx: delivered' },
              '410': { description: 'Gone: the endpoint is disabled at once' },
            },
          },
        },
      ];
    }),
  );
}
