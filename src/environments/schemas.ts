import { Type, type Static } from 'typebox';

export const EnvParams = Type.Object({ env_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const KeyParams = Type.Object({ env_id: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) });

export const CreateEnvironmentBody = Type.Object({
  env_id: Type.String({ minLength: 1, maxLength: 64, description: 'Letters, digits, "_", "-", "."' }),
});

export const CreateEnvironmentReply = Type.Object({
  env_id: Type.String(),
  api_keys: Type.Object({ environment: Type.String(), public: Type.String() }),
});

const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 100 });

export const EnvironmentPatchBody = Type.Object({
  require_tenant_jwt: Type.Optional(Type.Boolean()),
  preferences: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  webhook_url: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()])),
  webhook_events: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()])),
  webhook_secret: Type.Optional(Type.Union([Type.String({ minLength: 8, maxLength: 500 }), Type.Null()])),
  webhook_secret_overlap_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 720 })),
  cors_origins: Type.Optional(Origins),
}, { additionalProperties: false });
export type EnvironmentPatchBody = Static<typeof EnvironmentPatchBody>;

export const EnvironmentView = Type.Object({
  env_id: Type.String(),
  require_tenant_jwt: Type.Boolean(),
  preferences: Type.Record(Type.String(), Type.Unknown()),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_events: Type.Union([Type.Array(Type.String()), Type.Null()]),
  webhook_secret_set: Type.Boolean(),
  signing_key_set: Type.Boolean(),
  cors_origins: Type.Array(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const CreateKeyBody = Type.Object({
  type: Type.Union([Type.Literal('environment'), Type.Literal('personal'), Type.Literal('public')]),
  role: Type.Optional(Type.Union([Type.Literal('admin'), Type.Literal('developer'), Type.Literal('viewer')])),
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
}, { additionalProperties: false });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

const KeyFields = {
  id: Type.String(),
  env_id: Type.String(),
  type: Type.String(),
  role: Type.Union([Type.String(), Type.Null()]),
  user: Type.Union([Type.String(), Type.Null()]),
  prefix: Type.String({ description: 'First characters of the key; identifies it, cannot be used as one' }),
  created_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
};
export const ApiKeyView = Type.Object(KeyFields);
export const CreatedKeyView = Type.Object({ ...KeyFields, key: Type.String({ description: 'Shown once' }) });

export const SigningKeyReply = Type.Object({
  private_key: Type.String({ description: 'Base64 of the PKCS#8 PEM private key; shown once, not stored' }),
  public_key: Type.String({ description: 'PEM public key, stored to verify tenant tokens' }),
});
