// One pipeline run through the real service: `node <npm start's flags> src/server.ts`
// in embedded mode (SQLite; API, job worker, scheduler and webhook delivery in that
// one process), driven over HTTP by this harness, which is a separate process. The
// service's peak RSS is its kernel high-water mark (VmHWM), so the harness itself
// never enters it. Stage times come from the job's status-change webhooks (each
// event's timestamp is taken in the transaction of the change), received here.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildRssPoller, peakRssKb, type ChildPeak } from './child-rss.ts';
import type { PipelineFigures, StageFigures } from './pipeline-run.ts';
import { runBaseline } from './run-baseline.ts';
import { serviceNodeFlags } from './service-flags.ts';

const ENV = 'demo'; // the environment a fresh embedded service creates; the catalog file replaces its catalog
const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const TERMINAL = ['JOB_COMPLETED', 'DISCOVER_FAILED', 'SYNC_FAILED', 'ETL_FAILED', 'EXPORT_FAILED'];

// Realistic map: renames, dropped fields, every stream projected (as in pipeline-run.ts;
// the API asks for a name on every entry).
const FIELD_MAP = {
  contacts: { name: 'people', selected: ['id', 'first_name', 'last_name', 'email', 'company_id', 'created_at', 'updated_at'] },
  companies: { name: 'companies', selected: ['id', 'name', 'domain', 'industry', 'employees', 'updated_at'] },
  deals: { name: 'opportunities', selected: ['id', 'name', 'amount', 'stage', 'company_id', 'updated_at'] },
};

interface JobView {
  job_id: string;
  s3_root: string;
  status: string;
  processed_rows: number;
  message?: string;
}

export interface ServiceFigures extends PipelineFigures {
  serviceFlags: string[];
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.jsonl')) total += (await stat(join(dir, name))).size;
  return total;
}

/** Receives the service's webhooks: time of each status of the job and its discovery (event timestamp, ms). */
async function startReceiver(): Promise<{ server: Server; url: string; statusAt: Map<string, number> }> {
  const statusAt = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const event = JSON.parse(body) as { type: string; timestamp: string; data: { status?: string; job_id?: string } };
      const ofJob = event.type === 'job.status_changed' || (event.type === 'discover.status_changed' && event.data.job_id);
      if (ofJob && event.data.status) statusAt.set(event.data.status, Date.parse(event.timestamp));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, statusAt };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function startService(dir: string, catalogFile: string, flags: string[]): Promise<{ proc: ChildProcess; base: string; key: string }> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', TAPLINE_DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'warn', TAPLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const proc = spawn(process.execPath, [...flags, SERVER, '--catalog', catalogFile], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode} while starting`);
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ready && existsSync(join(dir, 'data', 'demo-keys.json'))) break;
    if (tries > 600) throw new Error('service not ready after 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const keys = JSON.parse(await readFile(join(dir, 'data', 'demo-keys.json'), 'utf8')) as { environmentKey: string };
  return { proc, base, key: keys.environmentKey };
}

async function stopService(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

export async function runServiceOnce(records: number, options: { keep: boolean; log: (line: string) => void }): Promise<ServiceFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'tapline-bench-service-'));
  const dest = join(dir, 'dest');
  const catalogFile = join(dir, 'catalog.json');
  await writeFile(catalogFile, JSON.stringify({
    env_id: ENV,
    availableSources: [{ tap: 'tap-sample', run: { builtin: 'tap-sample' } }],
    availableTargets: [{ target: 'target-jsonl', run: { builtin: 'target-jsonl' } }],
    flows: [{ id: 'pipeline', taps: ['tap-sample'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: { destination_path: dest } } }],
  }));
  const flags = serviceNodeFlags();
  const receiver = await startReceiver();
  const service = await startService(dir, catalogFile, flags);
  const pid = service.proc.pid!;
  const poller = new ChildRssPoller(20, pid);
  try {
    const call = async <T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${service.base}${path}`, {
        method, headers: { 'x-api-key': service.key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    await call('PATCH', `/admin/environments/${ENV}`, { webhook_url: receiver.url });
    await call('POST', `/${ENV}/pipeline/t1/linkedSources`, {
      source: { tap: 'tap-sample', config: { record_count: Math.ceil(records / 3), seed: 1 } }, field_map: FIELD_MAP,
    });
    poller.take(); // the link's own discovery is not part of the job
    const job = await call<JobView>('POST', `/${ENV}/pipeline/t1/jobs`, {});
    const statusUrl = `/${ENV}/pipeline/t1/jobs/status?job_root=${encodeURIComponent(job.s3_root)}`;
    // The service's peak RSS so far at each status change.
    const serviceMb = new Map<string, number>();
    let status = job.status;
    let final = job;
    while (!TERMINAL.includes(status)) {
      await new Promise((r) => setTimeout(r, 25));
      final = await call<JobView>('GET', statusUrl);
      if (final.status !== status) {
        serviceMb.set(status, (peakRssKb(pid) ?? 0) / 1024);
        options.log(`${records}: ${final.status}`);
        status = final.status;
      }
    }
    if (status !== 'JOB_COMPLETED') throw new Error(`bench job ended ${status}: ${final.message ?? ''}`);
    const serviceRssMb = (peakRssKb(pid) ?? 0) / 1024;
    // Connectors by role: the discovery runs `--discover` (the last one: the link's own
    // discovery may still run after the link was made), the sync the other tap process.
    const connectors = poller.take();
    const discovers = connectors.filter((c) => c.command.endsWith('--discover')).slice(-1);
    const taps = connectors.filter((c) => c.command.startsWith('tap-') && !c.command.endsWith('--discover'));
    const targets = connectors.filter((c) => c.command.startsWith('target-'));
    for (let i = 0; i < 100 && !receiver.statusAt.has('JOB_COMPLETED'); i++) await new Promise((r) => setTimeout(r, 50));
    const at = receiver.statusAt;
    const syncDir = join(dir, 'data', 'jobs', ENV, job.s3_root, 'sync-output');
    const synced = final.processed_rows;
    const syncBytes = await dirBytes(syncDir);
    const stage = (name: string, from: string, to: string, bytes: number, rssAt: string, connectors: ChildPeak[]): StageFigures => {
      const seconds = ((at.get(to) ?? NaN) - (at.get(from) ?? NaN)) / 1000;
      const n = name === 'discover' ? 0 : synced;
      return { name, seconds, records: n, recordsPerSecond: n / seconds, mbPerSecond: bytes / 1e6 / seconds, taplineRssMb: serviceMb.get(rssAt) ?? serviceRssMb, connectors };
    };
    const stages: StageFigures[] = [
      stage('discover', 'DISCOVER_STARTED', 'DISCOVER_SUCCESS', 0, 'DISCOVER_STARTED', discovers),
      stage('sync', 'SYNC_STARTED', 'SYNC_SUCCESS', syncBytes, 'SYNC_STARTED', taps),
      stage('etl', 'ETL_STARTED', 'ETL_SUCCESS', syncBytes, 'ETL_STARTED', []),
      stage('export', 'EXPORT_STARTED', 'JOB_COMPLETED', await dirBytes(dest), 'EXPORT_STARTED', targets),
      stage('end to end', 'JOB_CREATED', 'JOB_COMPLETED', syncBytes, 'JOB_COMPLETED', []),
    ];
    poller.stop();
    await stopService(service.proc); // quiet machine for the baseline
    const base = await runBaseline(syncDir, join(dir, 'baseline'));
    stages.push({ name: 'baseline', seconds: base.seconds, records: base.records, recordsPerSecond: base.records / base.seconds, mbPerSecond: base.bytes / 1e6 / base.seconds, taplineRssMb: 0, connectors: base.peak.map((p) => ({ ...p, command: 'baseline' })) });
    return { records: synced, stages, baselinePerSecond: base.records / base.seconds, taplinePeakRssMb: serviceRssMb, serviceFlags: flags };
  } finally {
    poller.stop();
    await stopService(service.proc);
    await new Promise((resolve) => receiver.server.close(resolve));
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    else options.log(`kept ${dir}`);
  }
}
