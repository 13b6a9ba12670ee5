// Streaming Singer message parser. Constant memory: it holds at most one partial
// line between chunks (bounded by maxLineBytes), never the stream.
import { SingerParseError } from './errors.ts';
import { LineSplitter, LineTooLongError } from './lines.ts';
import { matchFlatRecord } from './record-fast-path.ts';

export type JsonObject = Record<string, unknown>;

export interface RecordMessage { type: 'RECORD'; stream: string; record: JsonObject; time_extracted?: string; version?: number }
export interface SchemaMessage { type: 'SCHEMA'; stream: string; schema: JsonObject; key_properties?: string[]; bookmark_properties?: string[] }
export interface StateMessage { type: 'STATE'; value: unknown }
export interface ActivateVersionMessage { type: 'ACTIVATE_VERSION'; stream: string; version: number }
export interface BatchMessage { type: 'BATCH'; stream: string; encoding: JsonObject; manifest: string[] }
export type SingerMessage = RecordMessage | SchemaMessage | StateMessage | ActivateVersionMessage | BatchMessage;

/** Called per message with the raw line it came from (for fast paths, see rawRecordJson). */
export type MessageHandler = (message: SingerMessage, line: string, lineNumber: number) => void;

/** Called instead of the MessageHandler for a RECORD whose record text was validated without parsing. */
export type RecordJsonHandler = (stream: string, recordJson: string, lineNumber: number) => void;

export interface SingerParserOptions {
  /** Longest accepted line; longer fails the stream. Default 64 MiB. */
  maxLineBytes?: number;
  /** Fast path for flat RECORD lines (see record-fast-path.ts): no message object is built. */
  onRecordJson?: RecordJsonHandler;
}

export class SingerParser {
  private readonly splitter: LineSplitter;

  constructor(onMessage: MessageHandler, options: SingerParserOptions = {}) {
    const onRecordJson = options.onRecordJson;
    this.splitter = new LineSplitter((line, n) => {
      if (onRecordJson !== undefined) {
        const fast = matchFlatRecord(line);
        if (fast !== undefined) {
          onRecordJson(fast.stream, fast.json, n);
          return;
        }
      }
      const message = parseSingerLine(line, n);
      if (message !== undefined) onMessage(message, line, n);
    }, { maxLineBytes: options.maxLineBytes, onLongLine: 'error' });
  }

  /** Lines seen so far (1-based number of the last line). */
  get lineNumber(): number {
    return this.splitter.lineNumber;
  }

  /** Parses every complete line of `chunk`; throws SingerParseError on a bad line. */
  push(chunk: Buffer): void {
    try {
      this.splitter.push(chunk);
    } catch (error) {
      throw error instanceof LineTooLongError ? new SingerParseError(error.lineNumber, 'line too long') : error;
    }
  }

  /** Parses a final line without trailing newline. */
  end(): void {
    this.splitter.end();
  }
}

/** Parses one line; blank lines give undefined. Throws SingerParseError naming `lineNumber`. */
export function parseSingerLine(line: string, lineNumber: number): SingerMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    if (line.trim() === '') return undefined;
    throw new SingerParseError(lineNumber, `not valid JSON${describeStart(line)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SingerParseError(lineNumber, 'not a JSON object');
  }
  const problem = checkMessage(value as JsonObject);
  if (problem !== undefined) throw new SingerParseError(lineNumber, problem);
  return value as SingerMessage;
}

// A line that is not JSON is usually a log line printed to stdout by mistake; its
// start helps to find it. JSON-looking lines may be data, so nothing of them is shown.
function describeStart(line: string): string {
  const start = line.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) return '';
  return ` (starts with ${JSON.stringify(start.slice(0, 40))})`;
}

function checkMessage(m: JsonObject): string | undefined {
  switch (m.type) {
    case 'RECORD':
      if (typeof m.stream !== 'string') return 'RECORD without a string "stream"';
      return isObject(m.record) ? undefined : 'RECORD without an object "record"';
    case 'SCHEMA':
      if (typeof m.stream !== 'string') return 'SCHEMA without a string "stream"';
      if (!isObject(m.schema)) return 'SCHEMA without an object "schema"';
      return m.key_properties === undefined || isStringArray(m.key_properties) ? undefined : 'SCHEMA with invalid "key_properties"';
    case 'STATE':
      return m.value === undefined ? 'STATE without "value"' : undefined;
    case 'ACTIVATE_VERSION':
      if (typeof m.stream !== 'string') return 'ACTIVATE_VERSION without a string "stream"';
      return typeof m.version === 'number' ? undefined : 'ACTIVATE_VERSION without a number "version"';
    case 'BATCH':
      if (typeof m.stream !== 'string') return 'BATCH without a string "stream"';
      if (!isObject(m.encoding)) return 'BATCH without an object "encoding"';
      return isStringArray(m.manifest) ? undefined : 'BATCH without a string array "manifest"';
    default:
      return typeof m.type === 'string' ? `unknown message type ${JSON.stringify(m.type.slice(0, 40))}` : 'message without a "type"';
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

const prefixCache = new Map<string, readonly [string, string]>();

/**
 * The record's JSON text cut out of its raw RECORD line, when that is provably the
 * same JSON: the line is `{"type":"RECORD","stream":S,"record":R}` (compact or with
 * Python's `", "`/`": "` separators, optionally ending with time_extracted). Saves a
 * JSON.stringify per record and keeps numbers exactly as the tap wrote them.
 * Returns undefined for any other layout (the caller then stringifies `message.record`).
 */
export function rawRecordJson(line: string, message: RecordMessage): string | undefined {
  let keys = 0;
  for (const _ in message) keys++;
  const extracted = message.time_extracted;
  if (keys !== (extracted === undefined ? 3 : 4) || line.charCodeAt(line.length - 1) !== 125) return undefined;
  let prefixes = prefixCache.get(message.stream);
  if (prefixes === undefined) {
    const s = JSON.stringify(message.stream);
    prefixes = [`{"type":"RECORD","stream":${s},"record":`, `{"type": "RECORD", "stream": ${s}, "record": `];
    if (prefixCache.size > 10_000) prefixCache.clear();
    prefixCache.set(message.stream, prefixes);
  }
  const compact = line.startsWith(prefixes[0]);
  if (!compact && !line.startsWith(prefixes[1])) return undefined;
  const start = (compact ? prefixes[0] : prefixes[1]).length;
  let end = line.length - 1;
  if (extracted !== undefined) {
    if (typeof extracted !== 'string') return undefined;
    const suffix = `${compact ? ',"time_extracted":' : ', "time_extracted": '}${JSON.stringify(extracted)}}`;
    if (!line.endsWith(suffix)) return undefined;
    end = line.length - suffix.length;
  }
  return line.charCodeAt(start) === 123 && line.charCodeAt(end - 1) === 125 ? line.slice(start, end) : undefined;
}
