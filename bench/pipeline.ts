// Pipeline throughput bench: tap-sample → sync → etl (field map) → export →
// target-jsonl, per record count, each in a fresh Node process so peak RSS
// figures are per size. By default the job runs through the real job engine in
// embedded mode (API + worker + SQLite in one process, see lib/job-engine-run.ts);
// `--direct` calls the runner's stage functions only (lib/pipeline-run.ts). Usage:
//   npm run bench:pipeline [-- --records 100000,1000000] [--keep] [--direct]
// Node flags given to this script (e.g. --max-semi-space-size) apply to the runs too.
// Prints a markdown table and checks the goals (each stage >= 0.7x the baseline
// rate, end to end >= 150,000 records/s, Tapline peak RSS < 200 MB).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PipelineFigures } from './lib/pipeline-run.ts';

const GOALS = { stageVsBaseline: 0.7, endToEndPerSecond: 150_000, taplineRssMb: 200 };

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function runInChild(records: number): Promise<PipelineFigures> {
  const self = fileURLToPath(import.meta.url);
  const flags = ['--keep', '--direct'].filter((f) => process.argv.includes(f));
  const args = [...process.execArgv, self, '--one', String(records), ...flags];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) out += String(chunk);
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`bench child for ${records} records exited with ${code}`);
  return JSON.parse(out) as PipelineFigures;
}

const num = (n: number): string => Math.round(n).toLocaleString('en-US');
const fixed = (n: number, d = 2): string => n.toFixed(d);

function table(all: PipelineFigures[]): string {
  const rows = ['| records | step | seconds | records/s | MB/s | vs baseline | peak RSS (MB) |', '|---:|---|---:|---:|---:|---:|---|'];
  for (const f of all) {
    for (const s of f.stages) {
      const connectors = s.connectors.map((c) => `${c.command} ${fixed(c.peakKb / 1024, 0)}`).join(', ');
      const ratio = s.name === 'baseline' || s.name === 'end to end' ? '' : `${fixed(s.recordsPerSecond / f.baselinePerSecond)}x`;
      rows.push(`| ${num(f.records)} | ${s.name} | ${fixed(s.seconds)} | ${num(s.recordsPerSecond)} | ${fixed(s.mbPerSecond, 1)} | ${ratio} | ${connectors}${connectors ? '; ' : ''}Tapline ${fixed(s.taplineRssMb, 0)} |`);
    }
  }
  return rows.join('\n');
}

function goals(all: PipelineFigures[]): string[] {
  const lines: string[] = [];
  for (const f of all) {
    const stages = f.stages.filter((s) => ['sync', 'etl', 'export'].includes(s.name));
    const worst = Math.min(...stages.map((s) => s.recordsPerSecond / f.baselinePerSecond));
    const e2e = f.stages.find((s) => s.name === 'end to end')!;
    const check = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    lines.push(`- ${num(f.records)} records: slowest stage ${fixed(worst)}x baseline (${check(worst >= GOALS.stageVsBaseline)}); ` +
      `end to end ${num(e2e.recordsPerSecond)} records/s (${check(e2e.recordsPerSecond >= GOALS.endToEndPerSecond)}); ` +
      `Tapline peak RSS ${fixed(f.taplinePeakRssMb, 0)} MB (${check(f.taplinePeakRssMb < GOALS.taplineRssMb)})`);
  }
  return lines;
}

const one = argValue('--one');
if (one !== undefined) {
  // Imported on demand: --direct runs must not carry the app's modules in their RSS.
  const run = process.argv.includes('--direct')
    ? (await import('./lib/pipeline-run.ts')).runPipelineOnce
    : (await import('./lib/job-engine-run.ts')).runJobEngineOnce;
  const figures = await run(Number(one), { keep: process.argv.includes('--keep'), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(JSON.stringify(figures));
} else {
  const sizes = (argValue('--records') ?? '100000,1000000').split(',').map(Number);
  const all: PipelineFigures[] = [];
  for (const n of sizes) all.push(await runInChild(n));
  const cpus = (await import('node:os')).cpus();
  const mode = process.argv.includes('--direct') ? 'runner stages only' : 'job engine, embedded mode';
  console.log(`\n## Pipeline throughput (${mode}; ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version} ${process.execArgv.join(' ')})\n`);
  console.log(table(all));
  console.log('\nGoals (each stage >= 0.7x baseline, end to end >= 150,000 records/s, Tapline peak RSS < 200 MB):');
  console.log(goals(all).join('\n'));
}
