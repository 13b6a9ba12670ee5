// Queued jobs (queue_if_active_job): QUEUED -> STARTED when the active job of
// their lane (tenant, flow, connector) ends, in id order; or CANCELLED.
import type { Kysely } from 'kysely';
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import { tenantScopeOf } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database, QueuedJobsTable } from '../db/types.ts';
import { inTransaction, recordStatusEvent } from './events.ts';
import { openTicket, type JobTicket } from './request.ts';
import { findActiveJob, insertJob, releaseIdempotencyKey } from './store.ts';
import type { JobRow } from './views.ts';

type Db = Kysely<Database>;
export type QueuedRow = QueuedJobsTable & { id: number };
export type QueuedStatus = 'QUEUED' | 'STARTED' | 'CANCELLED';

export async function insertQueued(db: Db, scope: TenantScope, ticket: JobTicket, sealed: string, now: number): Promise<QueuedRow> {
  const row = await db.insertInto('queued_jobs').values({
    env_id: scope.envId, tenant_id: scope.tenant, flow_id: ticket.flowId, connector: ticket.connector,
    job_type: ticket.jobType, status: 'QUEUED', job_name: ticket.jobName, request_enc: sealed,
    job_id: ticket.jobId, schedule_id: ticket.scheduleId, created_at: now, updated_at: now,
  }).returningAll().executeTakeFirstOrThrow();
  return row as QueuedRow;
}

function laneQuery(db: Db, scope: TenantScope, flowId: string) {
  return db.selectFrom('queued_jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant).where('flow_id', '=', flowId);
}

/** Waiting jobs of a tenant's flow (all connectors), oldest first. */
export async function listQueued(db: Db, scope: TenantScope, flowId: string, connector?: string): Promise<QueuedRow[]> {
  let query = laneQuery(db, scope, flowId).where('status', '=', 'QUEUED');
  if (connector !== undefined) query = query.where('connector', '=', connector);
  return (await query.orderBy('id').execute()) as QueuedRow[];
}

export async function getQueued(db: Db, scope: TenantScope, flowId: string, id: number): Promise<QueuedRow | undefined> {
  return (await laneQuery(db, scope, flowId).where('id', '=', id).executeTakeFirst()) as QueuedRow | undefined;
}

export async function getQueuedByJobId(db: Db, scope: TenantScope, flowId: string, jobId: string): Promise<QueuedRow | undefined> {
  return (await laneQuery(db, scope, flowId).where('job_id', '=', jobId).executeTakeFirst()) as QueuedRow | undefined;
}

/** QUEUED -> CANCELLED; returns false when it was no longer queued. */
export async function cancelQueued(db: Db, scope: TenantScope, id: number, now: number): Promise<boolean> {
  const result = await db.updateTable('queued_jobs').set({ status: 'CANCELLED', updated_at: now })
    .where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant).where('id', '=', id).where('status', '=', 'QUEUED')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function cancelTenantQueue(db: Db, scope: TenantScope, now: number): Promise<number> {
  const result = await db.updateTable('queued_jobs').set({ status: 'CANCELLED', updated_at: now })
    .where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant).where('status', '=', 'QUEUED').executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteTenantQueue(db: Db, scope: TenantScope): Promise<void> {
  await db.deleteFrom('queued_jobs').where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant).execute();
}

/**
 * Creates the job of a queued request: QUEUED -> STARTED and a JOB_CREATED job
 * with the ticket fixed when it was queued. Returns null when it was not queued any more.
 */
export async function startQueued(db: Db, ctx: AppContext, scope: TenantScope, queued: QueuedRow): Promise<JobRow | null> {
  return inTransaction(db, async (trx) => {
    const now = ctx.now();
    const moved = await trx.updateTable('queued_jobs').set({ status: 'STARTED', updated_at: now })
      .where('env_id', '=', scope.envId).where('id', '=', queued.id).where('status', '=', 'QUEUED').executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return null;
    const ticket = openTicket(ctx, queued.request_enc);
    if (ticket.idempotencyKey) await releaseIdempotencyKey(trx, scope, ticket.idempotencyKey);
    const row = await insertJob(trx, scope, ticket, queued.request_enc, now, queued.id);
    await recordStatusEvent(trx, ctx, scope, row, null);
    return row;
  });
}

/** After `finished` ended: starts the oldest queued job of its lane, unless another job there is still active. */
export async function startNextQueued(trx: Db, ctx: AppContext, scope: EnvScope, finished: JobRow): Promise<JobRow | null> {
  const tenantScope = tenantScopeOf(scope, finished.tenant);
  const connector = finished.connector_id ?? finished.tap;
  if (await findActiveJob(trx, tenantScope, finished.flow_id, connector)) return null;
  const [next] = await listQueued(trx, tenantScope, finished.flow_id, connector);
  return next ? startQueued(trx, ctx, tenantScope, next) : null;
}
