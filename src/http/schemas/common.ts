import { Type, type TSchema, type TObject, type TProperties, type ObjectOptions, type StringOptions, type SchemaOptions } from '@sinclair/typebox';

/** ISO 8601 UTC with microseconds, e.g. 2026-11-21T10:00:00.123456Z. */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00.123456Z'] });
export const Id = Type.String({ description: 'Opaque identifier', examples: ['01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b'] });
export const Etag = Type.String({ description: 'Quoted ISO 8601 timestamp; compare for equality only', examples: ['"2026-11-21T10:00:00.123456Z"'] });

/**
 * One of a fixed set of strings, written as a string `enum` (the one enum
 * style of the document). The serialiser writes it as a plain string, where a
 * union of literals would make it run a validator on every value.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * The keyword that lists the allowed values of a request field the service
 * checks, rather than the schema (see `ServiceCheckedEnum`). The validator
 * ignores it (Ajv runs with strict: false); the document turns it into `enum`.
 */
export const SERVICE_ENUM_KEYWORD = 'x-service-enum';

/**
 * A request string from a fixed list that the service checks, not the schema:
 * an unknown value answers 400 validation_failed with details.offered (the
 * contract), where a schema `enum` would answer 422. The document still lists
 * the values as an `enum`, so generated clients get the union type.
 */
export function ServiceCheckedEnum(values: readonly string[], options: StringOptions = {}) {
  return Type.String({ ...options, [SERVICE_ENUM_KEYWORD]: [...values] });
}

/**
 * `T | null` written as a JSON Schema type array wherever possible (OpenAPI
 * 3.1): the response serialiser handles a type array directly, while an
 * `anyOf` makes it run a validator on every value to pick the branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type?: unknown; enum?: unknown[]; anyOf?: { const?: unknown; type?: unknown }[] };
  if (typeof s.type === 'string' && s.type !== 'array') {
    // An enum must list null too, or the type array alone would not let it through.
    const values = Array.isArray(s.enum) ? { enum: [...s.enum, null] } : {};
    return Type.Unsafe<T['static'] | null>({ ...schema, type: [s.type, 'null'], ...values });
  }
  // A union of string literals (an enum): one string-or-null type with the values listed.
  if (s.anyOf && s.anyOf.every((b) => typeof b.const === 'string')) {
    const values = s.anyOf.map((b) => b.const as string);
    const { anyOf: _drop, ...rest } = schema as unknown as Record<string, unknown>;
    return Type.Unsafe<T['static'] | null>({ ...rest, type: ['string', 'null'], enum: [...values, null] });
  }
  return Type.Union([schema, Type.Null()]);
}

/** Request bodies reject unknown fields (422), never drop them. */
export function StrictObject<T extends TProperties>(props: T, options: ObjectOptions = {}): TObject<T> {
  return Type.Object(props, { additionalProperties: false, ...options });
}

/*
 * Response schemas are plain objects that allow unknown fields: fields are
 * added inside v1, and a client validating strictly must not break on them.
 * (The serialiser still writes only the listed fields, and the test harness
 * checks every response strictly.)
 */

export const ErrorEnvelope = Type.Object(
  {
    code: Type.String({ description: 'Stable identifier; branch on this' }),
    message: Type.String({ description: 'For people; may change' }),
    details: Nullable(Type.Object({}, { additionalProperties: true, description: 'Machine-readable specifics of this code, or null' })),
    request_id: Type.String({ description: 'Equals the X-Request-Id header; quote it in support requests' }),
  },
  {
    $id: 'ErrorEnvelope',
    title: 'ErrorEnvelope',
    description: 'Every 4xx and 5xx answer (except schema failures, 422 {detail})',
    examples: [
      {
        code: 'not_found',
        message: 'The requested book was not found.',
        details: null,
        request_id: '5b0e6c1e-7d0a-4a3e-9a43-8f1f0f7d2c11',
      },
    ],
  },
);

export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: 'Where: "body" then the field path' }),
        msg: Type.String(),
        type: Type.String({ description: 'Stable kind of failure, e.g. missing, extra_forbidden, string_too_long' }),
      }),
    ),
  },
  {
    $id: 'ValidationError',
    title: 'ValidationError',
    description: 'A body that does not match the schema: one entry per offending field',
    examples: [{ detail: [{ loc: ['body', 'title'], msg: 'Field required', type: 'missing' }] }],
  },
);

export function ListEnvelope<T extends TSchema>(item: T, title: string, description = 'One page of the list') {
  return Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Nullable(Type.String({ description: 'Opaque; pass back as ?cursor=' })),
      has_more: Type.Boolean(),
    },
    { title, description },
  );
}

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size' })),
  cursor: Type.Optional(Type.String({ maxLength: 2000, description: "The previous page's next_cursor" })),
  updated_since: Type.Optional(
    Type.String({ maxLength: 100, description: 'ISO 8601 or HTTP-date; pin it to the previous Last-Modified', examples: ['2026-11-21T10:00:00.123456Z'] }),
  ),
});

/** The body of a route that takes none: still validated, so a body with fields in it is 422 (never silently dropped). */
export const EmptyBody = Nullable(StrictObject({}));
