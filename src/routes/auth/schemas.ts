import { Type } from '@sinclair/typebox';
import { Id, Nullable, StrictObject, StringEnum, Timestamp } from '../../http/schemas/common.js';

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
  { title: 'CreatedToken', description: 'The new API key; its plaintext is shown this once' },
);

export const RevokedToken = Type.Object(
  { revoked: Type.Boolean(), name: Type.String(), revoked_at: Timestamp },
  { title: 'RevokedToken', description: 'The key is revoked; it answers 401 from now on' },
);

export const AuthMe = Type.Object(
  {
    user: Type.Object({ id: Id, email: Type.String(), first_name: Type.String(), last_name: Type.String() }),
    auth_method: StringEnum(['api_key', 'session']),
    token: Nullable(
      Type.Object({ name: Type.String(), created_at: Timestamp, last_used_at: Nullable(Timestamp) }, { description: 'The API key making this call; null for a session' }),
    ),
  },
  { title: 'AuthMe', description: 'Who is calling, and how they authenticated' },
);
