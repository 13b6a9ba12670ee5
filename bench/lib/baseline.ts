// Baseline for the pipeline bench: one plain Node process that reads the sync
// output, JSON.parses every line and writes it out again (JSON.stringify), with
// straightforward buffering. Run as: node bench/lib/baseline.ts <inDir> <outDir>
// Prints {"records":n,"seconds":s,"bytes":b} (seconds: without process start-up).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';

async function copyParsed(input: string, output: string): Promise<{ records: number; bytes: number }> {
  const out = createWriteStream(output);
  let records = 0;
  let bytes = 0;
  let carry = '';
  for await (const chunk of createReadStream(input, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const text = carry + chunk.toString('utf8');
    const end = text.lastIndexOf('\n');
    carry = text.slice(end + 1);
    const lines: string[] = [];
    for (let pos = 0; pos < end; ) {
      const nl = text.indexOf('\n', pos);
      lines.push(JSON.stringify(JSON.parse(text.slice(pos, nl))));
      pos = nl + 1;
    }
    records += lines.length;
    lines.push('');
    if (!out.write(lines.join('\n'))) await once(out, 'drain');
  }
  if (carry.trim() !== '') {
    out.write(`${JSON.stringify(JSON.parse(carry))}\n`);
    records++;
  }
  out.end();
  await once(out, 'finish');
  return { records, bytes };
}

const [inDir, outDir] = process.argv.slice(2);
await mkdir(outDir, { recursive: true });
const started = performance.now();
let records = 0;
let bytes = 0;
for (const name of (await readdir(inDir)).filter((n) => n.endsWith('.jsonl')).sort()) {
  const r = await copyParsed(join(inDir, name), join(outDir, name));
  records += r.records;
  bytes += r.bytes;
}
process.stdout.write(JSON.stringify({ records, bytes, seconds: (performance.now() - started) / 1000 }));
