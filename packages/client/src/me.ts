import type { operations } from './generated/schema.js';
import type { ListItem } from './types.js';

/** A book you belong to, and your role in it (GET /me/memberships/). */
export type Membership = ListItem<'/api/v1/me/memberships/'>;
/** One of your memories, with the book it is in (GET /me/submissions/). */
export type MySubmission = ListItem<'/api/v1/me/submissions/'>;
/** One of your notification subscriptions, with its book (GET /me/subscriptions/). */
export type MySubscription = ListItem<'/api/v1/me/subscriptions/'>;

type Query<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? Omit<NonNullable<Q>, 'cursor' | 'updated_since'> : never;

/** What a /me list helper takes: the list's query (less the cursor, which the helper follows) and a signal. */
export type MeListOptions<Op extends keyof operations> = Query<Op> & { signal?: AbortSignal };

/**
 * Your own things across books, any role (a contributor included), row after
 * row through every page: `for await (const m of mb.me.submissions({ status: 'approved' }))`.
 */
export interface MeHelpers {
  memberships(options?: MeListOptions<'listMyMemberships'>): AsyncGenerator<Membership, void, undefined>;
  submissions(options?: MeListOptions<'listMySubmissions'>): AsyncGenerator<MySubmission, void, undefined>;
  subscriptions(options?: MeListOptions<'listMySubscriptions'>): AsyncGenerator<MySubscription, void, undefined>;
}

type Items = (path: string, args?: { params?: { query?: object }; signal?: AbortSignal }) => AsyncGenerator<unknown, void, undefined>;

export function createMeHelpers(items: Items): MeHelpers {
  const list = <T>(path: string, options: { signal?: AbortSignal } & Record<string, unknown> = {}) => {
    const { signal, ...query } = options;
    return items(path, { params: { query }, signal }) as AsyncGenerator<T, void, undefined>;
  };
  return {
    memberships: (o) => list<Membership>('/api/v1/me/memberships/', o),
    submissions: (o) => list<MySubmission>('/api/v1/me/submissions/', o),
    subscriptions: (o) => list<MySubscription>('/api/v1/me/subscriptions/', o),
  };
}
