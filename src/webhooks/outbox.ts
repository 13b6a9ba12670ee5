// The webhook outbox: events are written in the same transaction as the change
// that caused them, so a crash can never lose one. The delivery worker sends them.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { getEnvironment } from '../environments/store.ts';

export const WEBHOOK_EVENT_TYPES = [
  'job.status_changed',
  'discover.status_changed',
  'connection.linked',
  'connection.updated',
  'connection.unlinked',
  'tenant.deleted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

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

/** The JSON body of every delivery (Standard Webhooks payload shape plus env_id). */
export interface EventEnvelope {
  /** Also the `webhook-id` header; the same on every retry and redelivery. */
  id: string;
  type: WebhookEventType;
  /** ISO 8601 time the event happened. */
  timestamp: string;
  env_id: string;
  data: Record<string, unknown>;
}

/**
 * Whether an environment's `webhook_events` filter lets `type` through: null (no
 * filter) sends everything; entries are exact types, `*`, or a group like `job.*`.
 */
export function eventWanted(filter: readonly string[] | null, type: string): boolean {
  if (filter === null) return true;
  const group = `${type.slice(0, type.indexOf('.'))}.*`;
  return filter.includes(type) || filter.includes('*') || filter.includes(group);
}

// Wakes an in-process delivery worker so events go out without waiting for its next poll.
const wakers = new Set<() => void>();

export function onOutboxWrite(wake: () => void): () => void {
  wakers.add(wake);
  return () => wakers.delete(wake);
}

export function notifyOutbox(): void {
  for (const wake of wakers) wake();
}

export function newEventId(): string {
  return `msg_${crypto.randomBytes(12).toString('base64url')}`;
}

/**
 * Queues `event` for delivery inside `db` (pass the transaction of the change, and
 * call it after the change's own UPDATE so concurrent changes of one subject are
 * ordered by the row lock). Environment webhooks are signed with the environment's
 * secrets at send time, so a rotation applies to queued events too; an override's
 * secret is sealed into the row. Returns the envelope id, or null when nobody listens.
 */
export async function recordEvent(db: Kysely<Database>, ctx: AppContext, scope: EnvScope, event: WebhookEvent): Promise<string | null> {
  let url: string | null = null;
  let secretsEnc: string | null = null;
  if (event.override?.url) {
    url = event.override.url;
    secretsEnc = event.override.secret ? ctx.secrets.sealJson([event.override.secret]) : null;
  } else {
    const env = await getEnvironment(db, scope);
    if (env?.settings.webhook_url && eventWanted(env.settings.webhook_events, event.type)) url = env.settings.webhook_url;
  }
  if (url === null) return null;
  const now = ctx.now();
  const envelope: EventEnvelope = {
    id: newEventId(),
    type: event.type,
    timestamp: new Date(now).toISOString(),
    env_id: scope.envId,
    data: event.data,
  };
  await db.insertInto('webhook_events').values({
    env_id: scope.envId, event_type: event.type, ordering_key: event.orderingKey, url,
    secrets_enc: secretsEnc, payload: JSON.stringify(envelope), status: 'pending', attempts: 0,
    next_attempt_at: now, locked_until: null, last_status_code: null, last_latency_ms: null,
    last_error: null, created_at: now, delivered_at: null,
    destination: event.override?.url ? 'override' : 'environment',
  }).execute();
  notifyOutbox();
  return envelope.id;
}
