// THE one function that changes a job's status. A compare-and-set on the current
// status, so a worker and a killer (or two workers) can never overwrite each
// other; the webhook event and, on a terminal status, the start of the next
// queued job happen in the same transaction.
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { inTransaction, recordStatusEvent } from './events.ts';
import { startNextQueued } from './queue.ts';
import { canTransition, isTerminal, type JobStatus } from './status-table.ts';
import type { JobRow } from './views.ts';

export * from './status-table.ts';

export interface JobPatch {
  message?: string | null;
  processed_rows?: number;
  /** The job's Singer state (JSON-serialised here). */
  state?: unknown;
  export_details?: unknown;
  /** Records per stream (the event's metrics.recordCount). */
  record_counts?: Record<string, number>;
}

/**
 * Moves job `jobId` from `from` to `to` if it is still in `from`; returns the
 * updated row, or null when the job was not in `from` (someone else moved it).
 * Throws for a move the transition table does not allow.
 */
export async function transitionJob(
  db: Kysely<Database>, ctx: AppContext, scope: EnvScope, jobId: string, from: JobStatus, to: JobStatus, patch: JobPatch = {},
): Promise<JobRow | null> {
  if (!canTransition(from, to)) throw new Error(`job status cannot move from ${from} to ${to}`);
  const now = ctx.now();
  return inTransaction(db, async (trx) => {
    const row = await trx.updateTable('jobs').set({
      status: to,
      last_updated: now,
      ...(patch.message !== undefined ? { message: patch.message } : {}),
      ...(patch.processed_rows !== undefined ? { processed_rows: patch.processed_rows } : {}),
      ...(patch.state !== undefined ? { state: patch.state === null ? null : JSON.stringify(patch.state) } : {}),
      ...(patch.export_details !== undefined ? { export_details: JSON.stringify(patch.export_details) } : {}),
      ...(patch.record_counts !== undefined ? { record_counts: JSON.stringify(patch.record_counts) } : {}),
      ...(isTerminal(to) ? { finished_at: now } : {}),
    }).where('env_id', '=', scope.envId).where('job_id', '=', jobId).where('status', '=', from)
      .returningAll().executeTakeFirst();
    if (!row) return null;
    await recordStatusEvent(trx, ctx, scope, row, from);
    if (isTerminal(to)) await startNextQueued(trx, ctx, scope, row);
    return row;
  });
}
