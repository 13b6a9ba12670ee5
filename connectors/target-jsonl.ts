/**
 * target-jsonl: a Singer target writing `<destination_path>/<stream>.jsonl`.
 *   node connectors/target-jsonl.ts --config f   (Singer messages on stdin)
 * Records are appended one JSON object per line. After each flush (every
 * `flush_every_records` records and at the end) the latest STATE value seen
 * is echoed on stdout as one JSON line: only then are the records before it
 * on disk. Malformed input exits 1 with the line number on stderr.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { failWith, parseSingerArgs, readJsonObject } from './lib/args.ts';
import { fastLinePattern } from './lib/flat-record-line.ts';

const NAME = 'target-jsonl';
const MAX_PENDING_CHARS = 16 * 1024 * 1024;
const PIECE_CHARS = 32 * 1024;

interface TargetConfig {
  destinationPath: string;
  flushEveryRecords: number;
  failOnRecord?: number;
}

interface StreamFile {
  fd: number;
  pending: string;
  /** Matches one compact flat RECORD line of this stream at lastIndex (sticky), or undefined. */
  fastLine?: RegExp;
  /** `{"type":"RECORD","stream":"<name>","record":` */
  head: string;
}

function parseConfig(raw: Record<string, unknown>): TargetConfig {
  const dest = raw.destination_path;
  if (typeof dest !== 'string' || dest === '') throw new Error('config.destination_path must be a non-empty string');
  const flush = raw.flush_every_records ?? 10_000;
  if (typeof flush !== 'number' || !Number.isSafeInteger(flush) || flush < 1) {
    throw new Error('config.flush_every_records must be a positive integer');
  }
  const failOn = raw.fail_on_record ?? undefined;
  if (failOn !== undefined && (typeof failOn !== 'number' || !Number.isSafeInteger(failOn))) {
    throw new Error('config.fail_on_record must be an integer');
  }
  return { destinationPath: dest, flushEveryRecords: flush, failOnRecord: failOn };
}

/** Stream names come from the tap: keep them to one safe file name. */
export function streamFileName(stream: string): string {
  const safe = stream.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${safe.startsWith('.') ? `_${safe}` : safe}.jsonl`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The record's JSON text. Re-serialising costs as much as parsing, so for the
 * common compact layout `{"type":"RECORD","stream":"s","record":{...}}` with
 * no other keys (already validated by JSON.parse) the text is sliced out.
 */
function recordText(line: string, stream: string, msg: Record<string, unknown>): string {
  if (line.startsWith('{"type":"RECORD","stream":') && line.endsWith('}}')) {
    let keys = 0;
    for (const _ in msg) keys++;
    const head = `{"type":"RECORD","stream":${JSON.stringify(stream)},"record":`;
    if (keys === 3 && line.startsWith(head)) return line.slice(head.length, -1);
  }
  return JSON.stringify(msg.record);
}

function createTarget(config: TargetConfig) {
  mkdirSync(config.destinationPath, { recursive: true });
  const files = new Map<string, StreamFile>();
  let pendingRecords = 0;
  let pendingChars = 0;
  let records = 0;
  let lineNumber = 0;
  let state: { value: unknown } | undefined;
  /** Stream of the latest SCHEMA or RECORD: its fast pattern is tried on each line. */
  let current: StreamFile | undefined;
  const warned = new Set<string>();

  function flush(): void {
    for (const file of files.values()) {
      if (file.pending !== '') writeSync(file.fd, file.pending);
      file.pending = '';
    }
    pendingRecords = 0;
    pendingChars = 0;
    if (state) process.stdout.write(`${JSON.stringify(state.value)}\n`);
    state = undefined;
  }

  function addRecords(file: StreamFile, text: string, count: number): void {
    file.pending += text;
    // Full pieces go to disk at once (their STATE is still echoed only at the flush):
    // short-lived strings stay in V8's young generation, and a string above the
    // large-object size (128 KiB) would cost an mmap to flatten.
    if (file.pending.length >= PIECE_CHARS) {
      writeSync(file.fd, file.pending);
      file.pending = '';
    }
    pendingChars += text.length;
    pendingRecords += count;
    if (pendingRecords >= config.flushEveryRecords || pendingChars >= MAX_PENDING_CHARS) flush();
  }

  /** Takes the run of fast lines (lib/flat-record-line.ts) of `file` at `start`, up to the next flush; returns where it ended. */
  function fastRun(file: StreamFile, fastLine: RegExp, text: string, start: number): number {
    const room = config.flushEveryRecords - pendingRecords;
    let count = 0;
    let end = start;
    fastLine.lastIndex = start;
    while (count < room && fastLine.test(text)) {
      count++;
      end = fastLine.lastIndex;
    }
    if (count === 0) return start;
    records += count;
    lineNumber += count;
    // Lines are head + record + '}\n': drop the first head and the last '}', and
    // each '}\n' + head in between ('\n' occurs only at line ends).
    const body = text.slice(start + file.head.length, end - 2);
    addRecords(file, `${count === 1 ? body : body.replaceAll(`}\n${file.head}`, '\n')}\n`, count);
    return end;
  }

  /** Handles the complete lines of `text`; returns the index after the last one. */
  function onText(text: string): number {
    let pos = 0;
    for (;;) {
      // fail_on_record (a test knob) counts records one by one: JSON.parse path only.
      if (current?.fastLine && config.failOnRecord === undefined) pos = fastRun(current, current.fastLine, text, pos);
      const nl = text.indexOf('\n', pos);
      if (nl === -1) return pos;
      onLine(text.slice(pos, nl));
      pos = nl + 1;
    }
  }

  function onLine(line: string): void {
    const n = ++lineNumber;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      if (line.trim() === '') return;
      throw new Error(`line ${n}: not valid JSON (${(err as Error).message}): ${line.slice(0, 200)}`);
    }
    if (!isObject(msg) || typeof msg.type !== 'string') throw new Error(`line ${n}: not a Singer message (no "type")`);
    const stream = msg.stream;
    switch (msg.type) {
      case 'RECORD': {
        if (typeof stream !== 'string' || !isObject(msg.record)) throw new Error(`line ${n}: RECORD needs "stream" and an object "record"`);
        const file = files.get(stream);
        if (!file) throw new Error(`line ${n}: RECORD for stream ${JSON.stringify(stream)} before its SCHEMA`);
        records++;
        if (config.failOnRecord !== undefined && records >= config.failOnRecord) {
          throw new Error(`failing on purpose at record ${records} (fail_on_record)`);
        }
        current = file;
        addRecords(file, `${recordText(line, stream, msg)}\n`, 1);
        return;
      }
      case 'SCHEMA':
        if (typeof stream !== 'string' || !isObject(msg.schema)) throw new Error(`line ${n}: SCHEMA needs "stream" and an object "schema"`);
        if (!files.has(stream)) {
          const fd = openSync(path.join(config.destinationPath, streamFileName(stream)), 'a');
          const head = `{"type":"RECORD","stream":${JSON.stringify(stream)},"record":`;
          files.set(stream, { fd, pending: '', head, fastLine: fastLinePattern(stream) });
        }
        current = files.get(stream);
        return;
      case 'STATE':
        if (!('value' in msg)) throw new Error(`line ${n}: STATE needs a "value"`);
        state = { value: msg.value };
        if (pendingRecords === 0) flush();
        return;
      case 'ACTIVATE_VERSION':
        if (typeof stream !== 'string') throw new Error(`line ${n}: ACTIVATE_VERSION needs "stream"`);
        return;
      default:
        if (!warned.has(msg.type)) process.stderr.write(`${NAME}: ignoring message type ${JSON.stringify(msg.type)} (line ${n})\n`);
        warned.add(msg.type);
    }
  }

  function finish(): void {
    flush();
    for (const file of files.values()) closeSync(file.fd);
    process.stderr.write(`${NAME}: wrote ${records} records to ${files.size} stream file(s)\n`);
  }

  return { onText, onLine, finish };
}

/** Feeds stdin to the target in blocks of whole lines (one await per chunk, never per line). */
async function readInput(input: Readable, target: ReturnType<typeof createTarget>): Promise<void> {
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    // A chunk without a newline completes no line: hold it (long lines stay linear).
    if (chunk.indexOf('\n') === -1) {
      rest += chunk;
      continue;
    }
    const text = rest === '' ? chunk : rest + chunk;
    rest = text.slice(target.onText(text));
  }
  if (rest !== '') target.onLine(rest);
}

async function main(): Promise<void> {
  const args = parseSingerArgs(process.argv.slice(2));
  if (args.about) {
    process.stdout.write(`${JSON.stringify({ name: NAME, capabilities: ['state'] })}\n`);
    return;
  }
  if (!args.config) throw new Error('--config is required');
  const target = createTarget(parseConfig(readJsonObject(args.config, 'config')));
  await readInput(process.stdin, target);
  target.finish();
}

main().catch((err) => failWith(NAME, err));
