// Runs the baseline (baseline.ts) on a sync output folder: wall time from spawn to
// exit, like the stages (each of which starts a connector process), and its peak RSS.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChildRssPoller, type ChildPeak } from './child-rss.ts';

export interface BaselineFigures {
  records: number;
  bytes: number;
  seconds: number;
  peak: ChildPeak[];
}

export async function runBaseline(inDir: string, outDir: string): Promise<BaselineFigures> {
  const poller = new ChildRssPoller();
  const script = fileURLToPath(new URL('./baseline.ts', import.meta.url));
  const started = performance.now();
  const child = spawn(process.execPath, [script, inDir, outDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) out += String(chunk);
  const code = await new Promise((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  const peak = poller.take();
  poller.stop();
  if (code !== 0) throw new Error(`baseline exited with ${code}`);
  const { records, bytes } = JSON.parse(out) as { records: number; bytes: number };
  return { records, bytes, seconds, peak };
}
