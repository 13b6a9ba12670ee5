// One pipeline run through the real job engine in embedded mode (SQLite, API and
// worker in this process): link tap-sample with a field map, run a job over HTTP
// (inject), and time its stages from its status changes (outbox rows are written
// in the transaction of each change). Same figures as pipeline-run.ts.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { systemEnvScope } from '../../src/auth/scope.ts';
import { createContext } from '../../src/bootstrap.ts';
import { applyCatalogDocument } from '../../src/catalog/bulk.ts';
import { loadConfig } from '../../src/config.ts';
import { createEnvironment, updateEnvironmentSettings } from '../../src/environments/service.ts';
import { jobStorageFor } from '../../src/jobs/storage.ts';
import { startJobWorker } from '../../src/jobs/worker.ts';
import { ChildRssPoller, type ChildPeak } from './child-rss.ts';
import type { PipelineFigures, StageFigures } from './pipeline-run.ts';

// Realistic map: renames, dropped fields, every stream projected.
const FIELD_MAP = {
  contacts: { name: 'people', selected: ['id', 'first_name', 'last_name', 'email', 'company_id', 'created_at', 'updated_at'] },
  companies: { name: 'companies', selected: ['id', 'name', 'domain', 'industry', 'employees', 'updated_at'] },
  deals: { name: 'opportunities', selected: ['id', 'name', 'amount', 'stage', 'company_id', 'updated_at'] },
};

const TERMINAL = ['JOB_COMPLETED', 'DISCOVER_FAILED', 'SYNC_FAILED', 'ETL_FAILED', 'EXPORT_FAILED'];
const rssMb = (): number => process.resourceUsage().maxRSS / 1024;

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.jsonl')) total += (await stat(join(dir, name))).size;
  return total;
}

async function runBaseline(inDir: string, outDir: string) {
  const poller = new ChildRssPoller();
  const script = fileURLToPath(new URL('./baseline.ts', import.meta.url));
  const child = spawn(process.execPath, [script, inDir, outDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) out += String(chunk);
  await new Promise((resolve) => child.on('close', resolve));
  const peak = poller.take();
  poller.stop();
  return { ...(JSON.parse(out) as { records: number; seconds: number; bytes: number }), peak };
}

export async function runJobEngineOnce(records: number, options: { keep: boolean; log: (line: string) => void }): Promise<PipelineFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'tapline-bench-engine-'));
  const dest = join(dir, 'dest');
  const config = loadConfig({}, { dataDir: join(dir, 'data'), logLevel: 'silent', webhookAllowPrivate: true, stageTimeoutMs: 3600_000 });
  const ctx = await createContext(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(ctx);
  const worker = startJobWorker(ctx);
  const poller = new ChildRssPoller();
  try {
    const { api_keys: keys } = await createEnvironment(ctx, 'bench');
    const scope = systemEnvScope('bench');
    await applyCatalogDocument(ctx, scope, {
      availableSources: [{ tap: 'tap-sample', run: { builtin: 'tap-sample' } }],
      availableTargets: [{ target: 'target-jsonl', run: { builtin: 'target-jsonl' } }],
      flows: [{ id: 'pipeline', taps: ['tap-sample'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: { destination_path: dest } } }],
    });
    await updateEnvironmentSettings(ctx, scope, { webhook_url: 'http://127.0.0.1:9/unused' }); // status times, see above
    const call = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const res = await app.inject({ method, url, headers: { 'x-api-key': keys.environment }, payload: body as object | undefined });
      if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    await call('POST', '/bench/pipeline/t1/linkedSources', {
      source: { tap: 'tap-sample', config: { record_count: Math.ceil(records / 3), seed: 1 } }, field_map: FIELD_MAP,
    });
    const job = await call('POST', '/bench/pipeline/t1/jobs', {});
    // Connector peaks per status (the connector processes of a stage run while the job is in it).
    const peaks = new Map<string, ChildPeak[]>();
    let status = job.status as string;
    while (!TERMINAL.includes(status)) {
      await new Promise((r) => setTimeout(r, 25));
      const now = (await call('GET', `/bench/pipeline/t1/jobs/status?job_root=${encodeURIComponent(job.s3_root)}`)).status as string;
      if (now !== status) {
        peaks.set(status, [...(peaks.get(status) ?? []), ...poller.take()]);
        options.log(`${records}: ${now}`);
        status = now;
      }
    }
    if (status !== 'JOB_COMPLETED') throw new Error(`bench job ended ${status}`);
    const events = await ctx.db.kysely.selectFrom('webhook_events').select(['payload', 'created_at'])
      .where('ordering_key', '=', `job:${job.job_id}`).orderBy('id').execute();
    const at = new Map(events.map((e) => [JSON.parse(e.payload).data.status as string, Number(e.created_at)]));
    const final = await call('GET', `/bench/pipeline/t1/jobs/status?job_root=${encodeURIComponent(job.s3_root)}`);
    const jobDir = jobStorageFor(ctx, scope).localDir!(job.s3_root);
    const synced = final.processed_rows as number;
    const stage = (name: string, from: string, to: string, bytes: number, connectors: ChildPeak[]): StageFigures => {
      const seconds = ((at.get(to) ?? 0) - (at.get(from) ?? 0)) / 1000;
      return { name, seconds, records: synced, recordsPerSecond: synced / seconds, mbPerSecond: bytes / 1e6 / seconds, taplineRssMb: rssMb(), connectors };
    };
    const syncBytes = await dirBytes(join(jobDir, 'sync-output'));
    const stages: StageFigures[] = [
      stage('sync', 'SYNC_STARTED', 'SYNC_SUCCESS', syncBytes, peaks.get('SYNC_STARTED') ?? []),
      stage('etl', 'ETL_STARTED', 'ETL_SUCCESS', syncBytes, []),
      stage('export', 'EXPORT_STARTED', 'JOB_COMPLETED', await dirBytes(dest), peaks.get('EXPORT_STARTED') ?? []),
      stage('end to end', 'JOB_CREATED', 'JOB_COMPLETED', syncBytes, peaks.get('DISCOVER_STARTED') ?? []),
    ];
    poller.stop();
    const base = await runBaseline(join(jobDir, 'sync-output'), join(dir, 'baseline'));
    stages.push({ name: 'baseline', seconds: base.seconds, records: base.records, recordsPerSecond: base.records / base.seconds, mbPerSecond: base.bytes / 1e6 / base.seconds, taplineRssMb: 0, connectors: base.peak.map((p) => ({ ...p, command: 'baseline' })) });
    return { records: synced, stages, baselinePerSecond: base.records / base.seconds, taplinePeakRssMb: rssMb() };
  } finally {
    poller.stop();
    await worker.stop();
    await app.close();
    await ctx.db.close();
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    else options.log(`kept ${dir}`);
  }
}
