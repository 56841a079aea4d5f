/**
 * Types derived from the generated document types (src/generated/schema.ts):
 * the resources by name, and the path sets the helpers accept.
 */
import type { components, operations, paths } from './generated/schema.js';

export type { components, operations, paths };

type Schemas = components['schemas'];
export type Book = Schemas['Book'];
export type Submission = Schemas['Submission'];
/** A media file as read, or as embedded in a submission (MediaSummary). */
export type Media = Schemas['MediaSummary'];
export type Member = Schemas['Member'];
export type Invitation = Schemas['Invitation'];
export type Plan = Schemas['Plan'];
/** A voice note's or video's transcript (GET/POST/PATCH …/media/{media_id}/transcription/, the transcription.* events). */
export type Transcription = Schemas['Transcription'];
/** A device registered for push (/me/devices/); its token is never shown back. */
export type Device = Schemas['Device'];
/** Every 4xx and 5xx answer but a schema failure. */
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
/** A 422 schema failure: `{detail: [{loc, msg, type}]}`. */
export type ValidationErrorBody = Schemas['ValidationError'];

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The paths that answer this method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
export type GetPath = PathsWith<'get'>;

type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer Op } ? Op : never;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type SuccessJson<Op> = Op extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;

/** The JSON a successful call of this method and path answers. */
export type ResponseOf<P extends keyof paths, M extends Method> = SuccessJson<Operation<P, M>>;
/** The JSON body this method and path takes. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** The path parameters of this path, e.g. `{ slug: string }`; `never` when it has none. */
export type PathParamsOf<P extends keyof paths> = paths[P] extends { parameters: { path: infer X } } ? X : Operation<P, 'get'> extends { parameters: { path: infer Y } } ? Y : never;
type QueryOf<P extends GetPath> = Operation<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The list routes: GET answers the envelope `{items, next_cursor, has_more}`. */
export type ListPath = {
  [P in GetPath]: ResponseOf<P, 'get'> extends { items: unknown[]; next_cursor: unknown; has_more: boolean } ? P : never;
}[GetPath];
export type ListItem<P extends ListPath> = ResponseOf<P, 'get'> extends { items: (infer I)[] } ? I : never;
/** The list routes that take `updated_since`, which `sync()` walks. */
export type SyncPath = { [P in ListPath]: [QueryOf<P>] extends [never] ? never : 'updated_since' extends keyof QueryOf<P> ? P : never }[ListPath];

type ListQueryOf<P extends ListPath> = Omit<QueryOf<P>, 'cursor' | 'updated_since'>;

/**
 * What a list helper is called with, in the shape of a raw call's options
 * (`mb.GET(path, { params: { path, query } })`): the path parameters (when
 * the path has any) and the query, less what the helper sets itself.
 */
export type ListArgs<P extends ListPath> = ([PathParamsOf<P>] extends [never]
  ? { params?: { path?: undefined; query?: ListQueryOf<P> } }
  : { params: { path: PathParamsOf<P>; query?: ListQueryOf<P> } }) & {
  signal?: AbortSignal;
};

/** The first shape of a list helper's arguments, still accepted. */
export type LegacyListArgs<P extends ListPath> = ([PathParamsOf<P>] extends [never]
  ? {
      /** @deprecated Pass `params: { path }`, as with `mb.GET`. */
      path?: undefined;
    }
  : {
      /** @deprecated Pass `params: { path }`, as with `mb.GET`. */
      path: PathParamsOf<P>;
    }) & {
  /** @deprecated Pass `params: { query }`, as with `mb.GET`. */
  query?: ListQueryOf<P>;
  params?: undefined;
  signal?: AbortSignal;
};

/** The argument list of a list helper: optional when the path has no parameters. */
export type ListArgsParam<P extends ListPath> = [PathParamsOf<P>] extends [never]
  ? [args?: ListArgs<P> | LegacyListArgs<P>]
  : [args: ListArgs<P> | LegacyListArgs<P>];

/** The paths that can be read, then updated with If-Match: the book, a submission, the profile. */
export type UpdatablePath = { [P in PathsWith<'patch'>]: P extends GetPath ? P : never }[PathsWith<'patch'>];

/** One page of a list, with the sync watermark the server sent along. */
export interface Page<I> {
  items: I[];
  next_cursor: string | null;
  has_more: boolean;
  /** The page's Last-Modified header: the `updated_since` to send next time. */
  lastModified: string | null;
}
