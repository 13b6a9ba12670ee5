import { Type } from 'typebox';

export const DeliveryListParams = Type.Object({ env_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  env_id: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.Integer({ minimum: 1 }),
});

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'Only deliveries with a smaller id: `next_before` of the previous page' })),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

export const DeliveryView = Type.Object({
  id: Type.Integer(),
  event_id: Nullable(Type.String({ description: 'The envelope id and `webhook-id` header' })),
  event_type: Type.String(),
  destination: Type.String({ description: '`environment` or `override` (a job\'s override_lifecycle_webhook)' }),
  url: Type.String({ description: 'Endpoint; a query string is shown as ?[hidden]' }),
  status: Type.String({ description: '`pending`, `delivered` or `failed`' }),
  attempts: Type.Integer(),
  last_status_code: NullableInt,
  last_latency_ms: NullableInt,
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
  first_attempt_at: Nullable(Type.String()),
  next_attempt_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  redelivery_of: NullableInt,
  payload_summary: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
});

export const DeliveryPage = Type.Object({
  deliveries: Type.Array(DeliveryView),
  next_before: NullableInt,
});
