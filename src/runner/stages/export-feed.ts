// Writes a stage folder to a target's stdin as Singer messages. Record lines are
// wrapped as text (`{"type":"RECORD","stream":S,"record":` + line + `}`) without
// re-parsing: they were parsed when written, so a cheap shape check suffices.
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { lineBlocks } from '../lines.ts';
import { drained, type StreamFile, type StreamSchema } from '../stage-files.ts';

/** The export input (not the target) is at fault. */
export class ExportInputError extends Error {
  override name = 'ExportInputError';
}

export interface FeedResult {
  recordCount: number;
  perStream: Record<string, number>;
}

const FALLBACK_SCHEMA: StreamSchema = { schema: { type: 'object' }, key_properties: [] };

export async function feedTarget(stdin: Writable, files: readonly StreamFile[], schemas: ReadonlyMap<string, StreamSchema>, state: unknown): Promise<FeedResult> {
  const counts = new Map<string, number>();
  let recordCount = 0;
  for (const file of files) {
    const n = await feedStream(stdin, file, schemas.get(file.stream) ?? FALLBACK_SCHEMA);
    counts.set(file.stream, (counts.get(file.stream) ?? 0) + n);
    recordCount += n;
  }
  await write(stdin, `${JSON.stringify({ type: 'STATE', value: state })}\n`);
  stdin.end();
  await finished(stdin);
  return { recordCount, perStream: Object.fromEntries(counts) };
}

async function feedStream(stdin: Writable, file: StreamFile, schema: StreamSchema): Promise<number> {
  const schemaMessage = { type: 'SCHEMA', stream: file.stream, schema: schema.schema, key_properties: schema.key_properties ?? [] };
  if (schema.bookmark_properties) Object.assign(schemaMessage, { bookmark_properties: schema.bookmark_properties });
  await write(stdin, `${JSON.stringify(schemaMessage)}\n`);
  const prefix = `{"type":"RECORD","stream":${JSON.stringify(file.stream)},"record":`;
  const between = `}\n${prefix}`;
  let n = 0;
  let lineNumber = 0;
  const input = createReadStream(file.path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>;
  for await (const block of lineBlocks(input)) {
    const lines = countNewlines(block);
    // Fast path: every line of the block starts with '{' and ends with '}' (no
    // blank lines, no CR), so all are wrapped by one native replaceAll.
    if (!IRREGULAR_LINE.test(block)) {
      await write(stdin, `${prefix}${block.slice(0, -1).replaceAll('\n', between)}}\n`);
      n += lines;
    } else {
      const { text, records } = wrapLines(block, prefix, file.stream, lineNumber);
      if (text !== '') await write(stdin, text);
      n += records;
    }
    lineNumber += lines;
  }
  return n;
}

// A line not starting with '{' (at the block start or after a newline) or not ending with '}'.
const IRREGULAR_LINE = /(?:^|\n)[^{]|[^}]\n/;

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Slow path, line by line: skips blank lines, trims, rejects lines that are not objects. */
function wrapLines(block: string, prefix: string, stream: string, firstLine: number): { text: string; records: number } {
  const parts: string[] = [];
  let lineNumber = firstLine;
  for (const raw of block.slice(0, -1).split('\n')) {
    lineNumber++;
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('{') || !line.endsWith('}')) {
      throw new ExportInputError(`export input ${stream} line ${lineNumber}: not a JSON object`);
    }
    parts.push(prefix, line, '}\n');
  }
  return { text: parts.join(''), records: parts.length / 3 };
}

function write(stdin: Writable, text: string): Promise<void> | undefined {
  if (stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error('target stdin is closed'));
  return stdin.write(text) ? undefined : drained(stdin);
}
