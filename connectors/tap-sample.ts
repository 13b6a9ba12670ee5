/**
 * tap-sample: a fast, deterministic Singer tap of CRM-like data.
 *   node connectors/tap-sample.ts --discover [--config f]
 *   node connectors/tap-sample.ts --config f [--catalog f] [--state f]
 * Record i (0-based) of each stream has id i+1 and updated_at
 * 2024-01-01T00:00:00Z + i seconds, so bookmarks and date windows map to
 * index ranges and never need a scan.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { failWith, parseSingerArgs, readJsonObject } from './lib/args.ts';
import { ChunkedWriter, exitOnBrokenPipe } from './lib/output.ts';
import { BASE_MS, isoSeconds, updatedAtSeconds } from './sample/data.ts';
import { discoverCatalog, planStreams } from './sample/catalog.ts';
import type { StreamPlan } from './sample/catalog.ts';
import { parseSampleConfig } from './sample/config.ts';
import type { SampleConfig } from './sample/config.ts';
import { streamSchema } from './sample/streams.ts';

const NAME = 'tap-sample';
// Output chunk size. A chunk is one string of ~1000 small pieces that Node
// flattens before writing; below V8's large-object size (128 KiB) that string
// is an ordinary young allocation, above it each chunk costs an mmap/munmap
// (about 15% more time for the whole tap).
const CHUNK_CHARS = 60 * 1024;

type State = { bookmarks: Record<string, Record<string, unknown>> } & Record<string, unknown>;

function readState(file: string | undefined): State {
  const raw = file ? readJsonObject(file, 'state') : {};
  // Accept a whole STATE message as well as its value.
  const value = raw.type === 'STATE' && raw.value && typeof raw.value === 'object' ? raw.value as Record<string, unknown> : raw;
  const bookmarks = value.bookmarks && typeof value.bookmarks === 'object' ? value.bookmarks : {};
  return { ...value, bookmarks: { ...(bookmarks as State['bookmarks']) } };
}

/** [first, end) record indexes to emit for one stream. */
function indexRange(config: SampleConfig, bookmark: unknown): [number, number] {
  let first = 0;
  if (config.startMs !== undefined) first = Math.max(first, Math.ceil((config.startMs - BASE_MS) / 1000));
  if (typeof bookmark === 'string' && !Number.isNaN(Date.parse(bookmark))) {
    first = Math.max(first, Math.floor((Date.parse(bookmark) - BASE_MS) / 1000) + 1);
  }
  let end = config.recordCount;
  if (config.endMs !== undefined) end = Math.min(end, Math.ceil((config.endMs - BASE_MS) / 1000));
  return [first, Math.max(first, end)];
}

function stateLine(state: State): string {
  return `${JSON.stringify({ type: 'STATE', value: state })}\n`;
}

/** Emits all planned streams; returns false when fail_after stopped the run. */
async function sync(config: SampleConfig, plans: StreamPlan[], state: State, out: ChunkedWriter): Promise<boolean> {
  let emitted = 0;
  for (const { stream, fields, fullTable } of plans) {
    const schema = { type: 'SCHEMA', stream: stream.name, schema: streamSchema(fields), key_properties: ['id'], bookmark_properties: ['updated_at'] };
    out.add(`${JSON.stringify(schema)}\n`);
    const [first, end] = indexRange(config, fullTable ? undefined : state.bookmarks[stream.name]?.updated_at);
    const head = `{"type":"RECORD","stream":"${stream.name}","record":{`;
    const keys = fields.map((f, k) => `${k === 0 ? '' : ','}"${f.name}":`);
    const gens = fields.map((f) => f.json);
    const { seed, failAfter, stateInterval, sleepMsPerRecord } = config;
    const setBookmark = (i: number) => {
      state.bookmarks[stream.name] = { ...state.bookmarks[stream.name], updated_at: isoSeconds(updatedAtSeconds(i)) };
    };
    for (let i = first; i < end; i++) {
      if (failAfter !== undefined && emitted >= failAfter) return false;
      let line = head;
      for (let k = 0; k < gens.length; k++) line += keys[k] + gens[k](seed, i);
      emitted++;
      if (out.add(`${line}}}\n`)) await out.flush();
      if ((i - first + 1) % stateInterval === 0) {
        setBookmark(i);
        out.add(stateLine(state));
      }
      if (sleepMsPerRecord > 0) {
        await out.flush();
        await sleep(sleepMsPerRecord);
      }
    }
    // Final state of the stream, unless the periodic one just said the same.
    if (end === first || (end - first) % stateInterval !== 0) {
      if (end > first) setBookmark(end - 1);
      out.add(stateLine(state));
    }
    await out.flush();
  }
  return config.failAfter === undefined;
}

async function main(): Promise<void> {
  const args = parseSingerArgs(process.argv.slice(2));
  if (args.about) {
    process.stdout.write(`${JSON.stringify({ name: NAME, capabilities: ['discover', 'catalog', 'state'] })}\n`);
    return;
  }
  if (args.discover) {
    process.stdout.write(`${JSON.stringify(discoverCatalog(), null, 2)}\n`);
    return;
  }
  if (!args.config) throw new Error('--config is required');
  const config = parseSampleConfig(readJsonObject(args.config, 'config'));
  const catalog = args.catalog ? readJsonObject(args.catalog, 'catalog') : undefined;
  const plans = planStreams(catalog, config.streams);
  const out = new ChunkedWriter(process.stdout, CHUNK_CHARS);
  exitOnBrokenPipe(NAME);
  const completed = await sync(config, plans, readState(args.state), out);
  await out.flush();
  if (!completed) failWith(NAME, new Error(`failing on purpose after ${config.failAfter} records (fail_after)`));
}

main().catch((err) => failWith(NAME, err));
