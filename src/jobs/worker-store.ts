// The worker's queries. They work across environments on purpose (a worker runs
// every environment's jobs) and are never reachable from a request.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { ACTIVE_STATUSES } from './status-table.ts';
import type { JobRow } from './views.ts';

type Db = Kysely<Database>;

// Any constant: the advisory lock that makes claims (and their per-environment count) atomic on PostgreSQL.
const CLAIM_LOCK_ID = 7_461_201;

export interface ClaimOptions {
  readonly workerId: string;
  readonly now: number;
  /** Most jobs running at once in one environment (all workers together). */
  readonly envConcurrency: number;
  /** Only jobs of these environments (tests; undefined = all). */
  readonly envIds?: readonly string[];
}

/**
 * Takes the oldest job waiting in JOB_CREATED whose environment is below its
 * limit: sets worker_id and heartbeat. Compare-and-set on worker_id, inside a
 * transaction serialised by an advisory lock (PostgreSQL) or by SQLite itself.
 */
export async function claimNextJob(db: Db, dialect: 'sqlite' | 'postgres', opts: ClaimOptions): Promise<JobRow | null> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${CLAIM_LOCK_ID})`.execute(trx);
    let waiting = trx.selectFrom('jobs').select(['job_id', 'env_id'])
      .where('status', '=', 'JOB_CREATED').where('worker_id', 'is', null);
    if (opts.envIds) waiting = waiting.where('env_id', 'in', [...opts.envIds]);
    const candidates = await waiting.orderBy('created_at').orderBy('job_id').limit(50).execute();
    if (candidates.length === 0) return null;
    const envIds = [...new Set(candidates.map((c) => c.env_id))];
    const busy = await trx.selectFrom('jobs').select(['env_id', (eb) => eb.fn.countAll<number>().as('running')])
      .where('env_id', 'in', envIds).where('worker_id', 'is not', null).where('status', 'in', [...ACTIVE_STATUSES])
      .groupBy('env_id').execute();
    const running = new Map(busy.map((b) => [b.env_id, Number(b.running)]));
    const pick = candidates.find((c) => (running.get(c.env_id) ?? 0) < opts.envConcurrency);
    if (!pick) return null;
    const row = await trx.updateTable('jobs').set({ worker_id: opts.workerId, heartbeat_at: opts.now })
      .where('job_id', '=', pick.job_id).where('worker_id', 'is', null).where('status', '=', 'JOB_CREATED')
      .returningAll().executeTakeFirst();
    return row ?? null;
  });
}

/** Refreshes the heartbeat of this worker's jobs; returns each job's current status. */
export async function beat(db: Db, workerId: string, jobIds: readonly string[], now: number): Promise<Map<string, string>> {
  if (jobIds.length === 0) return new Map();
  const rows = await db.updateTable('jobs').set({ heartbeat_at: now })
    .where('worker_id', '=', workerId).where('job_id', 'in', [...jobIds])
    .returning(['job_id', 'status']).execute();
  return new Map(rows.map((r) => [r.job_id, r.status]));
}

/** Claimed, unfinished jobs of other workers (candidates for lost-worker recovery). */
export async function othersRunningJobs(db: Db, workerId: string, envIds?: readonly string[]): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll()
    .where('status', 'in', [...ACTIVE_STATUSES]).where('worker_id', 'is not', null).where('worker_id', '!=', workerId);
  if (envIds) query = query.where('env_id', 'in', [...envIds]);
  return query.execute();
}

/** Gives a claimed job that never started back to the pool (its worker is gone). */
export async function releaseClaim(db: Db, jobId: string, workerId: string): Promise<boolean> {
  const result = await db.updateTable('jobs').set({ worker_id: null, heartbeat_at: null })
    .where('job_id', '=', jobId).where('worker_id', '=', workerId).where('status', '=', 'JOB_CREATED').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
