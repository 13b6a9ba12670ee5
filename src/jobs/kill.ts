// Kill: the job's status becomes the failed status of its stage ("Killed:
// {reason}") first — a compare-and-set, so the worker cannot overwrite it — and
// then its processes are stopped: at once when it runs in this process, else by
// its own worker, whose heartbeat sees the finished status (within heartbeatMs).
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { NotFoundError } from '../errors.ts';
import { notifyJobsReady } from './notify.ts';
import { cancelQueued, getQueuedByJobId } from './queue.ts';
import { abortLocalRun } from './registry.ts';
import { openTicket } from './request.ts';
import { failedStatusOf, transitionJob, type JobStatus } from './status.ts';
import { getJob, getJobByRoot } from './store.ts';
import { queuedJobView, runJobView, type JobRow } from './views.ts';

type Obj = Record<string, unknown>;

/** Ends `row` as killed unless it already ended; returns the row as it is afterwards. */
export async function killJobRow(ctx: AppContext, scope: TenantScope, row: JobRow, message: string): Promise<{ row: JobRow; killed: boolean }> {
  let current: JobRow | undefined = row;
  for (let attempt = 0; current && attempt < 20; attempt++) {
    const streaming = openTicket(ctx, current.request_enc).request.streaming_job === true;
    const to = failedStatusOf(current.status, streaming);
    if (to === null) return { row: current, killed: false };
    const moved = await transitionJob(ctx.db.kysely, ctx, scope, current.job_id, current.status as JobStatus, to, { message });
    if (moved) {
      await abortLocalRun(moved.job_id, message);
      notifyJobsReady(); // its queued successor may have started
      return { row: moved, killed: true };
    }
    current = await getJob(ctx.db.kysely, scope, row.job_id); // it moved meanwhile: try again from there
  }
  throw new Error(`could not kill job ${row.job_id}: its status keeps changing`);
}

/** POST …/jobs/kill: by `job_root` (the job's s3_root); a queued job is cancelled. */
export async function killJob(ctx: AppContext, scope: TenantScope, flowId: string, root: string, reason: string | undefined): Promise<Obj> {
  const message = `Killed: ${reason?.trim() || 'no reason given'}`;
  const row = await getJobByRoot(ctx.db.kysely, scope, flowId, root);
  if (row) {
    const result = await killJobRow(ctx, scope, row, message);
    return { ...runJobView(result.row), killed: result.killed };
  }
  const jobId = root.split('/').pop() ?? '';
  const queued = await getQueuedByJobId(ctx.db.kysely, scope, flowId, jobId);
  const ticket = queued ? openTicket(ctx, queued.request_enc) : null;
  if (!queued || !ticket || ticket.s3Root !== root) {
    throw new NotFoundError(`No job with job_root "${root}" for tenant "${scope.tenant}" in flow "${flowId}"`);
  }
  const cancelled = await cancelQueued(ctx.db.kysely, scope, queued.id, ctx.now());
  if (!cancelled && queued.status === 'QUEUED') return killJob(ctx, scope, flowId, root, reason); // it just started
  const after = { ...queued, status: cancelled ? 'CANCELLED' : queued.status, updated_at: cancelled ? ctx.now() : queued.updated_at };
  return { ...queuedJobView(after, ticket), killed: cancelled };
}
