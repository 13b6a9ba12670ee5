// HTTP routes of jobs: run (v1, v2), list, status, latest, logs, kill, queue.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { tenantScope } from '../auth/plugin.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import type { CreateJobOutcome } from './create.ts';
import type { RunJobRequest } from './request.ts';
import * as S from './schemas.ts';
import * as service from './service.ts';

const tags = ['Jobs'];
const base = '/:env_id/:flow_id/:tenant/jobs';

const REQUEST_MEMBERS = [
  'tap', 'connector_id', 'job_type', 'job_name', 'override_start_date', 'override_end_date', 'reset_source_state',
  'override_selected_tables', 'override_source_config', 'override_target_config', 'override_connector_config',
  'override_field_map', 'environment_variables', 'state', 'streaming_job', 'ignore_parallel_jobs', 'queue_if_active_job',
  'override_lifecycle_webhook',
] as const;

/** The run-job body as a request: known members only; `job.job_name` and `override_env_vars` accepted too. */
function runRequest(req: FastifyRequest): RunJobRequest {
  const body = req.body as Record<string, unknown> & { job?: { job_name?: string }; override_env_vars?: Record<string, unknown> | null };
  const request: Record<string, unknown> = {};
  for (const member of REQUEST_MEMBERS) if (body[member] !== undefined) request[member] = body[member];
  request.job_name ??= body.job?.job_name;
  request.environment_variables ??= body.override_env_vars ?? undefined;
  const header = req.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key !== undefined) {
    if (key.length < 1 || key.length > 255) throw new BadRequestError('Idempotency-Key must be 1 to 255 characters');
    request.idempotency_key = key;
  }
  return request as RunJobRequest;
}

function startedBy(req: FastifyRequest): string {
  const principal = tenantScope(req).principal;
  return principal.user ?? principal.type;
}

function reply(outcome: CreateJobOutcome): Record<string, unknown> {
  if (outcome.kind === 'job') return outcome.job;
  if (outcome.kind === 'queued') return outcome.queued;
  return { skipped: true, active_job_id: outcome.activeJobId };
}

export const jobRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(`/v2${base}`, {
    config: { auth: 'tenant:write' },
    schema: { tags, summary: 'Run a v2 job (Idempotency-Key header supported)', params: S.TenantParams, body: S.RunJobV2Body },
  }, async (req) => reply(await service.createJob(ctx, tenantScope(req), req.params.flow_id, runRequest(req), { scheduled: false, startedBy: startedBy(req) })));

  app.post(base, {
    config: { auth: 'tenant:write' },
    schema: { tags, summary: 'Run a v1 job (Tapline extension: the v1 counterpart of the v2 run job)', params: S.TenantParams, body: S.RunJobV1Body },
  }, async (req) => reply(await service.createJob(ctx, tenantScope(req), req.params.flow_id, runRequest(req), { scheduled: false, startedBy: startedBy(req) })));

  app.get(base, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'Fetch jobs of a tenant, newest first', params: S.TenantParams, querystring: S.ListJobsQuery },
  }, async (req) => service.listJobs(ctx, tenantScope(req), req.params.flow_id, req.query));

  app.get(`${base}/status`, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'One job by its job_root (Tapline extension)', params: S.TenantParams, querystring: S.JobRootQuery },
  }, async (req) => service.jobStatus(ctx, tenantScope(req), req.params.flow_id, req.query.job_root));

  app.get(`${base}/latest`, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'The latest job of a tenant (Tapline extension)', params: S.TenantParams, querystring: S.LatestQuery },
  }, async (req) => service.latestJob(ctx, tenantScope(req), req.params.flow_id, req.query));

  app.get(`${base}/:job_id/logs`, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: "A job's log, secrets redacted (Tapline extension)", params: S.JobParams, querystring: S.TokenQuery },
  }, async (req) => service.jobLogs(ctx, tenantScope(req), req.params.flow_id, req.params.job_id));

  app.post(`${base}/kill`, {
    config: { auth: 'tenant:write' },
    schema: { tags, summary: 'End any running processes of a job', params: S.TenantParams, body: S.KillBody },
  }, async (req) => service.killJob(ctx, tenantScope(req), req.params.flow_id, req.body.job_root, req.body.reason));

  app.get(`${base}/queue`, {
    config: { auth: 'tenant:read' },
    schema: { tags, summary: 'Queued jobs of a tenant (Tapline extension)', params: S.TenantParams, querystring: S.TokenQuery },
  }, async (req) => service.listQueuedJobs(ctx, tenantScope(req), req.params.flow_id));

  app.delete(`${base}/queue/:id`, {
    config: { auth: 'tenant:write' },
    schema: { tags, summary: 'Cancel a queued job (Tapline extension)', params: S.QueuedParams },
  }, async (req) => service.cancelQueuedJob(ctx, tenantScope(req), req.params.flow_id, req.params.id));
};
