// The job operations behind the HTTP routes (and the other domains' entry points:
// createJob for schedules, deleteTenantJobs for tenant deletion).
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import { killJobRow } from './kill.ts';
import { JOB_LOG_FILE } from './logs.ts';
import { cancelQueued, cancelTenantQueue, deleteTenantQueue, getQueued, getQueuedByJobId, listQueued } from './queue.ts';
import { openTicket } from './request.ts';
import { jobStorageFor } from './storage.ts';
import * as store from './store.ts';
import { listingView, queuedJobView, runJobView } from './views.ts';

export { createJob, type CreateJobOutcome, type JobOrigin } from './create.ts';
export { killJob } from './kill.ts';

type Obj = Record<string, unknown>;

export interface ListQuery {
  count?: number;
  page?: number;
  scheduled?: boolean;
  job_type?: string;
  from?: string;
  to?: string;
  include_state?: boolean;
  include_export_details?: boolean;
  entity_id?: string;
}

function dateBound(name: string, value: string | undefined, endOfDay: boolean): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new BadRequestError(`${name} must be an ISO 8601 date or date-time`);
  // A bare date as `to` includes that whole day.
  return endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(value) ? ms + 24 * 3600_000 : ms;
}

export async function listJobs(ctx: AppContext, scope: TenantScope, flowId: string, query: ListQuery): Promise<Obj[]> {
  const rows = await store.listJobs(ctx.db.kysely, scope, flowId, {
    count: query.count ?? 5, page: query.page ?? 1, scheduled: query.scheduled, jobType: query.job_type, connector: query.entity_id,
    from: dateBound('from', query.from, false), to: dateBound('to', query.to, true),
  });
  const opts = { includeState: query.include_state ?? false, includeExportDetails: query.include_export_details ?? true };
  return rows.map((row) => listingView(row, opts));
}

/** One job by its s3_root; a job still queued answers its queued form. */
export async function jobStatus(ctx: AppContext, scope: TenantScope, flowId: string, root: string): Promise<Obj> {
  const row = await store.getJobByRoot(ctx.db.kysely, scope, flowId, root);
  if (row) return runJobView(row);
  const queued = await getQueuedByJobId(ctx.db.kysely, scope, flowId, root.split('/').pop() ?? '');
  if (queued) {
    const ticket = openTicket(ctx, queued.request_enc);
    if (ticket.s3Root === root) return queuedJobView(queued, ticket);
  }
  throw new NotFoundError(`No job with job_root "${root}" for tenant "${scope.tenant}" in flow "${flowId}"`);
}

export async function latestJob(ctx: AppContext, scope: TenantScope, flowId: string, filter: { job_type?: string; entity_id?: string }): Promise<Obj> {
  const [row] = await store.listJobs(ctx.db.kysely, scope, flowId, { count: 1, page: 1, jobType: filter.job_type, connector: filter.entity_id });
  if (!row) {
    const of = filter.entity_id === undefined ? '' : ` for "${filter.entity_id}"`;
    throw new NotFoundError(`Tenant "${scope.tenant}" has no job${of} in flow "${flowId}"`);
  }
  return runJobView(row);
}

/** The job's log; secrets were redacted when it was written. */
export async function jobLogs(ctx: AppContext, scope: TenantScope, flowId: string, jobId: string): Promise<Obj> {
  const row = await store.getTenantJob(ctx.db.kysely, scope, flowId, jobId);
  if (!row) throw new NotFoundError(`No job "${jobId}" for tenant "${scope.tenant}" in flow "${flowId}"`);
  const log = await jobStorageFor(ctx, scope).get(`${row.s3_root}/${JOB_LOG_FILE}`);
  return { job_id: row.job_id, s3_root: row.s3_root, status: row.status, log: log?.toString('utf8') ?? '' };
}

export async function listQueuedJobs(ctx: AppContext, scope: TenantScope, flowId: string): Promise<{ queued_jobs: Obj[] }> {
  const rows = await listQueued(ctx.db.kysely, scope, flowId);
  return { queued_jobs: rows.map((row) => queuedJobView(row, openTicket(ctx, row.request_enc))) };
}

/** Cancels a queued job; one already cancelled answers as is, one already started is a conflict. */
export async function cancelQueuedJob(ctx: AppContext, scope: TenantScope, flowId: string, id: number): Promise<Obj> {
  const queued = await getQueued(ctx.db.kysely, scope, flowId, id);
  if (!queued) throw new NotFoundError(`No queued job ${id} for tenant "${scope.tenant}" in flow "${flowId}"`);
  const cancelled = await cancelQueued(ctx.db.kysely, scope, id, ctx.now());
  const after = cancelled ? await getQueued(ctx.db.kysely, scope, flowId, id) : queued;
  if (!after) throw new NotFoundError(`No queued job ${id}`);
  if (after.status === 'STARTED') {
    throw new ConflictError(`Queued job ${id} has already started as job ${after.job_id}; kill it instead`, { job_id: after.job_id });
  }
  return queuedJobView(after, openTicket(ctx, after.request_enc));
}

/** Whether a job of this tenant, flow and connector (link name) is active. */
export async function isJobActive(ctx: AppContext, scope: TenantScope, flowId: string, connector: string): Promise<boolean> {
  return (await store.findActiveJob(ctx.db.kysely, scope, flowId, connector)) !== undefined;
}

/**
 * For tenant deletion: kills the tenant's active jobs (all flows), cancels its
 * queue, then removes its job rows, queued jobs and job files.
 */
export async function deleteTenantJobs(ctx: AppContext, scope: TenantScope, opts: { kill: boolean }): Promise<{ jobs: number; files: number }> {
  await cancelTenantQueue(ctx.db.kysely, scope, ctx.now());
  const active = await store.activeTenantJobs(ctx.db.kysely, scope);
  if (active.length > 0 && !opts.kill) throw new ConflictError(`Tenant "${scope.tenant}" has ${active.length} active job(s)`);
  for (const row of active) await killJobRow(ctx, scope, row, 'Killed: tenant deleted');
  const storage = jobStorageFor(ctx, scope);
  let files = 0;
  for (const root of await store.tenantJobRoots(ctx.db.kysely, scope)) files += await storage.deletePrefix(root);
  await deleteTenantQueue(ctx.db.kysely, scope);
  const jobs = await store.deleteTenantJobRows(ctx.db.kysely, scope);
  return { jobs, files };
}
