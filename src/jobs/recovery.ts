// Crash recovery: a job whose worker is gone (its process died on this host, or
// its heartbeat is older than workerLostAfterMs) is failed with "worker lost" in
// the failed status of its stage. The stored source state is untouched (it only
// moves with JOB_COMPLETED), and the transition starts the lane's next queued job.
import { systemEnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { killJobProcesses } from './orphans.ts';
import { openTicket } from './request.ts';
import { failedStatusOf, transitionJob, type JobStatus } from './status.ts';
import { isDeadLocalWorker } from './worker-id.ts';
import { othersRunningJobs, releaseClaim } from './worker-store.ts';
import type { JobRow } from './views.ts';

export const WORKER_LOST_MESSAGE = 'worker lost';

export interface RecoveryOptions {
  /** The recovering worker (its own jobs are never touched). */
  readonly workerId: string;
  readonly envIds?: readonly string[];
}

export interface RecoveryResult {
  /** Jobs failed with "worker lost". */
  failed: string[];
  /** Claimed jobs that had not started: given back to the pool. */
  released: string[];
}

function isLost(ctx: AppContext, job: JobRow): boolean {
  if (job.worker_id !== null && isDeadLocalWorker(job.worker_id)) return true;
  const heartbeat = job.heartbeat_at === null ? 0 : Number(job.heartbeat_at);
  return ctx.now() - heartbeat > ctx.config.workerLostAfterMs;
}

export async function recoverLostJobs(ctx: AppContext, opts: RecoveryOptions): Promise<RecoveryResult> {
  const result: RecoveryResult = { failed: [], released: [] };
  for (const job of await othersRunningJobs(ctx.db.kysely, opts.workerId, opts.envIds)) {
    if (!isLost(ctx, job)) continue;
    if (job.status === 'JOB_CREATED') {
      if (await releaseClaim(ctx.db.kysely, job.job_id, job.worker_id as string)) result.released.push(job.job_id);
      continue;
    }
    const streaming = openTicket(ctx, job.request_enc).request.streaming_job === true;
    const to = failedStatusOf(job.status, streaming);
    if (to === null) continue;
    const moved = await transitionJob(ctx.db.kysely, ctx, systemEnvScope(job.env_id), job.job_id, job.status as JobStatus, to,
      { message: WORKER_LOST_MESSAGE });
    if (!moved) continue;
    result.failed.push(job.job_id);
    const orphans = await killJobProcesses(job.job_id);
    ctx.log.warn({ jobId: job.job_id, worker: job.worker_id, status: to, orphans }, 'job failed: worker lost');
  }
  return result;
}
