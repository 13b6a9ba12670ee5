// Pipeline throughput bench: tap-sample → discover → sync → etl (field map) →
// export → target-jsonl, per record count. By default the job runs through the
// real service (`node <npm start's flags> src/server.ts`, embedded mode, a fresh
// process per record count) driven over HTTP by this process; see
// lib/service-run.ts. `--direct` calls the runner's stage functions only, in a
// fresh bench process per record count (lib/pipeline-run.ts). Usage:
//   npm run bench:pipeline [-- --records 100000,1000000] [--keep] [--direct]
// Prints a markdown table and checks the goals (each stage >= 0.7x the baseline
// rate, end to end >= 150,000 records/s, Tapline peak RSS < 200 MB).
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { PipelineFigures } from './lib/pipeline-run.ts';

const GOALS = { stageVsBaseline: 0.7, endToEndPerSecond: 150_000, taplineRssMb: 200 };
const RECORD_STAGES = ['sync', 'etl', 'export'];

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const keep = process.argv.includes('--keep');
const log = (line: string): void => void process.stderr.write(`${line}\n`);

async function directInChild(records: number): Promise<PipelineFigures> {
  const self = fileURLToPath(import.meta.url);
  const args = [...process.execArgv, self, '--one', String(records), ...(keep ? ['--keep'] : [])];
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
      const tapline = s.name === 'baseline' ? '' : `${connectors ? '; ' : ''}Tapline ${fixed(s.taplineRssMb, 0)}`;
      const ratio = RECORD_STAGES.includes(s.name) ? `${fixed(s.recordsPerSecond / f.baselinePerSecond)}x` : '';
      const rate = s.records > 0 ? [num(s.recordsPerSecond), fixed(s.mbPerSecond, 1)] : ['', ''];
      rows.push(`| ${num(f.records)} | ${s.name} | ${fixed(s.seconds)} | ${rate[0]} | ${rate[1]} | ${ratio} | ${connectors}${tapline} |`);
    }
  }
  return rows.join('\n');
}

function goals(all: PipelineFigures[]): string[] {
  const check = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  return all.map((f) => {
    const worst = Math.min(...f.stages.filter((s) => RECORD_STAGES.includes(s.name)).map((s) => s.recordsPerSecond / f.baselinePerSecond));
    const e2e = f.stages.find((s) => s.name === 'end to end')!;
    return `- ${num(f.records)} records: slowest stage ${fixed(worst)}x baseline (${check(worst >= GOALS.stageVsBaseline)}); ` +
      `end to end ${num(e2e.recordsPerSecond)} records/s (${check(e2e.recordsPerSecond >= GOALS.endToEndPerSecond)}); ` +
      `Tapline peak RSS ${fixed(f.taplinePeakRssMb, 0)} MB (${check(f.taplinePeakRssMb < GOALS.taplineRssMb)})`;
  });
}

const direct = process.argv.includes('--direct');
const one = argValue('--one');
if (one !== undefined) {
  // A --direct child. Imported on demand: it must not carry the app's modules in its RSS.
  const { runPipelineOnce } = await import('./lib/pipeline-run.ts');
  process.stdout.write(JSON.stringify(await runPipelineOnce(Number(one), { keep, log })));
} else {
  const sizes = (argValue('--records') ?? '100000,1000000').split(',').map(Number);
  const all: PipelineFigures[] = [];
  let flags = process.execArgv;
  for (const n of sizes) {
    if (direct) all.push(await directInChild(n));
    else {
      const { runServiceOnce } = await import('./lib/service-run.ts');
      const figures = await runServiceOnce(n, { keep, log });
      flags = figures.serviceFlags;
      all.push(figures);
    }
  }
  const cpu = cpus();
  const mode = direct
    ? 'runner stages only (--direct); "Tapline" = the bench process calling them'
    : 'job engine, embedded mode; "Tapline" = the service process (src/server.ts), not this harness';
  console.log(`\n## Pipeline throughput (${mode})\n`);
  console.log(`${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, Tapline's Node flags: ${flags.join(' ') || '(none)'}\n`);
  console.log(table(all));
  console.log('\nGoals (each stage >= 0.7x baseline, end to end >= 150,000 records/s, Tapline peak RSS < 200 MB):');
  console.log(goals(all).join('\n'));
}
