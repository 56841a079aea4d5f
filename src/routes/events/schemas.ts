import { Type } from '@sinclair/typebox';
import { Id, ListEnvelope, ListQuery, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { EVENT_TYPES } from '../../services/events/event-types.js';

export const EventParams = Type.Object({ id: Type.String({ maxLength: 200, description: 'Event id (opaque)' }) });

export const Event = Type.Object(
  {
    id: Id,
    type: StringEnum([...EVENT_TYPES, 'ping'] as const),
    created_at: Timestamp,
    book_slug: Nullable(Type.String({ description: 'The book the change happened in (null for ping)' })),
    sequence: Type.Integer({
      minimum: 1,
      description:
        "This event's number among the events of its resource (the submission, media file, export, member (per book and user), invitation or book that data.object is), " +
        'from 1 in the order the changes happened: of two events of one resource, the larger sequence is the newer. Deliveries can arrive out of order after a failed attempt ' +
        '(a retry does not hold later events back): keep the last sequence you applied per resource and ignore a smaller one, or fetch the resource. A ping is 1.',
    }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              "The resource as its GET route answered it when the event happened (a Submission, Media, ExportJob, Member, Invitation or Book); for a deletion {id} (a book: {slug}); for ping {endpoint_id}",
          },
        ),
      },
    ),
  },
  {
    $id: 'Event',
    title: 'Event',
    description:
      'A change in a book, recorded in the same transaction as the change. The body of a webhook delivery is this object; the webhook-id header is its id.',
  },
);

export const ListEventsQuery = Type.Composite([
  ListQuery,
  Type.Object({
    type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type; unknown: 400 query_param_invalid' })),
    // A slug's own form: anything else (a stray %, a space) can name no book, so it is 400 rather than an empty page.
    book_slug: Type.Optional(Type.String({ maxLength: 80, pattern: '^[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?$', description: 'Only events of this book (its slug); malformed: 400 query_param_invalid' })),
  }),
]);

export const EventList = ListEnvelope(Type.Ref('Event'), 'EventList');
