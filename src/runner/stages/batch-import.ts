// BATCH messages (Meltano SDK): records in local JSON-lines files, optionally
// gzip-compressed, named by file:// URLs in `manifest`. Their lines are copied
// into the stream's sync file after checking each is a JSON object.
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { pipeline, type Readable } from 'node:stream';
import { LineSplitter } from '../lines.ts';
import type { BatchMessage } from '../singer.ts';
import type { JsonlWriter } from '../stage-files.ts';

export async function importBatch(batch: BatchMessage, writer: JsonlWriter): Promise<void> {
  const { format, compression } = batch.encoding as { format?: unknown; compression?: unknown };
  if (format !== 'jsonl') throw new Error(`BATCH format ${JSON.stringify(format)} is not supported (only jsonl)`);
  if (compression !== undefined && compression !== null && compression !== 'none' && compression !== 'gzip') {
    throw new Error(`BATCH compression ${JSON.stringify(compression)} is not supported (none or gzip)`);
  }
  for (const url of batch.manifest) {
    if (!url.startsWith('file://')) throw new Error('BATCH manifest entries must be file:// URLs');
    const path = fileURLToPath(url);
    const file = createReadStream(path);
    // pipeline (not pipe) so a read error reaches the gunzip stream we iterate.
    const input: Readable = compression === 'gzip' ? pipeline(file, createGunzip(), () => {}) : file;
    await copyRecords(input, writer, path);
  }
}

async function copyRecords(input: Readable, writer: JsonlWriter, path: string): Promise<void> {
  const lines = new LineSplitter((line, n) => {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`BATCH file ${path} line ${n}: not valid JSON`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new Error(`BATCH file ${path} line ${n}: not a JSON object`);
    }
    writer.add(line);
  });
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      lines.push(chunk);
      if (writer.needsFlush) await writer.flush();
    }
    lines.end();
  } finally {
    input.destroy();
  }
}
