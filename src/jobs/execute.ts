// Runs one claimed job from JOB_CREATED to JOB_COMPLETED or a failed status:
// plan, discover + sync, ETL (unless streaming), export, then the state commit —
// the stored source state moves only together with JOB_COMPLETED.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { systemTenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { clearSourceState, commitSourceState, resolveJobPlan } from '../links/job-plan.ts';
import { StageError } from '../runner/index.ts';
import type { JobStorage } from '../storage/types.ts';
import { withDefaultExportFolder, jobInputs, stateToCommit } from './job-inputs.ts';
import { discoverAndSync, etl, ExportFailed, exportStage, type JobRun } from './job-stages.ts';
import { JOB_LOG_FILE, openJobLog, type JobLog } from './logs.ts';
import { makeRedactor, secretStrings, type Redactor } from './redact.ts';
import { openTicket, type JobTicket } from './request.ts';
import type { JobStatus } from './status.ts';
import { jobStorageFor } from './storage.ts';
import { JobSuperseded, JobTracker } from './tracker.ts';
import type { JobRow } from './views.ts';

function selectionOf(ticket: JobTicket) {
  return ticket.flowVersion === 1
    ? { tap: ticket.connector }
    : { connectorId: ticket.connector, jobType: ticket.jobType ?? 'read' };
}

function localDirOf(storage: JobStorage, root: string): string {
  // Only local storage exists yet; the scale-out issue adds a staging folder for S3.
  if (!storage.localDir) throw new Error(`job storage "${storage.kind}" has no local folder`);
  return storage.localDir(root);
}

/** A readable cause for `message` (connector messages carry no config values; redacted anyway). */
function failureMessage(error: unknown, signal: AbortSignal): string {
  if (signal.aborted && typeof signal.reason === 'string') return signal.reason;
  if (error instanceof ExportFailed || error instanceof StageError || error instanceof AppError) return error.message;
  return `internal error: ${error instanceof Error ? error.message : String(error)}`;
}

async function runStages(run: JobRun): Promise<void> {
  const synced = await discoverAndSync(run);
  const exportInput = run.inputs.streaming ? synced : await etl(run, synced);
  const exportDetails = await exportStage(run, exportInput, synced.state);
  const commit = stateToCommit(synced.state, run.ticket);
  await run.tracker.moveWith('JOB_COMPLETED', { export_details: exportDetails, message: null }, async (trx) => {
    if (commit === null) await clearSourceState(trx, run.scope, run.plan.flowId, run.plan.link);
    else if (commit !== undefined) await commitSourceState(trx, run.scope, run.plan.flowId, run.plan.link, commit, run.ctx.now());
  });
  run.log.line(`job completed: ${synced.recordCount} records synced, export ${exportDetails.status}`);
}

/** Runs the job `row` (claimed by this worker). Never throws: failures end in a failed status. */
export async function executeJob(ctx: AppContext, row: JobRow, signal: AbortSignal): Promise<void> {
  const scope = systemTenantScope(row.env_id, row.tenant);
  let redact: Redactor = (text) => text;
  let log: JobLog | null = null;
  let streaming = false;
  const tracker = new JobTracker(ctx, scope, row.job_id, row.status as JobStatus, (status) => log?.line(`status ${status}`));
  try {
    const ticket = openTicket(ctx, row.request_enc);
    streaming = ticket.request.streaming_job === true;
    const storage = jobStorageFor(ctx, scope);
    const dir = localDirOf(storage, row.s3_root);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    log = openJobLog(join(dir, JOB_LOG_FILE), (text) => redact(text), ctx.now);
    log.line(`job ${row.job_id}: ${ticket.tap} in flow ${row.flow_id} for tenant ${row.tenant}`);
    const plan = await resolveJobPlan(ctx, scope, row.flow_id, selectionOf(ticket));
    const inputs = withDefaultExportFolder(plan, jobInputs(plan, ticket), join(ctx.config.dataDir, 'exports'), [row.env_id, row.flow_id, row.tenant]);
    redact = makeRedactor(secretStrings(plan.source.config, plan.target?.config, inputs.sourceConfig, inputs.targetConfig,
      ticket.request.environment_variables));
    await runStages({ ctx, scope, row, ticket, plan, inputs, storage, dir, log, tracker, signal, redact });
  } catch (error) {
    if (error instanceof JobSuperseded) {
      log?.line('stopped: the job was ended elsewhere (killed or recovered)');
      return;
    }
    const message = redact(failureMessage(error, signal));
    log?.line(`failed: ${message}`);
    const patch = error instanceof ExportFailed
      ? { export_details: { ...error.details, message: error.details.message && redact(error.details.message) } }
      : {};
    await tracker.fail(message, streaming, patch).catch((e: unknown) => {
      ctx.log.error({ err: e, jobId: row.job_id }, 'could not record the failure of a job');
    });
  } finally {
    await log?.close();
  }
}
