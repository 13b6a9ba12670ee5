// The four stages of one job, each moving its status through the tracker. The
// runner (src/runner) does the process work; this file decides what goes where.
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { TenantScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { saveDiscoveredCatalog, type JobPlan } from '../links/job-plan.ts';
import {
  resolveCommand, runDiscover, runEtl, runExport, runSync, selectCatalog, StageError,
  type ProcessOptions, type SelectedTables, type SingerCatalog,
} from '../runner/index.ts';
import type { JobStorage } from '../storage/types.ts';
import { recordDiscoverEvent, type DiscoverStatus } from '../webhooks/events.ts';
import type { JobInputs } from './job-inputs.ts';
import type { JobLog } from './logs.ts';
import type { Redactor } from './redact.ts';
import { inTransaction } from './events.ts';
import { lifecycleOverride, type JobTicket } from './request.ts';
import { trackSyncProgress } from './progress.ts';
import type { JobTracker } from './tracker.ts';
import type { JobRow } from './views.ts';

/** processed_rows moves at least this often during a sync (more often with a shorter heartbeat). */
const PROGRESS_MAX_INTERVAL_MS = 5000;

export interface JobRun {
  readonly ctx: AppContext;
  readonly scope: TenantScope;
  readonly row: JobRow;
  readonly ticket: JobTicket;
  readonly plan: JobPlan;
  readonly inputs: JobInputs;
  readonly storage: JobStorage;
  /** Local folder of the job's storage root. */
  readonly dir: string;
  readonly log: JobLog;
  readonly tracker: JobTracker;
  readonly signal: AbortSignal;
  /** Takes the job's secrets out of a text (messages, log lines). */
  readonly redact: Redactor;
}

/** Export outcome kept on the job (`export_details` of the job listing). */
export interface ExportDetails {
  target: string | null;
  status: 'succeeded' | 'failed' | 'skipped';
  streams: Record<string, { records: number }>;
  records: number;
  finished_at: string;
  message?: string;
}

export interface StageOutput {
  dir: string;
  recordCount: number;
  perStream: Record<string, number>;
}

export function processOptions(run: JobRun): ProcessOptions {
  return {
    baseEnv: run.ctx.config.connectorBaseEnv,
    // TAPLINE_JOB_ID marks every process of the job (recovery finds orphans by it).
    envVars: { ...run.ticket.request.environment_variables, TAPLINE_JOB_ID: run.row.job_id },
    signal: run.signal,
    timeoutMs: run.ctx.config.stageTimeoutMs,
    log: (line) => run.log.line(line),
  };
}

/** discover.status_changed of a discovery inside the job: ordered with its events, to its override webhook. */
function discoverEvent(run: JobRun, status: DiscoverStatus, message: string | null = null) {
  return async (db: Kysely<Database>): Promise<void> => {
    await recordDiscoverEvent(db, run.ctx, run.scope, {
      flowId: run.plan.flowId, tenant: run.scope.tenant, connector: run.plan.link.name, status, message,
      jobId: run.row.job_id, override: lifecycleOverride(run.ctx, run.row.request_enc),
    });
  };
}

async function discover(run: JobRun): Promise<unknown> {
  await run.tracker.moveWith('DISCOVER_STARTED', {}, discoverEvent(run, 'DISCOVER_STARTED'));
  let catalog: SingerCatalog;
  try {
    catalog = await runDiscover({ ...processOptions(run), connector: resolveCommand(run.plan.source.run), config: run.inputs.sourceConfig });
  } catch (error) {
    const cause = run.signal.aborted && typeof run.signal.reason === 'string' ? run.signal.reason : (error as Error).message;
    await discoverEvent(run, 'DISCOVER_FAILED', run.redact(cause))(run.ctx.db.kysely);
    throw error;
  }
  // A write job's source is the flow's feed, not the link's connector: its catalog is not the link's.
  const own = run.ticket.jobType !== 'write';
  await inTransaction(run.ctx.db.kysely, async (trx) => {
    if (own) await saveDiscoveredCatalog(trx, run.scope, run.plan.flowId, run.plan.link, catalog, undefined, run.ctx.now());
    await discoverEvent(run, 'DISCOVER_SUCCESS')(trx);
  });
  return catalog;
}

/** Discover if needed, then sync into sync-output/; returns the output and the job's state. */
export async function discoverAndSync(run: JobRun): Promise<StageOutput & { state: unknown }> {
  const catalog = run.inputs.discover ? await discover(run) : run.plan.source.catalog;
  if (!Array.isArray((catalog as SingerCatalog | null)?.streams)) {
    throw new StageError('discover', 'the stored catalog has no "streams" array; run discovery again');
  }
  const overrideTables = (run.ticket.request.override_selected_tables ?? null) as SelectedTables | null;
  const selected = selectCatalog(catalog as SingerCatalog, run.inputs.fieldMap, overrideTables);
  await run.tracker.move('SYNC_STARTED');
  await run.storage.put(`${run.row.s3_root}/catalog.json`, JSON.stringify(selected));
  const dir = join(run.dir, 'sync-output');
  const progress = trackSyncProgress({
    db: run.ctx.db.kysely, scope: run.scope, jobId: run.row.job_id, dir, now: run.ctx.now,
    intervalMs: Math.min(PROGRESS_MAX_INTERVAL_MS, run.ctx.config.heartbeatMs),
    onError: (error) => run.ctx.log.warn({ err: error, jobId: run.row.job_id }, 'could not update the progress of a sync'),
  });
  let result: Awaited<ReturnType<typeof runSync>>;
  try {
    result = await runSync({
      ...processOptions(run), connector: resolveCommand(run.plan.source.run), config: run.inputs.sourceConfig,
      catalog: selected, state: run.inputs.inputState, outDir: dir,
    });
  } finally {
    await progress.stop();
  }
  const state = result.state ?? run.inputs.inputState ?? null;
  await run.storage.put(`${run.row.s3_root}/state.json`, JSON.stringify(state ?? {}));
  await run.tracker.move('SYNC_SUCCESS', { processed_rows: result.recordCount, record_counts: result.perStream, state });
  return { dir, recordCount: result.recordCount, perStream: result.perStream, state };
}

/** Field map into etl-output/ (or etl-mapped/ then the flow's command into etl-output/). */
export async function etl(run: JobRun, synced: StageOutput): Promise<StageOutput> {
  await run.tracker.move('ETL_STARTED');
  const etlSetting = run.plan.etl;
  const argv = etlSetting.mode === 'command' ? etlSetting.command ?? [] : [];
  const command = argv.length > 0 ? resolveCommand({ command: argv[0] as string, args: argv.slice(1) }) : null;
  const result = await runEtl({
    ...processOptions(run),
    inputDir: synced.dir,
    outDir: join(run.dir, command ? 'etl-mapped' : 'etl-output'),
    fieldMap: etlSetting.mode === 'none' ? null : run.inputs.fieldMap,
    command,
    commandOutputDir: command ? join(run.dir, 'etl-output') : undefined,
    job: { jobId: run.row.job_id, tenant: run.row.tenant, flow: run.row.flow_id, envId: run.row.env_id },
  });
  await run.tracker.move('ETL_SUCCESS');
  return { dir: result.outputDir, recordCount: result.recordCount, perStream: result.perStream };
}

function details(run: JobRun, status: ExportDetails['status'], perStream: Record<string, number>, message?: string): ExportDetails {
  const streams = Object.fromEntries(Object.entries(perStream).map(([name, records]) => [name, { records }]));
  const records = Object.values(perStream).reduce((a, b) => a + b, 0);
  return {
    target: run.plan.target?.name ?? null, status, streams, records,
    finished_at: new Date(run.ctx.now()).toISOString(), ...(message ? { message } : {}),
  };
}

export class ExportFailed extends Error {
  readonly details: ExportDetails;
  constructor(cause: unknown, exportDetails: ExportDetails) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'ExportFailed';
    this.details = exportDetails;
  }
}

/** Feeds `input` to the target; returns the export details (status skipped without a target). */
export async function exportStage(run: JobRun, input: StageOutput, state: unknown): Promise<ExportDetails> {
  const target = run.plan.target;
  if (!target || !run.inputs.targetConfig) return details(run, 'skipped', input.perStream);
  await run.tracker.move('EXPORT_STARTED');
  try {
    const result = await runExport({
      ...processOptions(run), connector: resolveCommand(target.run), config: run.inputs.targetConfig,
      inputDir: input.dir, state: state ?? {},
    });
    return details(run, 'succeeded', result.perStream);
  } catch (error) {
    throw new ExportFailed(error, details(run, 'failed', input.perStream, error instanceof Error ? error.message : undefined));
  }
}
