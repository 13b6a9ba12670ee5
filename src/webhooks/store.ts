// Delivery-log queries of one environment (every function filters by scope.envId).
import type { Kysely, Selectable } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { Database, WebhookEventsTable } from '../db/types.ts';

export type DeliveryRow = Omit<Selectable<WebhookEventsTable>, 'secrets_enc'>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface ListDeliveriesQuery {
  readonly status?: DeliveryStatus;
  readonly limit: number;
  /** Only deliveries with a smaller id (the `next_before` of the previous page). */
  readonly before?: number;
}

// Every column except the sealed secrets, which never leave the worker.
const COLUMNS = [
  'id', 'env_id', 'event_type', 'ordering_key', 'url', 'payload', 'status', 'attempts', 'next_attempt_at',
  'locked_until', 'last_status_code', 'last_latency_ms', 'last_error', 'created_at', 'delivered_at',
  'first_attempt_at', 'destination', 'redelivery_of',
] as const;

/** Newest first. */
export async function listDeliveries(db: Kysely<Database>, scope: EnvScope, query: ListDeliveriesQuery): Promise<DeliveryRow[]> {
  let q = db.selectFrom('webhook_events').select(COLUMNS).where('env_id', '=', scope.envId);
  if (query.status) q = q.where('status', '=', query.status);
  if (query.before !== undefined) q = q.where('id', '<', query.before);
  return q.orderBy('id', 'desc').limit(query.limit).execute();
}

export async function getDelivery(db: Kysely<Database>, scope: EnvScope, id: number): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_events').select(COLUMNS)
    .where('env_id', '=', scope.envId).where('id', '=', id).executeTakeFirst();
}

/** Queues a copy of delivery `id` (same body, endpoint, secrets and ordering key); returns the new id. */
export async function insertRedelivery(db: Kysely<Database>, scope: EnvScope, id: number, now: number): Promise<number | undefined> {
  const original = await db.selectFrom('webhook_events').selectAll()
    .where('env_id', '=', scope.envId).where('id', '=', id).executeTakeFirst();
  if (!original) return undefined;
  const inserted = await db.insertInto('webhook_events').values({
    env_id: scope.envId, event_type: original.event_type, ordering_key: original.ordering_key, url: original.url,
    secrets_enc: original.secrets_enc, payload: original.payload, status: 'pending', attempts: 0,
    next_attempt_at: now, locked_until: null, last_status_code: null, last_latency_ms: null, last_error: null,
    created_at: now, delivered_at: null, first_attempt_at: null, destination: original.destination, redelivery_of: original.id,
  }).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}
