/**
 * Line output in large chunks: callers append synchronously and await only
 * when a chunk is full, so a million records cost a few hundred writes and
 * the pipe's backpressure is still respected.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

const DEFAULT_CHUNK_CHARS = 256 * 1024;

export class ChunkedWriter {
  readonly stream: Writable;
  readonly chunkChars: number;
  private pending = '';

  constructor(stream: Writable, chunkChars = DEFAULT_CHUNK_CHARS) {
    this.stream = stream;
    this.chunkChars = chunkChars;
  }

  /** True when the caller should `await flush()` before appending more. */
  add(text: string): boolean {
    this.pending += text;
    return this.pending.length >= this.chunkChars;
  }

  async flush(): Promise<void> {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }
}

/** Exit quietly when the reader of our stdout goes away (e.g. the target died). */
export function exitOnBrokenPipe(name: string): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') {
      process.stderr.write(`${name}: stdout closed by reader (EPIPE)\n`);
      process.exit(1);
    }
    throw err;
  });
}
