import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fastLinePattern } from './flat-record-line.ts';

const primitive = fc.oneof(fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null));
const flatRecord = fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), primitive, { maxKeys: 6 });
// Characters that matter to JSON's grammar, to mutate lines with.
const mutationChar = fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', '\u0001', '\u2028', '-', '+', '.', 'e', 'E', '0', '1', 'u', 'a', 'n', 't', 'f', 'l');

/** Whole-line match of the sticky pattern (the target tests it at each line start). */
function fastAccepts(stream: string, line: string): boolean {
  const pattern = fastLinePattern(stream)!;
  pattern.lastIndex = 0;
  return pattern.test(`${line}\n`) && pattern.lastIndex === line.length + 1;
}

/** The fast path must never accept a line JSON.parse rejects or reads differently. */
function assertSound(stream: string, line: string): void {
  if (!fastAccepts(stream, line)) return;
  const parsed = JSON.parse(line);
  expect(Object.keys(parsed)).toEqual(['type', 'stream', 'record']);
  expect(parsed).toMatchObject({ type: 'RECORD', stream });
  expect(Object.values(parsed.record).every((v) => v === null || typeof v !== 'object')).toBe(true);
}

describe('fastLinePattern (target-jsonl)', () => {
  it('takes every compact flat record of its stream', () => {
    fc.assert(fc.property(flatRecord, (record) => {
      expect(fastAccepts('people', `{"type":"RECORD","stream":"people","record":${JSON.stringify(record)}}`)).toBe(true);
    }), { numRuns: 500 });
  });

  it('declines other streams, nested values, other layouts and extra keys', () => {
    for (const line of [
      '{"type":"RECORD","stream":"other","record":{"a":1}}',
      '{"type":"RECORD","stream":"s","record":{"a":{"b":1}}}',
      '{"type":"RECORD","stream":"s","record":{"a":[1]}}',
      '{"type":"RECORD","stream":"s","record":{"a":1},"time_extracted":"x"}',
      '{"type": "RECORD", "stream": "s", "record": {"a": 1}}',
      '{"type":"RECORD","stream":"s","record":{"a":01}}',
      '{"type":"RECORD","stream":"s","record":{"a":"\\x"}}',
      '{"type":"RECORD","stream":"s","record":{"a":1}} ',
    ]) expect(fastAccepts('s', line), line).toBe(false);
    expect(fastLinePattern('a"b')).toBeUndefined();
    expect(fastAccepts('a.b', '{"type":"RECORD","stream":"aXb","record":{}}')).toBe(false);
    expect(fastAccepts('a.b', '{"type":"RECORD","stream":"a.b","record":{}}')).toBe(true);
  });

  it('accepts only what JSON.parse accepts in raw string and number text', () => {
    const piece = fc.constantFrom('a', 'é', '"', '\\', '/', 'u', '0', 'F', 'x', 'n', 'b', '\u0001', '\u007f', '\u2028', '-', '+', '.', 'e', '1', ' ');
    const raw = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
    fc.assert(fc.property(raw, raw, (key, value) => {
      assertSound('s', `{"type":"RECORD","stream":"s","record":{"${key}":"${value}"}}`);
      assertSound('s', `{"type":"RECORD","stream":"s","record":{"k":${value}}}`);
    }), { numRuns: 5000 });
  });

  it('accepts only what JSON.parse accepts as a flat record (mutated lines)', () => {
    fc.assert(fc.property(flatRecord, fc.array(fc.tuple(fc.nat(), mutationChar, fc.boolean()), { minLength: 1, maxLength: 4 }), (record, edits) => {
      let line = `{"type":"RECORD","stream":"s","record":${JSON.stringify(record)}}`;
      for (const [at, ch, insert] of edits) {
        const i = at % (line.length + 1);
        line = line.slice(0, i) + ch + line.slice(insert ? i : i + 1);
      }
      assertSound('s', line);
    }), { numRuns: 3000 });
  });
});
