// Schedule rows. Every function takes a TenantScope or EnvScope and filters by it,
// except the scheduler's due scan and claim (marked "system"), which by nature look
// across environments and touch rows by id only.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../db/connect.ts';
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import type { Database, SchedulesTable } from '../db/types.ts';

// Column added by migration 030_schedule_inherited (kept here until the lead folds it into types.ts).
export type Queryable = Kysely<Database>;
export type ScheduleRow = Selectable<SchedulesTable>;
export type JobType = 'read' | 'write';

/** Identifies one schedule of a tenant and flow. */
export interface ScheduleKey {
  flowId: string;
  /** '' = the tenant's only source (v1). */
  connectorId: string;
  jobType: JobType;
}

export type ScheduleFields = Omit<ScheduleRow, 'id' | 'env_id' | 'tenant' | 'flow_id' | 'connector_id' | 'job_type' |
  'created_at' | 'updated_at' | 'last_run_at' | 'last_job_id' | 'skipped_runs'>;

export async function listTenantFlowSchedules(db: Queryable, scope: TenantScope, flowId: string): Promise<ScheduleRow[]> {
  return db.selectFrom('schedules').selectAll()
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .orderBy('connector_id').orderBy('job_type').execute();
}

export async function insertSchedule(
  db: Queryable, scope: TenantScope, id: string, key: ScheduleKey, fields: ScheduleFields, now: number,
): Promise<void> {
  await db.insertInto('schedules').values({
    id, env_id: scope.envId, tenant: scope.tenant, flow_id: key.flowId, connector_id: key.connectorId,
    job_type: key.jobType, ...fields, last_run_at: null, last_job_id: null, skipped_runs: 0, created_at: now, updated_at: now,
  }).execute();
}

export async function updateSchedule(db: Queryable, scope: TenantScope, id: string, fields: Partial<ScheduleFields>, now: number): Promise<void> {
  await db.updateTable('schedules').set({ ...fields, updated_at: now })
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('id', '=', id).execute();
}

export async function deleteScheduleById(db: Queryable, scope: TenantScope, id: string): Promise<boolean> {
  const result = await db.deleteFrom('schedules')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteTenantRows(db: Queryable, scope: TenantScope): Promise<number> {
  const result = await db.deleteFrom('schedules')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteFlowConnectorRows(db: Queryable, scope: TenantScope, flowId: string, connectorIds: string[]): Promise<number> {
  if (connectorIds.length === 0) return 0;
  const result = await db.deleteFrom('schedules')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('connector_id', 'in', connectorIds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Names of the tenant's source/connector links in a flow (read from the links domain's table). */
export async function linkedNames(db: Queryable, scope: TenantScope, flowId: string): Promise<string[]> {
  const rows = await db.selectFrom('links').select('name')
    .where('env_id', '=', scope.envId).where('tenant', '=', scope.tenant).where('flow_id', '=', flowId)
    .where('kind', 'in', ['source', 'connector']).execute();
  return rows.map((r) => r.name);
}

/** Tenants (other than `default`) with a source/connector link in the flow, and the names linked. */
export async function linkedTenants(db: Queryable, scope: EnvScope, flowId: string): Promise<Map<string, string[]>> {
  const rows = await db.selectFrom('links').select(['tenant', 'name'])
    .where('env_id', '=', scope.envId).where('flow_id', '=', flowId).where('tenant', '!=', 'default')
    .where('kind', 'in', ['source', 'connector']).orderBy('tenant').execute();
  const byTenant = new Map<string, string[]>();
  for (const row of rows) byTenant.set(row.tenant, [...(byTenant.get(row.tenant) ?? []), row.name]);
  return byTenant;
}

export async function flowExists(db: Queryable, scope: EnvScope, flowId: string): Promise<boolean> {
  const row = await db.selectFrom('flows').select('flow_id')
    .where('env_id', '=', scope.envId).where('flow_id', '=', flowId).executeTakeFirst();
  return row !== undefined;
}

// ---- system: the scheduler ---------------------------------------------------------

/** Due enabled schedules, oldest first. Uses the (state, next_run_at) index. */
export async function selectDue(db: Queryable, now: number, limit: number, envIds?: readonly string[]): Promise<ScheduleRow[]> {
  let query = db.selectFrom('schedules').selectAll()
    .where('state', '=', 'ENABLED').where('next_run_at', '<=', now);
  if (envIds) query = query.where('env_id', 'in', [...envIds]);
  return query.orderBy('next_run_at').orderBy('id').limit(limit).execute();
}

/** The earliest next_run_at of any enabled schedule (one index probe), or null. */
export async function earliestNextRun(db: Queryable, envIds?: readonly string[]): Promise<number | null> {
  let query = db.selectFrom('schedules').select('next_run_at')
    .where('state', '=', 'ENABLED').where('next_run_at', 'is not', null);
  if (envIds) query = query.where('env_id', 'in', [...envIds]);
  const row = await query.orderBy('next_run_at').limit(1).executeTakeFirst();
  return row?.next_run_at ?? null;
}

export interface Claim {
  id: string;
  /** The next_run_at the claimer read: the due time it claims. */
  due: number;
  /** The next_run_at to store. */
  next: number | null;
}

/**
 * Compare-and-set claims: a row is claimed only if next_run_at still equals the due
 * time read and it is still enabled, in the same statement that advances next_run_at.
 * Only the process whose update changed the row dispatches it, so each due time runs
 * once across any number of processes. Returns the ids claimed.
 *
 * SQLite: one statement per batch (the database lock serialises writers; one prepared
 * statement instead of thousands keeps native memory flat). PostgreSQL: one autocommit
 * statement per row, so concurrent claimers never hold several row locks (no deadlocks).
 */
export async function claimDue(db: Queryable, dialect: DialectName, claims: Claim[], now: number): Promise<Set<string>> {
  if (dialect === 'postgres') return claimEach(db, claims, now);
  const claimed = new Set<string>();
  for (const chunk of chunks(claims)) {
    const values = sql.join(chunk.map((c) => sql`(${c.id}, ${c.due}, ${c.next})`));
    const result = await sql<{ id: string }>`
      UPDATE schedules SET next_run_at = v.nxt, last_run_at = v.due, updated_at = ${now}
      FROM (SELECT column1 AS sid, column2 AS due, column3 AS nxt FROM (VALUES ${values})) AS v
      WHERE schedules.id = v.sid AND schedules.next_run_at = v.due AND schedules.state = 'ENABLED'
      RETURNING id`.execute(db);
    for (const row of result.rows) claimed.add(row.id);
  }
  return claimed;
}

/** Fixed-size pieces, so batch statements repeat the same SQL text (cacheable, bounded size). */
const CHUNK = 100;
function chunks<T>(items: T[]): T[][] {
  const pieces: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) pieces.push(items.slice(i, i + CHUNK));
  return pieces;
}

async function claimEach(db: Queryable, claims: Claim[], now: number): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const claim of claims) {
    const result = await db.updateTable('schedules')
      .set({ next_run_at: claim.next, last_run_at: claim.due, updated_at: now })
      .where('id', '=', claim.id).where('next_run_at', '=', claim.due).where('state', '=', 'ENABLED')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.add(claim.id);
  }
  return claimed;
}

/** What became of a batch of claimed runs: the jobs they created, and the runs skipped. */
export async function recordOutcomes(db: Queryable, jobIds: Map<string, string>, skipped: string[]): Promise<void> {
  for (const chunk of chunks([...jobIds])) {
    const cases = sql.join(chunk.map(([id, jobId]) => sql`WHEN ${id} THEN ${jobId}`), sql` `);
    await sql`UPDATE schedules SET last_job_id = CASE id ${cases} ELSE last_job_id END
      WHERE id IN (${sql.join(chunk.map(([id]) => id))})`.execute(db);
  }
  for (const chunk of chunks(skipped)) {
    await db.updateTable('schedules').set((eb) => ({ skipped_runs: eb('skipped_runs', '+', 1) }))
      .where('id', 'in', chunk).execute();
  }
}

/** True when a job this schedule queued is still waiting (the jobs domain's queued_jobs). */
export async function hasWaitingQueuedRun(db: Queryable, scope: TenantScope, scheduleId: string): Promise<boolean> {
  const row = await db.selectFrom('queued_jobs').select('id')
    .where('env_id', '=', scope.envId).where('tenant_id', '=', scope.tenant)
    .where('schedule_id', '=', scheduleId).where('status', '=', 'QUEUED').limit(1).executeTakeFirst();
  return row !== undefined;
}
