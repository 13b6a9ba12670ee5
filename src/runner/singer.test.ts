import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SingerParseError } from './errors.ts';
import { SingerParser, parseSingerLine, rawRecordJson, type RecordMessage, type SingerMessage } from './singer.ts';

function parseAll(chunks: Buffer[]): SingerMessage[] {
  const out: SingerMessage[] = [];
  const parser = new SingerParser((m) => out.push(m));
  for (const c of chunks) parser.push(c);
  parser.end();
  return out;
}

/** Cuts `buf` at the given (sorted, deduplicated) positions. */
function cut(buf: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    parts.push(buf.subarray(prev, p));
    prev = p;
  }
  parts.push(buf.subarray(prev));
  return parts;
}

const jsonValue = fc.jsonValue({ maxDepth: 2 });
const record = fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), jsonValue, { maxKeys: 4 });
const message: fc.Arbitrary<SingerMessage> = fc.oneof(
  fc.record({ type: fc.constant('RECORD' as const), stream: fc.string({ unit: 'binary' }), record }),
  fc.record({ type: fc.constant('SCHEMA' as const), stream: fc.string(), schema: record, key_properties: fc.array(fc.string()) }),
  fc.record({ type: fc.constant('STATE' as const), value: record }),
  fc.record({ type: fc.constant('ACTIVATE_VERSION' as const), stream: fc.string(), version: fc.integer() }),
  fc.record({ type: fc.constant('BATCH' as const), stream: fc.string(), encoding: fc.constant({ format: 'jsonl' }), manifest: fc.array(fc.string()) }),
);

describe('SingerParser', () => {
  it('round-trips messages however the byte stream is split (multi-byte text, CRLF, blank lines)', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), fc.boolean(), (messages, at, crlf, finalNewline) => {
        const eol = crlf ? '\r\n' : '\n';
        const text = messages.map((m) => JSON.stringify(m)).join(`${eol}${eol}`) + (finalNewline ? eol : '');
        const parsed = parseAll(cut(Buffer.from(text), at));
        expect(parsed).toEqual(JSON.parse(JSON.stringify(messages)));
      }),
      { numRuns: 300 },
    );
  });

  it('names the 1-based line of a malformed line', () => {
    const text = '{"type":"STATE","value":{}}\n\nINFO starting\n';
    expect(() => parseAll([Buffer.from(text)])).toThrow(new SingerParseError(3, 'not valid JSON (starts with "INFO starting")'));
    expect(() => parseAll([Buffer.from('{"type":"STATE","value":1}\n{"type":"RECORD","stream":"a","rec')])).toThrow(/^line 2: not valid JSON$/);
  });

  it('rejects invalid messages with the reason', () => {
    const bad: Array<[string, RegExp]> = [
      ['[1]', /not a JSON object/],
      ['{"type":"RECORD","record":{}}', /RECORD without a string "stream"/],
      ['{"type":"RECORD","stream":"a","record":[1]}', /object "record"/],
      ['{"type":"SCHEMA","stream":"a"}', /object "schema"/],
      ['{"type":"STATE"}', /STATE without "value"/],
      ['{"type":"NOPE"}', /unknown message type "NOPE"/],
      ['{"stream":"a"}', /without a "type"/],
    ];
    for (const [line, error] of bad) expect(() => parseSingerLine(line, 7)).toThrow(error);
  });

  it('bounds memory: a line longer than maxLineBytes fails', () => {
    const parser = new SingerParser(() => {}, { maxLineBytes: 100 });
    parser.push(Buffer.from('{"type":"STATE","value":1}\n'));
    expect(() => {
      for (let i = 0; i < 10; i++) parser.push(Buffer.from('x'.repeat(20)));
    }).toThrow(/line 2: line too long/);
  });
});

describe('rawRecordJson', () => {
  const rec = (line: string): string | undefined => rawRecordJson(line, JSON.parse(line) as RecordMessage);

  it('cuts the record out of compact and Python-style lines', () => {
    expect(rec('{"type":"RECORD","stream":"a","record":{"x":1.50}}')).toBe('{"x":1.50}');
    expect(rec('{"type": "RECORD", "stream": "a b", "record": {"x": [1, 2]}}')).toBe('{"x": [1, 2]}');
    expect(rec('{"type": "RECORD", "stream": "a", "record": {"x": 1}, "time_extracted": "2024-01-01T00:00:00Z"}')).toBe('{"x": 1}');
  });

  it('declines other layouts', () => {
    expect(rec('{"stream":"a","type":"RECORD","record":{"x":1}}')).toBeUndefined();
    expect(rec('{"type":"RECORD","stream":"a","record":{"x":1},"version":3}')).toBeUndefined();
    expect(rec('{"type":"RECORD","stream":"a","record":{"x":1} }')).toBeUndefined();
    expect(rec('{"type":"RECORD","stream":"\\u0061","record":{"x":1}}')).toBeUndefined();
  });

  it('whatever it returns parses to the parsed record', () => {
    fc.assert(
      fc.property(fc.string(), record, fc.boolean(), (stream, r, python) => {
        let line = JSON.stringify({ type: 'RECORD', stream, record: r });
        if (python) line = line.replace('{"type":"RECORD","stream":', '{"type": "RECORD", "stream": ').replace(',"record":', ', "record": ');
        const message = JSON.parse(line) as RecordMessage;
        const raw = rawRecordJson(line, message);
        if (raw !== undefined) expect(JSON.parse(raw)).toEqual(message.record);
      }),
    );
  });
});

describe('SingerParser memory', () => {
  it('parses 200 MB in constant memory', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const line = JSON.stringify({ type: 'RECORD', stream: 's', record: { id: 1, name: 'x'.repeat(100) } });
    const chunk = Buffer.from(`${line}\n`.repeat(Math.floor(65536 / (line.length + 1))) + line.slice(0, 50));
    const tail = Buffer.from(`${line.slice(50)}\n`);
    let records = 0;
    const parser = new SingerParser(() => records++, { onRecordJson: () => records++ });
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 3200; i++) {
      parser.push(chunk);
      parser.push(tail);
    }
    parser.end();
    gc();
    expect(records).toBeGreaterThan(1_000_000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024);
  });
});
