// Follows one running job's status through transitionJob. When a move finds the
// job no longer where this worker left it (killed, or failed by recovery), the
// run is over: JobSuperseded stops it without touching the status again.
import type { Kysely } from 'kysely';
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { inTransaction } from './events.ts';
import { failedStatusOf, transitionJob, type JobPatch, type JobStatus } from './status.ts';

export class JobSuperseded extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was finished by someone else (killed or recovered)`);
    this.name = 'JobSuperseded';
  }
}

export class JobTracker {
  status: JobStatus;
  private readonly ctx: AppContext;
  private readonly scope: TenantScope;
  private readonly jobId: string;
  private readonly onMove: (status: JobStatus) => void;

  constructor(ctx: AppContext, scope: TenantScope, jobId: string, status: JobStatus, onMove: (status: JobStatus) => void = () => {}) {
    this.ctx = ctx;
    this.scope = scope;
    this.jobId = jobId;
    this.status = status;
    this.onMove = onMove;
  }

  /** Moves on; throws JobSuperseded when the job is not where we left it. */
  async move(to: JobStatus, patch: JobPatch = {}, db: Kysely<Database> = this.ctx.db.kysely): Promise<void> {
    const row = await transitionJob(db, this.ctx, this.scope, this.jobId, this.status, to, patch);
    if (!row) throw new JobSuperseded(this.jobId);
    this.status = to;
    this.onMove(to);
  }

  /** Moves to `to` and runs `alsoDo` in the same transaction (both or neither). */
  async moveWith(to: JobStatus, patch: JobPatch, alsoDo: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    const before = this.status;
    try {
      await inTransaction(this.ctx.db.kysely, async (trx) => {
        await this.move(to, patch, trx);
        await alsoDo(trx);
      });
    } catch (error) {
      this.status = before; // rolled back
      throw error;
    }
  }

  /** Ends the job in the failed status of its current stage; false if it had already ended. */
  async fail(message: string, streaming: boolean, patch: JobPatch = {}): Promise<boolean> {
    const to = failedStatusOf(this.status, streaming);
    if (to === null) return false;
    const row = await transitionJob(this.ctx.db.kysely, this.ctx, this.scope, this.jobId, this.status, to, { ...patch, message });
    if (!row) return false;
    this.status = to;
    this.onMove(to);
    return true;
  }
}
