// Job rows, always read through a scope: a query can never reach another
// environment's or tenant's jobs. (The worker's cross-environment queries are in
// worker-store.ts.)
import { sql, type Kysely } from 'kysely';
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import type { Database } from '../db/types.ts';
import type { JobTicket } from './request.ts';
import { ACTIVE_STATUSES } from './status-table.ts';
import type { JobRow } from './views.ts';

type Db = Kysely<Database>;

export async function insertJob(db: Db, scope: TenantScope, ticket: JobTicket, sealed: string, now: number, queuedJobId: number | null = null): Promise<JobRow> {
  const row: JobRow = {
    job_id: ticket.jobId, env_id: scope.envId, flow_id: ticket.flowId, tenant: scope.tenant,
    flow_version: ticket.flowVersion, tap: ticket.tap, connector_id: ticket.connector, job_type: ticket.jobType,
    job_name: ticket.jobName, status: 'JOB_CREATED', message: null, started_by: ticket.startedBy,
    scheduled_job: ticket.scheduled ? 1 : 0, schedule_id: ticket.scheduleId, s3_root: ticket.s3Root,
    start_time: now, last_updated: now, finished_at: null, processed_rows: 0, state: null,
    request_enc: sealed, export_details: null, sync_type: ticket.syncType, worker_id: null, heartbeat_at: null,
    idempotency_key: ticket.idempotencyKey, queued_job_id: queuedJobId, created_at: now,
  };
  await db.insertInto('jobs').values(row).execute();
  return row;
}

export async function getJob(db: Db, scope: EnvScope, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('env_id', '=', scope.envId).where('job_id', '=', jobId).executeTakeFirst();
}

export async function getJobByRoot(db: Db, scope: TenantScope, flowId: string, root: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('s3_root', '=', root).executeTakeFirst();
}

export async function getTenantJob(db: Db, scope: TenantScope, flowId: string, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('job_id', '=', jobId).executeTakeFirst();
}

export interface JobFilter {
  count: number;
  page: number;
  scheduled?: boolean;
  jobType?: string;
  /** Only jobs of this link (tap in v1, connector id in v2). */
  connector?: string;
  /** Epoch ms bounds on start_time (inclusive from, exclusive to). */
  from?: number;
  to?: number;
}

/** Newest first. */
export async function listJobs(db: Db, scope: TenantScope, flowId: string, filter: JobFilter): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('flow_id', '=', flowId).where('tenant', '=', scope.tenant);
  if (filter.scheduled !== undefined) query = query.where('scheduled_job', '=', filter.scheduled ? 1 : 0);
  if (filter.jobType !== undefined) query = query.where('job_type', '=', filter.jobType);
  if (filter.connector !== undefined) query = query.where('connector_id', '=', filter.connector);
  if (filter.from !== undefined) query = query.where('start_time', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('start_time', '<', filter.to);
  return query.orderBy('start_time', 'desc').orderBy('created_at', 'desc').orderBy('job_id', 'desc')
    .limit(filter.count).offset((filter.page - 1) * filter.count).execute();
}

/** The job of this tenant, flow and connector that is not finished yet, if any. */
export async function findActiveJob(db: Db, scope: TenantScope, flowId: string, connector: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('connector_id', '=', connector).where('status', 'in', ACTIVE_STATUSES)
    .orderBy('created_at').limit(1).executeTakeFirst();
}

export async function activeTenantJobs(db: Db, scope: TenantScope): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('status', 'in', ACTIVE_STATUSES).execute();
}

export async function tenantJobRoots(db: Db, scope: TenantScope): Promise<string[]> {
  const rows = await db.selectFrom('jobs').select('s3_root')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).execute();
  return rows.map((r) => r.s3_root);
}

export async function deleteTenantJobRows(db: Db, scope: TenantScope): Promise<number> {
  const result = await db.deleteFrom('jobs').where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findJobByIdempotencyKey(db: Db, scope: TenantScope, key: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('idempotency_key', '=', key).executeTakeFirst();
}

/** Frees a key whose 24 h have passed, so it can name a new job (the column is unique). */
export async function releaseIdempotencyKey(db: Db, scope: TenantScope, key: string): Promise<void> {
  await db.updateTable('jobs').set({ idempotency_key: null })
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('idempotency_key', '=', key).execute();
}

/**
 * Serialises job creation in one lane (tenant, flow, connector) until the
 * transaction ends. SQLite transactions are serial already; PostgreSQL takes an
 * advisory lock so two requests cannot both see "no active job".
 */
export async function lockLane(trx: Db, dialect: 'sqlite' | 'postgres', scope: TenantScope, flowId: string, connector: string): Promise<void> {
  if (dialect !== 'postgres') return;
  const key = JSON.stringify([scope.envId, scope.tenant, flowId, connector]);
  await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}
