// JSON forms of a job: the run-job form (with `flow_id`), the listing form (with
// `flow`), the webhook event data, and the queued job of the API description.
import type { JobsTable, QueuedJobsTable } from '../db/types.ts';
import type { JobTicket } from './request.ts';

export type JobRow = JobsTable;
type Obj = Record<string, unknown>;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}

function parseJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** Members common to every form; `s3_root` is the real clients' name of storage_root. */
function baseView(row: JobRow): Obj {
  const view: Obj = {
    job_id: row.job_id,
    env_id: row.env_id,
    job_name: row.job_name,
    tenant: row.tenant,
    started_by: row.started_by,
    s3_root: row.s3_root,
    start_time: iso(row.start_time),
    tap: row.tap,
    status: row.status,
    scheduled_job: row.scheduled_job === 1,
    message: row.message ?? '',
    last_updated: iso(row.last_updated),
    processed_rows: Number(row.processed_rows),
  };
  if (row.flow_version === 2) {
    view.connector_id = row.connector_id;
    view.job_type = row.job_type;
  }
  return view;
}

/** The Job resource as run-job (and the status operations) return it. */
export function runJobView(row: JobRow): Obj & { job_id: string } {
  return { ...baseView(row), job_id: row.job_id, flow_id: row.flow_id, state: parseJson(row.state) ?? {} };
}

export interface ListingOptions {
  includeState: boolean;
  includeExportDetails: boolean;
}

/** The Job resource as the job listing returns it (`flow`, optional state and export details). */
export function listingView(row: JobRow, opts: ListingOptions): Obj {
  const view: Obj = { ...baseView(row), flow: row.flow_id };
  if (opts.includeState) view.state = parseJson(row.state) ?? {};
  if (opts.includeExportDetails) view.export_details = parseJson(row.export_details);
  return view;
}

/** Data of a job.status_changed event: the job without its state (never secrets), plus sync type and records per stream so far. */
export function eventView(row: JobRow, previousStatus: string | null): Obj {
  return {
    ...baseView(row), flow_id: row.flow_id, previous_status: previousStatus, finished_at: iso(row.finished_at),
    sync_type: row.sync_type === 'full' ? 'full_sync' : 'incremental_sync',
    metrics: { recordCount: (parseJson(row.record_counts ?? null) ?? {}) as Record<string, number> },
  };
}

const MASK = '********';

function maskValues(value: Obj | undefined): Obj | null {
  if (!value) return null;
  return Object.fromEntries(Object.keys(value).map((k) => [k, MASK]));
}

/**
 * The spec's Queued job. Override configs and variables may be credentials: their
 * keys are shown, values masked. `job_id`/`s3_root` (Tapline extension) are the
 * ones the job has (or will have) once started.
 */
export function queuedJobView(row: QueuedJobsTable & { id: number }, ticket: JobTicket): Obj & { id: number; job_id: string | null } {
  const r = ticket.request;
  const hook = r.override_lifecycle_webhook;
  return {
    id: Number(row.id),
    env_id: row.env_id,
    tenant_id: row.tenant_id,
    flow_id: row.flow_id,
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    job_name: row.job_name,
    override_start_date: r.override_start_date ?? null,
    override_end_date: r.override_end_date ?? null,
    override_selected_tables: r.override_selected_tables ?? null,
    override_field_map: r.override_field_map ?? null,
    override_env_vars: maskValues(r.environment_variables),
    override_source_config: maskValues(r.override_source_config),
    override_target_config: maskValues(r.override_target_config),
    override_connector_config: maskValues(r.override_connector_config),
    override_lifecycle_webhook: hook?.url ? { url: hook.url, ...(hook.secret ? { secret: MASK } : {}) } : null,
    connector_id: ticket.connector,
    job_type: ticket.jobType,
    job_id: row.job_id,
    s3_root: ticket.s3Root,
  };
}
