// A jobs row inserted directly (tests and the bench drive its status with the real
// transitionJob, without running connectors).
import type { EnvScope } from '../../auth/scope.ts';
import type { AppContext } from '../../context.ts';
import type { LifecycleWebhook } from '../outbox.ts';

export async function insertJobRow(ctx: AppContext, scope: EnvScope, jobId: string, override: LifecycleWebhook | null = null): Promise<void> {
  const now = ctx.now();
  await ctx.db.kysely.insertInto('jobs').values({
    job_id: jobId, env_id: scope.envId, flow_id: 'flow', tenant: 'tenant', flow_version: 1, tap: 'tap-sample',
    connector_id: null, job_type: null, job_name: jobId, status: 'JOB_CREATED', message: null, started_by: 'test',
    scheduled_job: 0, schedule_id: null, s3_root: `${scope.envId}/${jobId}`, start_time: now, last_updated: now,
    finished_at: null, processed_rows: 0, state: null,
    request_enc: ctx.secrets.sealJson({ request: override ? { override_lifecycle_webhook: override } : {} }),
    export_details: null, sync_type: 'incremental_sync', worker_id: null, heartbeat_at: null, idempotency_key: null,
    queued_job_id: null, created_at: now,
  }).execute();
}

export const HAPPY_PATH = ['JOB_CREATED', 'DISCOVER_STARTED', 'SYNC_STARTED', 'SYNC_SUCCESS', 'ETL_STARTED', 'ETL_SUCCESS', 'EXPORT_STARTED', 'JOB_COMPLETED'] as const;
