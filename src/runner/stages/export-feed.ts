// Writes a stage folder to a target's stdin as Singer messages. Record lines are
// wrapped as text (`{"type":"RECORD","stream":S,"record":` + line + `}`) without
// re-parsing: they were parsed when written, so a cheap shape check suffices.
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { LineSplitter } from '../lines.ts';
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
const WRITE_CHARS = 512 * 1024;

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
  const name = JSON.stringify(file.stream);
  const schemaMessage = { type: 'SCHEMA', stream: file.stream, schema: schema.schema, key_properties: schema.key_properties ?? [] };
  if (schema.bookmark_properties) Object.assign(schemaMessage, { bookmark_properties: schema.bookmark_properties });
  await write(stdin, `${JSON.stringify(schemaMessage)}\n`);
  const prefix = `{"type":"RECORD","stream":${name},"record":`;
  let parts: string[] = [];
  let size = 0;
  let n = 0;
  const lines = new LineSplitter((line, lineNumber) => {
    if (line.length === 0) return;
    if (line.charCodeAt(0) !== 123 || line.charCodeAt(line.length - 1) !== 125) {
      const trimmed = line.trim();
      if (trimmed === '') return;
      if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) {
        throw new ExportInputError(`export input ${file.stream} line ${lineNumber}: not a JSON object`);
      }
      line = trimmed;
    }
    parts.push(prefix, line, '}\n');
    size += line.length;
    n++;
  });
  for await (const chunk of createReadStream(file.path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    lines.push(chunk);
    if (size >= WRITE_CHARS) {
      const text = parts.join('');
      parts = [];
      size = 0;
      await write(stdin, text);
    }
  }
  lines.end();
  if (parts.length > 0) await write(stdin, parts.join(''));
  return n;
}

function write(stdin: Writable, text: string): Promise<void> | undefined {
  if (stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error('target stdin is closed'));
  return stdin.write(text) ? undefined : drained(stdin);
}
