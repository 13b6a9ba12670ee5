// What the scheduler hands to the job engine for one claimed due time: the tenant's
// scope, the run request (the schedule's overrides) and the origin (scheduled, overlap).
import { systemTenantScope, type TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { RunJobRequest } from '../jobs/request.ts';
import { createJob } from '../jobs/service.ts';
import type { JobType, ScheduleRow } from './store.ts';
import { openOverrides, type Overlap } from './validate.ts';

export interface ScheduledOrigin {
  scheduled: true;
  scheduleId: string;
  startedBy: string;
  overlap: Overlap;
  /** The due time this run was claimed for (epoch ms); extra to createJob's origin. */
  dueAt: number;
}

/** The shape of createJob's result that the scheduler reads. */
export type DispatchOutcome =
  | { kind: 'job'; job: Record<string, unknown> }
  | { kind: 'queued'; queued: Record<string, unknown> }
  | { kind: 'skipped'; activeJobId: string };

/** The dispatch boundary: createJob by default; tests and the bench pass their own. */
export type Dispatch = (
  ctx: AppContext, scope: TenantScope, flowId: string, request: RunJobRequest, origin: ScheduledOrigin,
) => Promise<DispatchOutcome>;

export const SCHEDULER_STARTED_BY = 'scheduler';

export function runRequestFor(ctx: AppContext, row: ScheduleRow): RunJobRequest {
  const overrides = openOverrides(ctx, row.overrides_enc);
  const request: RunJobRequest = { job_type: row.job_type as JobType };
  // `tap` names the link in both flow versions (v2 reads it as the connector id);
  // `connector_id` would be refused by a v1 flow. '' = the tenant's only link.
  if (row.connector_id !== '') request.tap = row.connector_id;
  if (overrides.override_start_date) request.override_start_date = overrides.override_start_date;
  if (overrides.override_selected_tables) request.override_selected_tables = overrides.override_selected_tables;
  if (overrides.override_field_map) request.override_field_map = overrides.override_field_map;
  if (overrides.environment_variables) request.environment_variables = overrides.environment_variables;
  return request;
}

export function fireArgs(ctx: AppContext, row: ScheduleRow, dueAt: number) {
  const scope = systemTenantScope(row.env_id, row.tenant);
  const origin: ScheduledOrigin = {
    scheduled: true, scheduleId: row.id, startedBy: SCHEDULER_STARTED_BY, overlap: row.overlap as Overlap, dueAt,
  };
  return { scope, request: runRequestFor(ctx, row), origin };
}

/** The real job engine. */
export const createJobDispatch: Dispatch = (ctx, scope, flowId, request, origin) => createJob(ctx, scope, flowId, request, origin);
