// Job start latency: time from the run-job HTTP response to SYNC_STARTED, over
// N jobs (default 200), in embedded mode (SQLite, API and worker in one process).
//   npm run bench:job-start [-- --jobs 200]
// Each job is a tiny tap-sample sync (catalog already discovered, no export), run
// one after the other so the figure is the engine's latency, not queueing.
// SYNC_STARTED is timed by the job's own webhook outbox row (written in the same
// transaction as the status change), so no polling granularity enters the figure.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { systemEnvScope } from '../src/auth/scope.ts';
import { createContext } from '../src/bootstrap.ts';
import { applyCatalogDocument } from '../src/catalog/bulk.ts';
import { loadConfig } from '../src/config.ts';
import { createEnvironment, updateEnvironmentSettings } from '../src/environments/service.ts';
import { startJobWorker } from '../src/jobs/worker.ts';

const argIndex = process.argv.indexOf('--jobs');
const JOBS = argIndex === -1 ? 200 : Number(process.argv[argIndex + 1]);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tapline-job-start-'));
const config = loadConfig({}, { dataDir, logLevel: 'silent', webhookAllowPrivate: true });
const ctx = await createContext(config, { logger: pino({ level: 'silent' }) });
const { api_keys: keys } = await createEnvironment(ctx, 'bench');
const scope = systemEnvScope('bench');
await applyCatalogDocument(ctx, scope, {
  availableSources: [{ tap: 'tap-sample', run: { builtin: 'tap-sample' } }],
  flows: [{ id: 'start', taps: ['tap-sample'], etl: 'none' }],
});
// A webhook URL makes every status change write an outbox row we can time (nothing delivers them here).
await updateEnvironmentSettings(ctx, scope, { webhook_url: 'http://127.0.0.1:9/unused' });
const app = await buildApp(ctx);
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const worker = startJobWorker(ctx);

async function call(method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${url}`, {
    method, headers: { 'x-api-key': keys.environment, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function eventTime(jobId: string, status: string): Promise<number | undefined> {
  const rows = await ctx.db.kysely.selectFrom('webhook_events').select(['payload', 'created_at'])
    .where('ordering_key', '=', `job:${jobId}`).orderBy('id').execute();
  const row = rows.find((r) => JSON.parse(r.payload).data.status === status);
  return row ? Number(row.created_at) : undefined;
}

async function waitDone(root: string): Promise<string> {
  for (;;) {
    const job = await call('GET', `/bench/start/t1/jobs/status?job_root=${encodeURIComponent(root)}`);
    if (['JOB_COMPLETED', 'SYNC_FAILED', 'DISCOVER_FAILED', 'ETL_FAILED', 'EXPORT_FAILED'].includes(job.status)) return job.status;
    await new Promise((r) => setTimeout(r, 5));
  }
}

await call('POST', '/bench/start/t1/linkedSources', { source: { tap: 'tap-sample', config: { record_count: 1, streams: ['contacts'] } } });
const warmup = await call('POST', '/bench/start/t1/jobs', {});
if ((await waitDone(warmup.s3_root)) !== 'JOB_COMPLETED') throw new Error('warm-up job failed');

const latencies: number[] = [];
for (let i = 0; i < JOBS; i++) {
  const job = await call('POST', '/bench/start/t1/jobs', { reset_source_state: true });
  const answeredAt = Date.now();
  const status = await waitDone(job.s3_root);
  if (status !== 'JOB_COMPLETED') throw new Error(`job ${job.job_id} ended ${status}`);
  const started = await eventTime(job.job_id, 'SYNC_STARTED');
  if (started === undefined) throw new Error(`job ${job.job_id} has no SYNC_STARTED event`);
  latencies.push(started - answeredAt);
}

await worker.stop();
await app.close();
await ctx.db.close();
rmSync(dataDir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] as number;
const cpus = os.cpus();
console.log(`\n## Job start latency (${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, embedded SQLite)\n`);
console.log(`run-job response → SYNC_STARTED over ${latencies.length} jobs: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies[latencies.length - 1]} ms`);
console.log(`(negative values: the worker reached SYNC_STARTED before the client had read the response)`);
console.log(`Goal p50 < 50 ms: ${pct(50) < 50 ? 'met' : 'NOT met'}`);
