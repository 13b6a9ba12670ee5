// Schedules of a tenant: create/replace, read, delete, and the entry points other
// domains call (link bodies, unlink, tenant deletion, the default-tenant cascade).
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { absentView, type AbsentScheduleView } from './view.ts';
import { copyDefaultToExistingTenants } from './cascade.ts';
import { resolveSchedule, saveSchedule, type ScheduleSelector } from './records.ts';
import * as store from './store.ts';
import type { JobType, Queryable, ScheduleFields, ScheduleRow } from './store.ts';
import {
  checkJitter, checkStartDate, DEFAULT_TENANT, nextRunMs, OVERRIDE_KEYS, openOverrides, parseExpression, parseTimezone,
  sealOverrides, type Overlap, type ScheduleOverrides, type ScheduleState,
} from './validate.ts';
import { toView, type ScheduleView } from './view.ts';

export { applyDefaultScheduleToTenant } from './cascade.ts';
export type { ScheduleSelector } from './records.ts';

export interface ScheduleRequest extends ScheduleOverrides {
  schedule_expression: string;
  state?: ScheduleState;
  connector_id?: string | null;
  job_type?: JobType;
  /** Checked by checkJitter: a whole number 1-720 or null. */
  schedule_jitter_minutes?: unknown;
  timezone?: string | null;
  overlap?: Overlap;
  apply_to_existing?: boolean;
}

export interface LinkSchedule {
  schedule_expression?: string;
  state?: ScheduleState;
}

async function requireFlow(ctx: AppContext, scope: TenantScope, flowId: string): Promise<void> {
  if (!(await store.flowExists(ctx.db.kysely, scope, flowId))) throw new NotFoundError(`Flow "${flowId}" not found`);
}

/**
 * The stored fields for a request over an existing row: members the request omits keep
 * their stored value (null clears), except `state`, which is ENABLED unless given.
 */
function fieldsFor(ctx: AppContext, scope: TenantScope, existing: ScheduleRow | undefined, req: ScheduleRequest): ScheduleFields {
  parseExpression(req.schedule_expression);
  const requestedJitter = req.schedule_jitter_minutes;
  checkJitter(scope.tenant, requestedJitter);
  checkStartDate(req.override_start_date);
  const timezone = req.timezone !== undefined ? parseTimezone(req.timezone) : existing?.timezone ?? parseTimezone(null);
  const jitter = requestedJitter !== undefined ? requestedJitter : existing?.jitter_minutes ?? null;
  const state = req.state ?? 'ENABLED';
  const previous = existing ? openOverrides(ctx, existing.overrides_enc) : {};
  const overrides: ScheduleOverrides = { ...previous };
  for (const key of OVERRIDE_KEYS) {
    if (req[key] !== undefined) (overrides as Record<string, unknown>)[key] = req[key];
  }
  const timing = { expression: req.schedule_expression.trim(), timezone, jitter_minutes: jitter };
  return {
    ...timing,
    state,
    overlap: req.overlap ?? existing?.overlap ?? 'skip',
    overrides_enc: sealOverrides(ctx, overrides),
    next_run_at: state === 'ENABLED' ? nextRunMs(timing, scope.tenant, ctx.now()) : null,
    inherited: 0,
  };
}

/** PUT …/jobs/schedule. */
export async function putSchedule(
  ctx: AppContext, scope: TenantScope, flowId: string, req: ScheduleRequest,
): Promise<ScheduleView & { applied_to_tenants?: number }> {
  if (req.apply_to_existing && scope.tenant !== DEFAULT_TENANT) {
    throw new BadRequestError(`apply_to_existing applies to the "${DEFAULT_TENANT}" tenant only`);
  }
  await requireFlow(ctx, scope, flowId);
  const existing = await resolveSchedule(ctx, scope, flowId, { connectorId: req.connector_id, jobType: req.job_type });
  const fields = fieldsFor(ctx, scope, existing, req);
  const key = { flowId, connectorId: existing?.connector_id ?? req.connector_id ?? '', jobType: req.job_type ?? 'read' };
  const row = await saveSchedule(ctx, scope, key, existing, fields);
  if (!req.apply_to_existing) return toView(ctx, row);
  return { ...toView(ctx, row), applied_to_tenants: await copyDefaultToExistingTenants(ctx, scope, row) };
}

/**
 * A tenant without that schedule answers 200 with `State: "DISABLED"` and
 * `exists: false` (the widget's schedule panel reads it so); an unknown flow is 404.
 */
export async function getSchedule(
  ctx: AppContext, scope: TenantScope, flowId: string, sel: ScheduleSelector, opts: { revealSecrets?: boolean } = {},
): Promise<ScheduleView | AbsentScheduleView> {
  await requireFlow(ctx, scope, flowId);
  const row = await resolveSchedule(ctx, scope, flowId, sel);
  if (!row) return absentView(scope, flowId, sel);
  return { ...toView(ctx, row, opts), exists: true };
}

export async function listSchedules(ctx: AppContext, scope: TenantScope, flowId: string): Promise<ScheduleView[]> {
  const rows = await store.listTenantFlowSchedules(ctx.db.kysely, scope, flowId);
  return rows.map((row) => toView(ctx, row));
}

/** Idempotent: deleting a schedule that is not there answers `deleted: false`. */
export async function deleteSchedule(
  ctx: AppContext, scope: TenantScope, flowId: string, sel: ScheduleSelector,
): Promise<{ deleted: boolean; id: string | null }> {
  await requireFlow(ctx, scope, flowId);
  const row = await resolveSchedule(ctx, scope, flowId, sel);
  if (!row) return { deleted: false, id: null };
  return { deleted: await store.deleteScheduleById(ctx.db.kysely, scope, row.id), id: row.id };
}

/** Throws BadRequestError if a link body's `schedule` member is invalid (call before storing the link). */
export function assertValidLinkSchedule(schedule: LinkSchedule | undefined): void {
  if (schedule?.schedule_expression !== undefined) parseExpression(schedule.schedule_expression);
  if (schedule?.state !== undefined && schedule.state !== 'ENABLED' && schedule.state !== 'DISABLED') {
    throw new BadRequestError(`schedule.state must be ENABLED or DISABLED; got ${JSON.stringify(schedule.state)}`);
  }
}

/**
 * A `schedule` member of a link body (v1 and v2): creates or updates that link's
 * schedule. Without an expression it only changes the state of an existing schedule;
 * with neither an expression nor an existing schedule it does nothing (returns null).
 */
export async function upsertScheduleFromLink(
  ctx: AppContext, scope: TenantScope, flowId: string,
  link: { connectorId: string; jobType: JobType; schedule: LinkSchedule },
): Promise<ScheduleView | null> {
  assertValidLinkSchedule(link.schedule);
  const sel = { connectorId: link.connectorId, jobType: link.jobType };
  const existing = await resolveSchedule(ctx, scope, flowId, sel);
  const expression = link.schedule.schedule_expression ?? existing?.expression;
  if (expression === undefined) return null;
  const fields = fieldsFor(ctx, scope, existing, { schedule_expression: expression, state: link.schedule.state ?? (existing ? existing.state as ScheduleState : undefined) });
  const key = { flowId, connectorId: existing?.connector_id ?? link.connectorId, jobType: link.jobType };
  return toView(ctx, await saveSchedule(ctx, scope, key, existing, fields));
}

/**
 * Unlinking `connectorId` deletes its schedules, and the tenant's connector-less ('')
 * schedules too when no other source/connector stays linked in the flow. `db` may be a
 * transaction; call it before or after deleting the link row.
 */
export async function deleteSchedulesForLink(db: Queryable, scope: TenantScope, flowId: string, connectorId: string): Promise<number> {
  const others = (await store.linkedNames(db, scope, flowId)).filter((name) => name !== connectorId);
  return store.deleteFlowConnectorRows(db, scope, flowId, others.length === 0 ? [connectorId, ''] : [connectorId]);
}

/** Tenant deletion: every schedule of the tenant, in every flow. */
export async function deleteTenantSchedules(db: Queryable, scope: TenantScope): Promise<number> {
  return store.deleteTenantRows(db, scope);
}
