// Splits a byte stream into text lines without readline: whole chunks are decoded
// at once and cut with indexOf, so the cost is a few native calls per 64 KB chunk.
// Splitting on the byte 0x0A before decoding is safe for UTF-8 (0x0A never occurs
// inside a multi-byte sequence). Memory is bounded: a line longer than
// `maxLineBytes` is either an error or truncated.

export type LongLinePolicy = 'error' | 'truncate';

export class LineTooLongError extends Error {
  readonly lineNumber: number;
  constructor(lineNumber: number, maxLineBytes: number) {
    super(`line ${lineNumber}: longer than ${maxLineBytes} bytes`);
    this.name = 'LineTooLongError';
    this.lineNumber = lineNumber;
  }
}

export interface LineSplitterOptions {
  maxLineBytes?: number;
  onLongLine?: LongLinePolicy;
}

export class LineSplitter {
  /** Number of lines emitted so far (blank lines included): the 1-based number of the last line. */
  lineNumber = 0;
  private readonly onLine: (line: string, lineNumber: number) => void;
  private readonly maxLineBytes: number;
  private readonly policy: LongLinePolicy;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private truncated = false;

  constructor(onLine: (line: string, lineNumber: number) => void, options: LineSplitterOptions = {}) {
    this.onLine = onLine;
    this.maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
    this.policy = options.onLongLine ?? 'error';
  }

  push(chunk: Buffer): void {
    const first = chunk.indexOf(10);
    if (first === -1) {
      this.hold(chunk);
      return;
    }
    let start = 0;
    if (this.heldBytes > 0 || this.truncated) {
      this.hold(chunk.subarray(0, first));
      this.emitHeld();
      start = first + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= start) this.emitText(chunk.toString('utf8', start, last));
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
  }

  /** Emits a final line that had no trailing newline. */
  end(): void {
    if (this.heldBytes > 0 || this.truncated) this.emitHeld();
  }

  private emitText(text: string): void {
    let pos = 0;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl === -1) {
        this.emit(text.slice(pos));
        return;
      }
      this.emit(text.slice(pos, nl));
      pos = nl + 1;
    }
  }

  private emit(line: string): void {
    const n = ++this.lineNumber;
    this.onLine(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line, n);
  }

  private hold(part: Buffer): void {
    if (part.length === 0 || this.truncated) return;
    if (this.heldBytes + part.length > this.maxLineBytes) {
      if (this.policy === 'error') throw new LineTooLongError(this.lineNumber + 1, this.maxLineBytes);
      part = part.subarray(0, this.maxLineBytes - this.heldBytes);
      this.truncated = true;
    }
    // Copy: the caller may reuse or release its chunk.
    this.held.push(Buffer.from(part));
    this.heldBytes += part.length;
  }

  private emitHeld(): void {
    const text = Buffer.concat(this.held, this.heldBytes).toString('utf8');
    const suffix = this.truncated ? ' [truncated]' : '';
    this.held = [];
    this.heldBytes = 0;
    this.truncated = false;
    this.emit(text + suffix);
  }
}

/** Keeps the last `size` lines (e.g. of stderr) for error messages. */
export class LineRing {
  private readonly lines: string[] = [];
  private readonly size: number;
  constructor(size: number) {
    this.size = size;
  }
  add(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }
  toArray(): string[] {
    return [...this.lines];
  }
}

/**
 * Reads `input` as blocks of whole lines: each yielded string holds one or more
 * complete lines, every one ending in '\n' (a last line without newline gets
 * one). Lets callers work on many lines with single native string operations.
 */
export async function* lineBlocks(input: AsyncIterable<Buffer>, maxLineBytes = 64 * 1024 * 1024): AsyncGenerator<string> {
  let carry: Buffer | undefined;
  for await (const chunk of input) {
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      carry = carry === undefined ? Buffer.from(chunk) : Buffer.concat([carry, chunk]);
      if (carry.length > maxLineBytes) throw new LineTooLongError(0, maxLineBytes);
      continue;
    }
    const head = carry === undefined ? chunk.subarray(0, last + 1) : Buffer.concat([carry, chunk.subarray(0, last + 1)]);
    carry = last + 1 < chunk.length ? Buffer.from(chunk.subarray(last + 1)) : undefined;
    yield head.toString('utf8');
  }
  if (carry !== undefined && carry.length > 0) yield `${carry.toString('utf8')}\n`;
}
