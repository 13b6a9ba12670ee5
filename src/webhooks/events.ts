// Typed helpers that build event payloads for the other domains, so every
// event of one kind has the same shape and ordering key. All take the caller's
// database handle: pass the transaction of the change that caused the event.
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { recordEvent, type LifecycleWebhook } from './outbox.ts';

export type DiscoverStatus = 'DISCOVER_STARTED' | 'DISCOVER_SUCCESS' | 'DISCOVER_FAILED';

/**
 * What a `job.status_changed` event carries (built by src/jobs/status.ts): every
 * member of the Job resource as the API returns it, plus the members below.
 */
export interface JobStatusEventData {
  job_id: string;
  job_name: string;
  env_id: string;
  flow_id: string;
  tenant: string;
  tap: string;
  status: string;
  /** The status before this change; null for the first one (JOB_CREATED). */
  previous_status: string | null;
  message: string | null;
  start_time: string;
  last_updated: string;
  scheduled_job: boolean;
  processed_rows: number;
  state?: unknown;
  /** v2 flows; null on v1. */
  connector_id: string | null;
  job_type: 'read' | 'write' | null;
  sync_type: 'incremental_sync' | 'full_sync';
  metrics: { recordCount: Record<string, number> };
  [member: string]: unknown;
}

export interface DiscoverEventInput {
  readonly flowId: string;
  readonly tenant: string;
  /** The tap (v1) or connector id (v2) being discovered. */
  readonly connector: string;
  readonly status: DiscoverStatus;
  readonly message?: string | null;
  /** Set when the discovery runs inside a job: ordered with that job's events. */
  readonly jobId?: string | null;
  /** The job's override_lifecycle_webhook, which then receives the event instead. */
  readonly override?: LifecycleWebhook | null;
}

/** Queues a `discover.status_changed` event. */
export async function recordDiscoverEvent(
  db: Kysely<Database>, ctx: AppContext, scope: EnvScope, input: DiscoverEventInput,
): Promise<string | null> {
  const jobId = input.jobId ?? null;
  return recordEvent(db, ctx, scope, {
    type: 'discover.status_changed',
    orderingKey: jobId ? `job:${jobId}` : `discover:${input.flowId}:${input.tenant}:${input.connector}`,
    data: {
      env_id: scope.envId, flow_id: input.flowId, tenant: input.tenant, connector: input.connector,
      status: input.status, message: input.message ?? null, job_id: jobId,
    },
    override: jobId ? input.override ?? null : null,
  });
}

export type ConnectionEventType = 'connection.linked' | 'connection.updated' | 'connection.unlinked';

/** The member naming the link, as in the API's link bodies. */
const LINK_NAME_MEMBER = { source: 'tap', target: 'target', connector: 'connector_id' } as const;

export interface ConnectionEventInput {
  readonly flowId: string;
  readonly tenant: string;
  readonly kind: 'source' | 'target' | 'connector';
  /** tap / target name, or connector id. */
  readonly name: string;
  /** Which non-secret parts changed (e.g. ['config', 'field_map']); names only. */
  readonly changed?: readonly string[];
}

/**
 * Queues a connection.* event. Only the identifying members are sent — never the
 * link's config — so the payload cannot carry credentials. Ordered per tenant,
 * together with tenant.deleted.
 */
export async function recordConnectionEvent(
  db: Kysely<Database>, ctx: AppContext, scope: EnvScope, type: ConnectionEventType, input: ConnectionEventInput,
): Promise<string | null> {
  return recordEvent(db, ctx, scope, {
    type,
    orderingKey: `tenant:${input.tenant}`,
    data: {
      env_id: scope.envId, flow_id: input.flowId, tenant: input.tenant, kind: input.kind, [LINK_NAME_MEMBER[input.kind]]: input.name,
      ...(input.changed ? { changed: [...input.changed] } : {}),
    },
  });
}

/** Queues `tenant.deleted` (ordered after the tenant's connection events). */
export async function recordTenantDeleted(db: Kysely<Database>, ctx: AppContext, scope: EnvScope, tenant: string): Promise<string | null> {
  return recordEvent(db, ctx, scope, {
    type: 'tenant.deleted',
    orderingKey: `tenant:${tenant}`,
    data: { env_id: scope.envId, tenant },
  });
}
