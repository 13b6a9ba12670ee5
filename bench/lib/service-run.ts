// One pipeline run through the real service (lib/service.ts: `node <npm start's
// flags> src/server.ts`, embedded mode, a fresh process and data folder per run),
// driven over HTTP by this harness, which is a separate process. The service's
// peak RSS is its kernel high-water mark (VmHWM), so the harness never enters it;
// connector peaks are polled from /proc while they run. Stage times are the
// timestamps of the job's status-change webhooks.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildRssPoller, peakRssKb, type ChildPeak } from './child-rss.ts';
import type { PipelineFigures, StageFigures } from './pipeline-run.ts';
import { runBaseline } from './run-baseline.ts';
import { ENV, startService } from './service.ts';

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

export async function runServiceOnce(records: number, options: { keep: boolean; log: (line: string) => void }): Promise<ServiceFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'tapline-bench-service-'));
  const dest = join(dir, 'dest');
  const service = await startService(dir, {
    availableSources: [{ tap: 'tap-sample', run: { builtin: 'tap-sample' } }],
    availableTargets: [{ target: 'target-jsonl', run: { builtin: 'target-jsonl' } }],
    flows: [{ id: 'pipeline', taps: ['tap-sample'], targets: ['target-jsonl'], export: { target: 'target-jsonl', config: { destination_path: dest } } }],
  });
  const poller = new ChildRssPoller(20, service.pid);
  try {
    await service.call('POST', `/${ENV}/pipeline/t1/linkedSources`, {
      source: { tap: 'tap-sample', config: { record_count: Math.ceil(records / 3), seed: 1 } }, field_map: FIELD_MAP,
    });
    poller.take(); // the link's own discovery is not part of the job
    const job = await service.call<JobView>('POST', `/${ENV}/pipeline/t1/jobs`, {});
    const statusUrl = `/${ENV}/pipeline/t1/jobs/status?job_root=${encodeURIComponent(job.s3_root)}`;
    const serviceMb = new Map<string, number>(); // the service's peak RSS so far, when each status ended
    let final = job;
    while (!TERMINAL.includes(final.status)) {
      await new Promise((r) => setTimeout(r, 100)); // only to see the end: stage times come from the webhooks
      const now = await service.call<JobView>('GET', statusUrl);
      if (now.status !== final.status) {
        serviceMb.set(final.status, (peakRssKb(service.pid) ?? 0) / 1024);
        options.log(`${records}: ${now.status}`);
      }
      final = now;
    }
    if (final.status !== 'JOB_COMPLETED') throw new Error(`bench job ended ${final.status}: ${final.message ?? ''}`);
    const serviceRssMb = (peakRssKb(service.pid) ?? 0) / 1024;
    // Connectors by role: the discovery runs `--discover` (the last one: the link's own
    // discovery may still run after the link was made), the sync the other tap process.
    const connectors = poller.take();
    poller.stop();
    const discovers = connectors.filter((c) => c.command.endsWith('--discover')).slice(-1);
    const taps = connectors.filter((c) => c.command.startsWith('tap-') && !c.command.endsWith('--discover'));
    const targets = connectors.filter((c) => c.command.startsWith('target-'));
    for (let i = 0; i < 100 && service.statusAt(job.job_id, 'JOB_COMPLETED') === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    const at = (status: string): number => service.statusAt(job.job_id, status) ?? NaN;
    const syncDir = join(dir, 'data', 'jobs', ENV, job.s3_root, 'sync-output');
    const synced = final.processed_rows;
    const syncBytes = await dirBytes(syncDir);
    const stage = (name: string, from: string, to: string, bytes: number, connectors: ChildPeak[]): StageFigures => {
      const seconds = (at(to) - at(from)) / 1000;
      const n = name === 'discover' ? 0 : synced;
      const rss = name === 'end to end' ? serviceRssMb : serviceMb.get(from) ?? serviceRssMb;
      return { name, seconds, records: n, recordsPerSecond: n / seconds, mbPerSecond: bytes / 1e6 / seconds, taplineRssMb: rss, connectors };
    };
    const stages: StageFigures[] = [
      stage('discover', 'DISCOVER_STARTED', 'DISCOVER_SUCCESS', 0, discovers),
      stage('sync', 'SYNC_STARTED', 'SYNC_SUCCESS', syncBytes, taps),
      stage('etl', 'ETL_STARTED', 'ETL_SUCCESS', syncBytes, []),
      stage('export', 'EXPORT_STARTED', 'JOB_COMPLETED', await dirBytes(dest), targets),
      stage('end to end', 'JOB_CREATED', 'JOB_COMPLETED', syncBytes, []),
    ];
    await service.stop(); // a quiet machine for the baseline
    const base = await runBaseline(syncDir, join(dir, 'baseline'));
    stages.push({ name: 'baseline', seconds: base.seconds, records: base.records, recordsPerSecond: base.records / base.seconds, mbPerSecond: base.bytes / 1e6 / base.seconds, taplineRssMb: 0, connectors: base.peak.map((p) => ({ ...p, command: 'baseline' })) });
    return { records: synced, stages, baselinePerSecond: base.records / base.seconds, taplinePeakRssMb: serviceRssMb, serviceFlags: service.flags };
  } finally {
    poller.stop();
    await service.stop();
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    else options.log(`kept ${dir}`);
  }
}
