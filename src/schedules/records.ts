// Finding and saving one schedule of a tenant: the selection rule shared by the API,
// link bodies and the default-tenant cascade.
import type { TenantScope } from '../auth/scope.ts';
import { newId } from '../auth/keys.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import * as store from './store.ts';
import type { JobType, ScheduleFields, ScheduleKey, ScheduleRow } from './store.ts';

export interface ScheduleSelector {
  /** Omitted or '' = the tenant's only source/connector. */
  connectorId?: string | null;
  jobType?: JobType;
}

/**
 * The schedule a selector names: the exact (connector, job type) row; else, for a
 * named connector, the tenant's connector-less ('') row; else, with no connector
 * named, the only row of that job type. Several candidates without a connector_id is
 * a 400 so a client never changes a schedule it did not mean.
 */
export async function resolveSchedule(
  ctx: AppContext, scope: TenantScope, flowId: string, sel: ScheduleSelector,
): Promise<ScheduleRow | undefined> {
  const jobType = sel.jobType ?? 'read';
  const rows = (await store.listTenantFlowSchedules(ctx.db.kysely, scope, flowId)).filter((r) => r.job_type === jobType);
  const wanted = sel.connectorId ?? '';
  const exact = rows.find((r) => r.connector_id === wanted);
  if (exact || wanted !== '') return exact ?? rows.find((r) => r.connector_id === '');
  if (rows.length > 1) {
    const names = rows.map((r) => JSON.stringify(r.connector_id)).join(', ');
    throw new BadRequestError(`Tenant "${scope.tenant}" has ${rows.length} ${jobType} schedules in flow "${flowId}" (connector_id ${names}); pass connector_id to choose one`);
  }
  return rows[0];
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(e?.message ?? '');
}

/** Inserts or updates; a concurrent insert of the same identity becomes an update. */
export async function saveSchedule(
  ctx: AppContext, scope: TenantScope, key: ScheduleKey, existing: ScheduleRow | undefined, fields: ScheduleFields,
): Promise<ScheduleRow> {
  const db = ctx.db.kysely;
  if (existing) {
    await store.updateSchedule(db, scope, existing.id, fields, ctx.now());
    return { ...existing, ...fields, updated_at: ctx.now() };
  }
  const id = newId('sch');
  try {
    await store.insertSchedule(db, scope, id, key, fields, ctx.now());
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const raced = (await store.listTenantFlowSchedules(db, scope, key.flowId))
      .find((r) => r.connector_id === key.connectorId && r.job_type === key.jobType);
    if (!raced) throw error;
    return saveSchedule(ctx, scope, key, raced, fields);
  }
  const now = ctx.now();
  return {
    id, env_id: scope.envId, tenant: scope.tenant, flow_id: key.flowId, connector_id: key.connectorId, job_type: key.jobType,
    ...fields, last_run_at: null, last_job_id: null, skipped_runs: 0, created_at: now, updated_at: now,
  };
}
