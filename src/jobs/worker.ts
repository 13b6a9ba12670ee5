// The job worker loop: claims waiting jobs up to its concurrency (and the
// per-environment limit), runs them, keeps their heartbeat, notices jobs killed
// from another process, and fails jobs of lost workers. Wakes at once on a new
// job in this process; polls as the fallback (jobs created by other processes).
import type { AppContext } from '../context.ts';
import { executeJob } from './execute.ts';
import { notifyJobsReady, onJobsReady } from './notify.ts';
import { recoverLostJobs } from './recovery.ts';
import { registerLocalRun, unregisterLocalRun } from './registry.ts';
import { isTerminal } from './status-table.ts';
import { newWorkerId, retireWorkerId } from './worker-id.ts';
import { beat, claimNextJob } from './worker-store.ts';

export interface JobWorkerOptions {
  /** Jobs this worker runs at once; default config.workerConcurrency. */
  readonly concurrency?: number;
  /** Jobs running at once per environment (all workers); default config.envConcurrency. */
  readonly envConcurrency?: number;
  /** Poll interval for jobs created elsewhere; default min(1000, heartbeatMs). */
  readonly pollMs?: number;
  /** Only run jobs of these environments (tests sharing one database). */
  readonly envIds?: readonly string[];
}

export interface JobWorker {
  readonly workerId: string;
  /** Number of jobs running now. */
  running(): number;
  /** Stops claiming, stops running jobs (they fail "worker stopped") and waits for them. */
  stop(): Promise<void>;
}

export const WORKER_STOPPED_MESSAGE = 'worker stopped';

export function startJobWorker(ctx: AppContext, opts: JobWorkerOptions = {}): JobWorker {
  const workerId = newWorkerId();
  const concurrency = opts.concurrency ?? ctx.config.workerConcurrency;
  const envConcurrency = opts.envConcurrency ?? ctx.config.envConcurrency;
  const runs = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let filling: Promise<void> | null = null;
  let again = false;

  const warn = (what: string) => (error: unknown) => {
    if (!stopped) ctx.log.error({ err: error, workerId }, what);
  };

  function run(row: Parameters<typeof executeJob>[1]): void {
    const controller = new AbortController();
    const done = executeJob(ctx, row, controller.signal).finally(() => {
      runs.delete(row.job_id);
      unregisterLocalRun(row.job_id);
      notifyJobsReady(); // a slot is free, and a queued successor may have started
    });
    runs.set(row.job_id, { controller, done });
    registerLocalRun(row.job_id, { controller, done });
  }

  async function fillSlots(): Promise<void> {
    do {
      again = false;
      while (!stopped && runs.size < concurrency) {
        const row = await claimNextJob(ctx.db.kysely, ctx.db.dialect, { workerId, now: ctx.now(), envConcurrency, envIds: opts.envIds });
        if (!row || stopped) break;
        run(row);
      }
    } while (again && !stopped);
  }

  function wake(): void {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    filling = fillSlots().catch(warn('claiming jobs failed')).finally(() => {
      filling = null;
    });
  }

  async function heartbeat(): Promise<void> {
    const statuses = await beat(ctx.db.kysely, workerId, [...runs.keys()], ctx.now());
    for (const [jobId, { controller }] of runs) {
      const status = statuses.get(jobId);
      // Killed (or failed by a recovering worker) elsewhere: stop the processes here.
      if (status === undefined || isTerminal(status)) controller.abort('Killed elsewhere');
    }
    await recoverLostJobs(ctx, { workerId, envIds: opts.envIds });
  }

  const unsubscribe = onJobsReady(wake);
  const pollTimer = setInterval(wake, opts.pollMs ?? Math.min(1000, ctx.config.heartbeatMs));
  let beating = false;
  const beatTimer = setInterval(() => {
    if (beating || stopped) return;
    beating = true;
    heartbeat().catch(warn('job heartbeat failed')).finally(() => {
      beating = false;
    });
  }, ctx.config.heartbeatMs);
  pollTimer.unref();
  beatTimer.unref();
  // Recovery first, so queued successors of jobs lost in a crash start now.
  void recoverLostJobs(ctx, { workerId, envIds: opts.envIds }).catch(warn('job recovery failed')).finally(wake);

  return {
    workerId,
    running: () => runs.size,
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      clearInterval(pollTimer);
      clearInterval(beatTimer);
      await filling;
      for (const { controller } of runs.values()) controller.abort(WORKER_STOPPED_MESSAGE);
      await Promise.allSettled([...runs.values()].map((r) => r.done));
      retireWorkerId(workerId);
    },
  };
}
