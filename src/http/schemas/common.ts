import { Type, type TSchema, type TObject, type TProperties, type ObjectOptions } from '@sinclair/typebox';

/** ISO 8601 UTC with microseconds, e.g. 2026-11-21T10:00:00.123456Z. */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T10:00:00.123456Z'] });
export const Id = Type.String({ description: 'Opaque identifier', examples: ['01935f4e-8c2a-7b1e-9a51-2f6f3c1d0e4b'] });
export const Etag = Type.String({ description: 'Quoted ISO 8601 timestamp; compare for equality only', examples: ['"2026-11-21T10:00:00.123456Z"'] });

/**
 * `T | null` written as a JSON Schema type array wherever possible (OpenAPI
 * 3.1): the response serialiser handles a type array directly, while an
 * `anyOf` makes it run a validator on every value to pick the branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type?: unknown; anyOf?: { const?: unknown; type?: unknown }[] };
  if (typeof s.type === 'string' && s.type !== 'array') {
    return Type.Unsafe<T['static'] | null>({ ...schema, type: [s.type, 'null'] });
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

export const ErrorEnvelope = Type.Object(
  {
    code: Type.String({ description: 'Stable identifier; branch on this' }),
    message: Type.String(),
    details: Nullable(Type.Object({}, { additionalProperties: true })),
    request_id: Type.String(),
  },
  { $id: 'ErrorEnvelope', title: 'ErrorEnvelope', additionalProperties: false },
);

export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object(
        {
          loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
          msg: Type.String(),
          type: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'ValidationError', title: 'ValidationError', additionalProperties: false },
);

export function ListEnvelope<T extends TSchema>(item: T, title: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Nullable(Type.String({ description: 'Opaque; pass back as ?cursor=' })),
      has_more: Type.Boolean(),
    },
    { title, additionalProperties: false },
  );
}

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 2000 })),
  updated_since: Type.Optional(Type.String({ maxLength: 100, description: 'ISO 8601 or HTTP-date' })),
});

export const EmptyBody = Nullable(StrictObject({}));
