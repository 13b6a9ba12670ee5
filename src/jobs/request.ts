// What a run-job request asks for, and the sealed "ticket" that carries it from
// the request (or the queue) to the worker. Tickets are stored encrypted
// (jobs.request_enc, queued_jobs.request_enc): overrides may hold credentials.
import type { AppContext } from '../context.ts';
import type { LifecycleWebhook } from '../webhooks/outbox.ts';

export type JobType = 'read' | 'write';
type Obj = Record<string, unknown>;

/** The body members of both run-job operations (v1: `tap`; v2: `connector_id` + `job_type`). */
export interface RunJobRequest {
  tap?: string;
  connector_id?: string;
  job_type?: JobType;
  job_name?: string;
  override_start_date?: string;
  override_end_date?: string;
  reset_source_state?: boolean;
  override_selected_tables?: Obj;
  override_source_config?: Obj;
  override_target_config?: Obj;
  override_connector_config?: Obj;
  override_field_map?: Obj;
  environment_variables?: Obj;
  state?: Obj;
  streaming_job?: boolean;
  ignore_parallel_jobs?: boolean;
  queue_if_active_job?: boolean;
  override_lifecycle_webhook?: LifecycleWebhook | null;
  /** From the Idempotency-Key header. */
  idempotency_key?: string;
}

/** Everything needed to insert the job row and run it, fixed when the job is requested. */
export interface JobTicket {
  jobId: string;
  s3Root: string;
  flowId: string;
  flowVersion: 1 | 2;
  /** Source name shown as the job's `tap`. */
  tap: string;
  /** The tenant link the job runs for; jobs of one tenant, flow and connector queue together. */
  connector: string;
  jobType: JobType | null;
  jobName: string;
  syncType: 'full' | 'incremental';
  startedBy: string;
  scheduled: boolean;
  scheduleId: string | null;
  idempotencyKey: string | null;
  request: RunJobRequest;
}

export function sealTicket(ctx: AppContext, ticket: JobTicket): string {
  return ctx.secrets.sealJson(ticket);
}

export function openTicket(ctx: AppContext, sealed: string): JobTicket {
  return ctx.secrets.openJson<JobTicket>(sealed);
}

/** The job's lifecycle webhook override, if its request has one. */
export function lifecycleOverride(ctx: AppContext, sealed: string): LifecycleWebhook | null {
  const hook = openTicket(ctx, sealed).request.override_lifecycle_webhook;
  return hook?.url ? hook : null;
}
