// The webhook outbox: events are written in the same transaction as the change
// that caused them, so a crash can never lose one. The delivery worker sends them.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { getEnvironment } from '../environments/store.ts';

export type WebhookEventType =
  | 'job.status_changed'
  | 'discover.status_changed'
  | 'connection.linked'
  | 'connection.updated'
  | 'connection.unlinked'
  | 'tenant.deleted';

export interface LifecycleWebhook {
  readonly url: string;
  readonly secret?: string | null;
}

export interface WebhookEvent {
  readonly type: WebhookEventType;
  /** Deliveries with one key go to one endpoint in order (e.g. `job:<id>`). */
  readonly orderingKey: string;
  /** Event details; never secrets. */
  readonly data: Record<string, unknown>;
  /** A job's override_lifecycle_webhook: receives this event instead of the environment's webhook. */
  readonly override?: LifecycleWebhook | null;
}

export interface EventEnvelope {
  id: string;
  type: WebhookEventType;
  env_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

function wanted(filter: string[] | null, type: string): boolean {
  return filter === null || filter.includes(type) || filter.includes('*');
}

/**
 * Queues `event` for delivery inside `db` (pass the transaction of the change).
 * Environment webhooks are signed with the environment's secrets at send time, so a
 * rotation applies to queued events too; an override's secret is sealed into the row.
 */
export async function recordEvent(db: Kysely<Database>, ctx: AppContext, scope: EnvScope, event: WebhookEvent): Promise<void> {
  let url: string | null = null;
  let secretsEnc: string | null = null;
  if (event.override?.url) {
    url = event.override.url;
    secretsEnc = event.override.secret ? ctx.secrets.sealJson([event.override.secret]) : null;
  } else {
    const env = await getEnvironment(db, scope);
    if (env?.settings.webhook_url && wanted(env.settings.webhook_events, event.type)) url = env.settings.webhook_url;
  }
  if (url === null) return;
  const now = ctx.now();
  const envelope: EventEnvelope = {
    id: `msg_${crypto.randomBytes(12).toString('base64url')}`,
    type: event.type,
    env_id: scope.envId,
    created_at: new Date(now).toISOString(),
    data: event.data,
  };
  await db.insertInto('webhook_events').values({
    env_id: scope.envId, event_type: event.type, ordering_key: event.orderingKey, url,
    secrets_enc: secretsEnc, payload: JSON.stringify(envelope), status: 'pending', attempts: 0,
    next_attempt_at: now, locked_until: null, last_status_code: null, last_latency_ms: null,
    last_error: null, created_at: now, delivered_at: null,
  }).execute();
}
