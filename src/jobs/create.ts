// Creating a job: validate, resolve the plan (so a bad tap or flow fails the
// request, not the job), then — in one transaction per lane — run it, queue it,
// skip it, or refuse it (409) when a job of the same tenant, flow and connector is active.
import { newId } from '../auth/keys.ts';
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError, ConflictError } from '../errors.ts';
import { resolveJobPlan, type JobPlan } from '../links/job-plan.ts';
import { connectorEnv } from '../runner/index.ts';
import { jobRoot } from '../storage/job-root.ts';
import { assertWebhookSecret, assertWebhookUrlAllowed } from '../webhooks/validate.ts';
import { inTransaction, recordStatusEvent } from './events.ts';
import { findIdempotent, type CreateJobOutcome } from './idempotency.ts';
import { notifyJobsReady } from './notify.ts';
import { insertQueued, listQueued } from './queue.ts';
import { sealTicket, type JobTicket, type RunJobRequest } from './request.ts';
import { findActiveJob, insertJob, lockLane, releaseIdempotencyKey } from './store.ts';
import { queuedJobView, runJobView } from './views.ts';

export type { CreateJobOutcome } from './idempotency.ts';

export interface JobOrigin {
  scheduled: boolean;
  scheduleId?: string;
  startedBy: string;
  /** What to do when a job of the lane is active (schedules); the request's own flags win. */
  overlap?: 'skip' | 'queue' | 'parallel';
}

function checkRequest(request: RunJobRequest): void {
  for (const member of ['override_start_date', 'override_end_date'] as const) {
    const value = request[member];
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw new BadRequestError(`${member} must be an ISO 8601 date or date-time`);
  }
  try {
    connectorEnv({}, request.environment_variables ?? null);
  } catch (error) {
    throw new BadRequestError(`environment_variables: ${(error as Error).message}`);
  }
}

/** A bad override_lifecycle_webhook is a 400 now, not a failed delivery later (also for queued jobs). */
async function checkLifecycleWebhook(ctx: AppContext, request: RunJobRequest): Promise<void> {
  const hook = request.override_lifecycle_webhook;
  if (!hook) return;
  await assertWebhookUrlAllowed(ctx, hook.url);
  if (hook.secret !== undefined && hook.secret !== null) assertWebhookSecret(hook.secret);
}

function compactTime(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

function ticketOf(scope: TenantScope, flowId: string, plan: JobPlan, request: RunJobRequest, origin: JobOrigin, now: number): JobTicket {
  const jobId = newId('job');
  const fullSync = request.reset_source_state === true || Boolean(request.override_start_date) || plan.source.state == null;
  return {
    jobId,
    s3Root: jobRoot(scope.tenant, flowId, jobId, new Date(now)),
    flowId,
    flowVersion: plan.flowVersion,
    tap: plan.source.name,
    connector: plan.link.name,
    jobType: plan.flowVersion === 2 ? request.job_type ?? 'read' : null,
    jobName: request.job_name ?? `${plan.link.name}-${compactTime(now)}`,
    syncType: fullSync ? 'full' : 'incremental',
    startedBy: origin.startedBy,
    scheduled: origin.scheduled,
    scheduleId: origin.scheduleId ?? null,
    idempotencyKey: request.idempotency_key ?? null,
    request,
  };
}

type Overlap = 'reject' | 'skip' | 'queue' | 'parallel';

function overlapOf(request: RunJobRequest, origin: JobOrigin): Overlap {
  if (request.ignore_parallel_jobs) return 'parallel';
  if (request.queue_if_active_job) return 'queue';
  return origin.overlap ?? 'reject';
}

async function createInLane(ctx: AppContext, scope: TenantScope, ticket: JobTicket, overlap: Overlap): Promise<CreateJobOutcome> {
  return inTransaction(ctx.db.kysely, async (trx) => {
    await lockLane(trx, ctx.db.dialect, scope, ticket.flowId, ticket.connector);
    const now = ctx.now();
    const sealed = sealTicket(ctx, ticket);
    if (overlap !== 'parallel') {
      const active = await findActiveJob(trx, scope, ticket.flowId, ticket.connector);
      const [waiting] = active ? [] : await listQueued(trx, scope, ticket.flowId, ticket.connector);
      const activeJobId = active?.job_id ?? waiting?.job_id ?? null;
      if (activeJobId !== null) {
        if (overlap === 'skip') return { kind: 'skipped', activeJobId };
        if (overlap === 'queue') {
          const queued = await insertQueued(trx, scope, ticket, sealed, now);
          return { kind: 'queued', queued: queuedJobView(queued, ticket) };
        }
        throw new ConflictError(
          `A job is already active for tenant "${scope.tenant}", flow "${ticket.flowId}" and "${ticket.connector}": ${activeJobId}` +
          ' (pass ignore_parallel_jobs or queue_if_active_job)',
          { job_id: activeJobId, status: active?.status ?? 'QUEUED' },
        );
      }
    }
    if (ticket.idempotencyKey) await releaseIdempotencyKey(trx, scope, ticket.idempotencyKey);
    const row = await insertJob(trx, scope, ticket, sealed, now);
    await recordStatusEvent(trx, ctx, scope, row, null);
    return { kind: 'job', job: runJobView(row) };
  });
}

export async function createJob(ctx: AppContext, scope: TenantScope, flowId: string, request: RunJobRequest, origin: JobOrigin): Promise<CreateJobOutcome> {
  checkRequest(request);
  await checkLifecycleWebhook(ctx, request);
  const previous = request.idempotency_key ? await findIdempotent(ctx, scope, flowId, request.idempotency_key) : null;
  if (previous) return previous;
  const plan = await resolveJobPlan(ctx, scope, flowId, {
    tap: request.tap, connectorId: request.connector_id, jobType: request.job_type,
  });
  const ticket = ticketOf(scope, flowId, plan, request, origin, ctx.now());
  let outcome: CreateJobOutcome;
  try {
    outcome = await createInLane(ctx, scope, ticket, overlapOf(request, origin));
  } catch (error) {
    // Two requests with one Idempotency-Key at once: the unique index let one through.
    const again = request.idempotency_key && !(error instanceof ConflictError)
      ? await findIdempotent(ctx, scope, flowId, request.idempotency_key) : null;
    if (again) return again;
    throw error;
  }
  if (outcome.kind === 'job') notifyJobsReady();
  return outcome;
}
