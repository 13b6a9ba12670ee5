// Layout of a stage folder (sync output, ETL input/output): one `<stream>.jsonl`
// file per stream holding one record object per line, plus `_schemas.json`
// mapping stream name -> { schema, key_properties, bookmark_properties }.
// Stream names come from connectors, so file names are percent-encoded.
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

export const SCHEMAS_FILE = '_schemas.json';
const EXT = '.jsonl';

export interface StreamSchema {
  schema: Record<string, unknown>;
  key_properties?: string[];
  bookmark_properties?: string[];
}

export function streamFileName(stream: string): string {
  if (stream === '') throw new Error('empty stream name');
  return encodeURIComponent(stream).replace(/^\./, '%2E') + EXT;
}

export interface StreamFile {
  stream: string;
  path: string;
}

/** Stream files of a stage folder, sorted by file name. */
export async function listStreamFiles(dir: string): Promise<StreamFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(EXT) && n.length > EXT.length).sort();
  return names.map((name) => ({ stream: decodeStreamFileName(name), path: join(dir, name) }));
}

function decodeStreamFileName(name: string): string {
  const base = name.slice(0, -EXT.length);
  try {
    return decodeURIComponent(base);
  } catch {
    return base; // written by an ETL script with a literal '%': take it as is.
  }
}

export async function readSchemas(dir: string): Promise<Map<string, StreamSchema>> {
  let text: string;
  try {
    text = await readFile(join(dir, SCHEMAS_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${SCHEMAS_FILE} is not a JSON object`);
  return new Map(Object.entries(parsed as Record<string, StreamSchema>));
}

export async function writeSchemas(dir: string, schemas: ReadonlyMap<string, StreamSchema>): Promise<void> {
  await writeFile(join(dir, SCHEMAS_FILE), JSON.stringify(Object.fromEntries(schemas)), { mode: 0o600 });
}

const FLUSH_CHARS = 64 * 1024;

/**
 * Appends JSON lines to a file through a large buffer: one write per ~512 KiB,
 * no promise per line. Callers check `needsFlush` after adding and await
 * `flush()` (which only waits when the file stream is backed up).
 */
export class JsonlWriter {
  lines = 0;
  private parts: string[] = [];
  private size = 0;
  private readonly out: WriteStream;
  private failure: Error | undefined;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'w', mode: 0o600, highWaterMark: 4 * FLUSH_CHARS });
    this.out.on('error', (error) => {
      this.failure ??= error;
    });
  }

  add(json: string): void {
    this.parts.push(json);
    this.size += json.length;
    this.lines++;
  }

  get needsFlush(): boolean {
    return this.size >= FLUSH_CHARS;
  }

  /** Resolves immediately unless the file stream is backed up; rejects on a write error. */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.size === 0) return;
    this.parts.push('');
    const text = this.parts.join('\n');
    this.parts = [];
    this.size = 0;
    if (!this.out.write(text)) await drained(this.out);
  }

  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((resolve, reject) => {
      if (this.failure) reject(this.failure);
      this.out.once('error', reject);
      this.out.end(() => resolve());
    });
  }

  /** Closes without caring about errors (cleanup after a failure). */
  destroy(): void {
    this.out.destroy();
  }
}

/** Waits for 'drain', failing if the stream errors or closes first. */
export function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.removeListener('drain', onDrain);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
    };
    const onDrain = (): void => { cleanup(); resolve(); };
    const onError = (error: Error): void => { cleanup(); reject(error); };
    const onClose = (): void => { cleanup(); reject(new Error('stream closed before it drained')); };
    stream.once('drain', onDrain);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
