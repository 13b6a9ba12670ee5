// One pipeline run of the bench's --direct mode: the runner's stage functions called
// from this process (a fresh one per record count, see bench/pipeline.ts), no job engine.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCommand, runDiscover, runEtl, runExport, runSync, selectCatalog, type FieldMap } from '../../src/runner/index.ts';
import { ChildRssPoller, type ChildPeak } from './child-rss.ts';
import { runBaseline } from './run-baseline.ts';

export interface StageFigures {
  name: string;
  seconds: number;
  records: number;
  recordsPerSecond: number;
  mbPerSecond: number;
  /** Tapline's own peak RSS so far (process lifetime high-water mark). */
  taplineRssMb: number;
  connectors: ChildPeak[];
}

export interface PipelineFigures {
  records: number;
  stages: StageFigures[];
  baselinePerSecond: number;
  taplinePeakRssMb: number;
}

// Realistic map: renames, dropped fields, every stream projected (no copy fast path).
const FIELD_MAP: FieldMap = {
  contacts: { name: 'people', selected: ['id', 'first_name', 'last_name', 'email', 'company_id', 'created_at', 'updated_at'] },
  companies: { selected: ['id', 'name', 'domain', 'industry', 'employees', 'updated_at'] },
  deals: { name: 'opportunities', selected: ['id', 'name', 'amount', 'stage', 'company_id', 'updated_at'] },
};

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith('.jsonl')) total += (await stat(join(dir, name))).size;
  return total;
}

const rssMb = (): number => process.resourceUsage().maxRSS / 1024;

export async function runPipelineOnce(records: number, options: { keep: boolean; log: (line: string) => void }): Promise<PipelineFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'tapline-bench-'));
  const tap = resolveCommand({ builtin: 'tap-sample' });
  const target = resolveCommand({ builtin: 'target-jsonl' });
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const poller = new ChildRssPoller();
  const stages: StageFigures[] = [];
  const measure = async <T>(name: string, fn: () => Promise<T>, count: (r: T) => number, bytes: () => Promise<number>): Promise<T> => {
    poller.take();
    const started = performance.now();
    const result = await fn();
    const seconds = (performance.now() - started) / 1000;
    const n = count(result);
    stages.push({ name, seconds, records: n, recordsPerSecond: n / seconds, mbPerSecond: (await bytes()) / 1e6 / seconds, taplineRssMb: rssMb(), connectors: poller.take() });
    options.log(`${records}: ${name} ${n} records in ${seconds.toFixed(2)} s`);
    return result;
  };
  try {
    const catalog = selectCatalog(await runDiscover({ baseEnv, connector: tap, config: {} }), FIELD_MAP, null);
    const config = { record_count: Math.ceil(records / 3), seed: 1 };
    const syncDir = join(dir, 'sync');
    const sync = await measure('sync', () => runSync({ baseEnv, connector: tap, config, catalog, outDir: syncDir }), (r) => r.recordCount, async () => 0);
    stages[stages.length - 1].mbPerSecond = sync.bytes / 1e6 / stages[stages.length - 1].seconds;
    const job = { jobId: 'bench', tenant: 'bench', flow: 'bench', envId: 'bench' };
    const etl = await measure('etl', () => runEtl({ baseEnv, inputDir: syncDir, outDir: join(dir, 'etl'), fieldMap: FIELD_MAP, job }), (r) => r.recordCount, () => dirBytes(syncDir));
    const dest = join(dir, 'dest');
    await measure('export', () => runExport({ baseEnv, connector: target, config: { destination_path: dest }, inputDir: etl.outputDir, state: sync.state }), (r) => r.recordCount, () => dirBytes(dest));
    const total = stages.reduce((s, x) => s + x.seconds, 0);
    stages.push({ name: 'end to end', seconds: total, records: sync.recordCount, recordsPerSecond: sync.recordCount / total, mbPerSecond: sync.bytes / 1e6 / total, taplineRssMb: rssMb(), connectors: [] });
    poller.stop();
    const base = await runBaseline(syncDir, join(dir, 'baseline'));
    stages.push({ name: 'baseline', seconds: base.seconds, records: base.records, recordsPerSecond: base.records / base.seconds, mbPerSecond: base.bytes / 1e6 / base.seconds, taplineRssMb: 0, connectors: base.peak.map((p) => ({ ...p, command: 'baseline' })) });
    return { records: sync.recordCount, stages, baselinePerSecond: base.records / base.seconds, taplinePeakRssMb: rssMb() };
  } finally {
    if (!options.keep) await rm(dir, { recursive: true, force: true });
    else options.log(`kept ${dir}`);
  }
}
