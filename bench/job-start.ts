// Job start latency: time from the run-job HTTP response to SYNC_STARTED, over
// N jobs (default 200), against the real service (`node <npm start's flags>
// src/server.ts`, embedded mode: SQLite, API and worker in that one process; see
// lib/service.ts), called over HTTP from this process.
//   npm run bench:job-start [-- --jobs 200]
// Each job is a tiny tap-sample sync (catalog already discovered, no export), run
// one after the other so the figure is the engine's latency, not queueing.
// SYNC_STARTED is the timestamp of the job's status webhook (taken in the
// transaction of the change), so no polling granularity enters the figure; the
// response time is taken here when the response has arrived (same clock).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENV, startService } from './lib/service.ts';

const GOAL_P50_MS = 50;
const TERMINAL = ['JOB_COMPLETED', 'SYNC_FAILED', 'DISCOVER_FAILED', 'ETL_FAILED', 'EXPORT_FAILED'];

const argIndex = process.argv.indexOf('--jobs');
const JOBS = argIndex === -1 ? 200 : Number(process.argv[argIndex + 1]);
const dir = mkdtempSync(path.join(os.tmpdir(), 'tapline-job-start-'));
const service = await startService(dir, {
  availableSources: [{ tap: 'tap-sample', run: { builtin: 'tap-sample' } }],
  flows: [{ id: 'start', taps: ['tap-sample'], etl: 'none' }],
});

interface JobView {
  job_id: string;
  s3_root: string;
  status: string;
}

async function waitDone(root: string): Promise<string> {
  for (;;) {
    const job = await service.call<JobView>('GET', `/${ENV}/start/t1/jobs/status?job_root=${encodeURIComponent(root)}`);
    if (TERMINAL.includes(job.status)) return job.status;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function webhookTime(jobId: string, status: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const at = service.statusAt(jobId, status);
    if (at !== undefined) return at;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`job ${jobId}: no ${status} webhook after 2 s`);
}

const latencies: number[] = [];
try {
  await service.call('POST', `/${ENV}/start/t1/linkedSources`, { source: { tap: 'tap-sample', config: { record_count: 1, streams: ['contacts'] } } });
  const warmup = await service.call<JobView>('POST', `/${ENV}/start/t1/jobs`, {});
  if ((await waitDone(warmup.s3_root)) !== 'JOB_COMPLETED') throw new Error('warm-up job failed');
  for (let i = 0; i < JOBS; i++) {
    const job = await service.call<JobView>('POST', `/${ENV}/start/t1/jobs`, { reset_source_state: true });
    const answeredAt = Date.now();
    const status = await waitDone(job.s3_root);
    if (status !== 'JOB_COMPLETED') throw new Error(`job ${job.job_id} ended ${status}`);
    latencies.push((await webhookTime(job.job_id, 'SYNC_STARTED')) - answeredAt);
  }
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}

latencies.sort((a, b) => a - b);
const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] as number;
const cpus = os.cpus();
console.log(`\n## Job start latency (real service, embedded SQLite; ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, service flags: ${service.flags.join(' ') || '(none)'})\n`);
console.log(`run-job response → SYNC_STARTED over ${latencies.length} jobs: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies[latencies.length - 1]} ms`);
console.log('(timestamps have 1 ms resolution; negative values: the worker reached SYNC_STARTED before the client had read the response)');
console.log(`Goal p50 < ${GOAL_P50_MS} ms: ${pct(50) < GOAL_P50_MS ? 'met' : 'NOT met'}`);
