import { Type } from '@sinclair/typebox';
import { Id, Nullable, StrictObject, Timestamp } from '../../http/schemas/common.js';

export const CreateTokenBody = StrictObject({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique among your live tokens', examples: ['ci-deploy'] }),
});

export const CreatedToken = Type.Object(
  {
    id: Id,
    name: Type.String(),
    plaintext: Nullable(Type.String({ description: 'The key, shown once; null on an idempotent replay' })),
    replayed: Type.Boolean(),
    created_at: Timestamp,
  },
  { title: 'CreatedToken', additionalProperties: false },
);

export const RevokedToken = Type.Object(
  { revoked: Type.Boolean(), name: Type.String(), revoked_at: Timestamp },
  { title: 'RevokedToken', additionalProperties: false },
);

export const AuthMe = Type.Object(
  {
    user: Type.Object({ id: Id, email: Type.String(), first_name: Type.String(), last_name: Type.String() }, { additionalProperties: false }),
    auth_method: Type.Union([Type.Literal('api_key'), Type.Literal('session')]),
    token: Nullable(
      Type.Object({ name: Type.String(), created_at: Timestamp, last_used_at: Nullable(Timestamp) }, { additionalProperties: false }),
    ),
  },
  { title: 'AuthMe', additionalProperties: false },
);
