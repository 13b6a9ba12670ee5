// The JSON form of a schedule. `ScheduleExpression` and `State` are the members real
// clients read; the snake_case members are Tapline's own (documented as extensions).
import type { AppContext } from '../context.ts';
import type { ScheduleRow } from './store.ts';
import { openOverrides } from './validate.ts';

export const MASK = '****';

export interface ScheduleView {
  ScheduleExpression: string;
  State: string;
  id: string;
  flow_id: string;
  tenant: string;
  connector_id: string | null;
  job_type: string;
  schedule_expression: string;
  state: string;
  timezone: string;
  overlap: string;
  jitter_minutes: number | null;
  schedule_jitter_minutes: number | null;
  inherited: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_job_id: string | null;
  skipped_runs: number;
  override_start_date: string | null;
  override_selected_tables: Record<string, boolean> | null;
  override_field_map: Record<string, unknown> | null;
  /** Values are masked unless the caller may see secrets and asked for them. */
  environment_variables: Record<string, string> | null;
  created_at: string;
  updated_at: string;
  /** Set by GET: true here, false on the absent form. */
  exists?: true;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function masked(vars: Record<string, string> | null | undefined, reveal: boolean): Record<string, string> | null {
  if (!vars) return null;
  if (reveal) return vars;
  return Object.fromEntries(Object.keys(vars).map((name) => [name, MASK]));
}

export function toView(ctx: AppContext, row: ScheduleRow, opts: { revealSecrets?: boolean } = {}): ScheduleView {
  const overrides = openOverrides(ctx, row.overrides_enc);
  return {
    ScheduleExpression: row.expression,
    State: row.state,
    id: row.id,
    flow_id: row.flow_id,
    tenant: row.tenant,
    connector_id: row.connector_id === '' ? null : row.connector_id,
    job_type: row.job_type,
    schedule_expression: row.expression,
    state: row.state,
    timezone: row.timezone,
    overlap: row.overlap,
    jitter_minutes: row.jitter_minutes,
    schedule_jitter_minutes: row.jitter_minutes,
    inherited: row.inherited === 1,
    next_run_at: iso(row.next_run_at),
    last_run_at: iso(row.last_run_at),
    last_job_id: row.last_job_id,
    skipped_runs: row.skipped_runs,
    override_start_date: overrides.override_start_date ?? null,
    override_selected_tables: overrides.override_selected_tables ?? null,
    override_field_map: overrides.override_field_map ?? null,
    environment_variables: masked(overrides.environment_variables, opts.revealSecrets === true),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** What GET answers for a tenant without that schedule. */
export interface AbsentScheduleView {
  ScheduleExpression: null;
  State: 'DISABLED';
  exists: false;
  flow_id: string;
  tenant: string;
  connector_id: string | null;
  job_type: string;
  next_run_at: null;
}

export function absentView(scope: { tenant: string }, flowId: string, sel: { connectorId?: string | null; jobType?: string | null }): AbsentScheduleView {
  return {
    ScheduleExpression: null, State: 'DISABLED', exists: false, flow_id: flowId, tenant: scope.tenant,
    connector_id: sel.connectorId ?? null, job_type: sel.jobType ?? 'read', next_run_at: null,
  };
}
