// Delivery log (Tapline extension): what was sent where, how it went, and redelivery.
// Views carry a payload summary, never the body's secrets (there are none) nor the
// endpoint's signing secrets, and hide URL query strings.
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { getEnvironment } from '../environments/store.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { displayUrl } from './deliver.ts';
import { notifyOutbox } from './outbox.ts';
import * as store from './store.ts';
import type { DeliveryRow, DeliveryStatus } from './store.ts';

export interface DeliveryView {
  id: number;
  event_id: string | null;
  event_type: string;
  destination: string;
  url: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: string;
  first_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  redelivery_of: number | null;
  payload_summary: Record<string, string | number | boolean | null>;
}

// Members of an event's data that identify what it is about.
const SUMMARY_MEMBERS = ['job_id', 'status', 'previous_status', 'flow_id', 'tenant', 'tap', 'target', 'connector_id', 'connector', 'job_type', 'kind'];

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function summarize(payload: string): { eventId: string | null; summary: DeliveryView['payload_summary'] } {
  try {
    const envelope = JSON.parse(payload) as { id?: string; data?: Record<string, unknown> };
    const summary: DeliveryView['payload_summary'] = {};
    for (const member of SUMMARY_MEMBERS) {
      const value = envelope.data?.[member];
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) summary[member] = value as string | number | boolean | null;
    }
    return { eventId: envelope.id ?? null, summary };
  } catch {
    return { eventId: null, summary: {} };
  }
}

export function toView(row: DeliveryRow): DeliveryView {
  const { eventId, summary } = summarize(row.payload);
  return {
    id: row.id, event_id: eventId, event_type: row.event_type, destination: row.destination,
    url: displayUrl(row.url), status: row.status, attempts: row.attempts,
    last_status_code: row.last_status_code, last_latency_ms: row.last_latency_ms, last_error: row.last_error,
    created_at: new Date(row.created_at).toISOString(), first_attempt_at: iso(row.first_attempt_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at), redelivery_of: row.redelivery_of, payload_summary: summary,
  };
}

async function requireEnvironment(ctx: AppContext, scope: EnvScope): Promise<void> {
  if (!(await getEnvironment(ctx.db.kysely, scope))) throw new NotFoundError(`Environment "${scope.envId}" not found`);
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: number | null;
}

export async function listDeliveries(
  ctx: AppContext, scope: EnvScope, query: { status?: DeliveryStatus; limit?: number; before?: number },
): Promise<DeliveryPage> {
  await requireEnvironment(ctx, scope);
  const limit = query.limit ?? 50;
  const rows = await store.listDeliveries(ctx.db.kysely, scope, { status: query.status, limit, before: query.before });
  return { deliveries: rows.map(toView), next_before: rows.length === limit ? rows[rows.length - 1].id : null };
}

export async function getDelivery(ctx: AppContext, scope: EnvScope, id: number): Promise<DeliveryView> {
  const row = await store.getDelivery(ctx.db.kysely, scope, id);
  if (!row) throw new NotFoundError(`Webhook delivery ${id} not found`);
  return toView(row);
}

/** Sends delivery `id` again as a new delivery (same event id and body); the original stays in the log. */
export async function redeliver(ctx: AppContext, scope: EnvScope, id: number): Promise<DeliveryView> {
  const original = await getDelivery(ctx, scope, id);
  if (original.status === 'pending') throw new ConflictError(`Webhook delivery ${id} is still pending; it will be sent without a redelivery`);
  const newId = await store.insertRedelivery(ctx.db.kysely, scope, id, ctx.now());
  if (newId === undefined) throw new NotFoundError(`Webhook delivery ${id} not found`);
  notifyOutbox();
  return getDelivery(ctx, scope, newId);
}
