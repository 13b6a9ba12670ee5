// What each stage of a job gets, from its plan and its request: pure, so the
// rules about overrides and state are testable on their own.
import type { JobPlan } from '../links/job-plan.ts';
import type { FieldMap } from '../runner/index.ts';
import type { JobTicket } from './request.ts';

type Obj = Record<string, unknown>;

export interface JobInputs {
  sourceConfig: Obj;
  targetConfig: Obj | null;
  /** Singer state handed to the tap; null = full sync. */
  inputState: unknown;
  fieldMap: FieldMap | null;
  /** Discover first: no stored catalog, the flow/connector always discovers, or the field map changed. */
  discover: boolean;
  streaming: boolean;
}

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The built-in target-jsonl needs a folder. When the flow gives none (the demo flows),
 * each tenant's exports go to `<data dir>/exports/<env>/<flow>/<tenant>`, one folder per
 * tenant so tenants' files never mix.
 */
export function withDefaultExportFolder(plan: JobPlan, inputs: JobInputs, exportsRoot: string, ticketPath: string[]): JobInputs {
  const run = plan.target?.run as { builtin?: string } | undefined;
  if (!inputs.targetConfig || run?.builtin !== 'target-jsonl' || inputs.targetConfig.destination_path) return inputs;
  return { ...inputs, targetConfig: { ...inputs.targetConfig, destination_path: [exportsRoot, ...ticketPath].join('/') } };
}

/**
 * Overrides apply to this job only. `override_connector_config` is the tenant
 * connector's side: the source of a v2 read job, the target of a v2 write job.
 * `override_start_date`/`override_end_date` replace the source config's
 * `start_date`/`end_date`; a start date also ignores the stored state.
 */
export function jobInputs(plan: JobPlan, ticket: JobTicket): JobInputs {
  const r = ticket.request;
  const connectorIsSource = ticket.flowVersion === 2 && ticket.jobType !== 'write';
  const connectorIsTarget = ticket.flowVersion === 2 && ticket.jobType === 'write';
  const sourceConfig: Obj = {
    ...plan.source.config,
    ...(connectorIsSource ? r.override_connector_config : undefined),
    ...r.override_source_config,
  };
  if (r.override_start_date) sourceConfig.start_date = r.override_start_date;
  if (r.override_end_date) sourceConfig.end_date = r.override_end_date;
  const targetConfig = plan.target === null ? null : {
    ...plan.target.config,
    ...(connectorIsTarget ? r.override_connector_config : undefined),
    ...r.override_target_config,
  };
  const fullSync = r.reset_source_state === true || Boolean(r.override_start_date);
  const storedState = ticket.jobType === 'write' && isObj(r.state) ? r.state : plan.source.state;
  return {
    sourceConfig,
    targetConfig,
    inputState: fullSync ? null : storedState ?? null,
    fieldMap: (isObj(r.override_field_map) ? r.override_field_map as FieldMap : null) ?? plan.source.fieldMap ?? null,
    discover: plan.source.catalog === null || plan.source.catalog === undefined || plan.discover === 'always' || plan.fieldMapChangedSinceDiscovery,
    streaming: r.streaming_job === true,
  };
}

/**
 * The stored source state once the job completes: the job's final state, or
 * null (cleared) after a reset whose tap sent no state; undefined = unchanged.
 */
export function stateToCommit(finalState: unknown, ticket: JobTicket): unknown | null | undefined {
  if (finalState !== null && finalState !== undefined) return finalState;
  return ticket.request.reset_source_state === true ? null : undefined;
}
