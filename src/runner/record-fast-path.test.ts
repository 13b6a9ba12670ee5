import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchFlatRecord } from './record-fast-path.ts';

// -0 is left out: JSON has no negative zero, so it reads back as 0 and toEqual tells them apart.
const primitive = fc.oneof(fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)), fc.integer(), fc.boolean(), fc.constant(null));
const flatRecord = fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), primitive, { maxKeys: 6 });
const stream = fc.string({ unit: 'binary', minLength: 1, maxLength: 8 });

function pythonStyle(value: unknown): string {
  // json.dumps default separators, without touching separators inside strings.
  return JSON.stringify(value, null, 1).replace(/\n */g, (m, offset, all) => (all[offset - 1] === '{' || all[offset - 1] === '[' ? '' : ' ')).replace(/ ?\n?([}\]])$/, '$1');
}

/** The fast path's verdict must never disagree with JSON.parse. */
let accepted = 0;
function assertSound(line: string): void {
  const fast = matchFlatRecord(line);
  if (fast === undefined) return;
  accepted++;
  const parsed = JSON.parse(line);
  expect(Object.keys(parsed)).toEqual(['type', 'stream', 'record']);
  expect(parsed.type).toBe('RECORD');
  expect(parsed.stream).toBe(fast.stream);
  expect(JSON.parse(fast.json)).toEqual(parsed.record);
}

// Characters that matter to JSON's grammar, to mutate lines with.
const mutationChar = fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\t', '\u0001', '\u2028', '\u00a0', '-', '+', '.', 'e', 'E', '0', '1', 'u', 'a', 'n', 't', 'f', 'l');

describe('matchFlatRecord', () => {
  it('takes compact flat records and returns the exact record text', () => {
    fc.assert(fc.property(stream, flatRecord, (s, record) => {
      const json = JSON.stringify(record);
      const line = `{"type":"RECORD","stream":${JSON.stringify(s)},"record":${json}}`;
      const fast = matchFlatRecord(line);
      if (/["\\\u0000-\u001f]/.test(s)) return; // escaped stream names use JSON.parse
      expect(fast).toEqual({ stream: s, json });
    }));
  });

  it('takes Python-style lines', () => {
    expect(matchFlatRecord('{"type": "RECORD", "stream": "users", "record": {"id": 1, "name": "a, b: c", "ok": true}}')).toEqual({ stream: 'users', json: '{"id": 1, "name": "a, b: c", "ok": true}' });
    fc.assert(fc.property(flatRecord, (record) => {
      const line = `{"type": "RECORD", "stream": "s", "record": ${pythonStyle(record)}}`;
      expect(JSON.parse(line).record).toEqual(record);
      expect(matchFlatRecord(line)).toBeDefined();
      assertSound(line);
    }));
  });

  it('declines nested records, other layouts and escaped stream names', () => {
    for (const line of [
      '{"type":"RECORD","stream":"s","record":{"a":{"b":1}}}',
      '{"type":"RECORD","stream":"s","record":{"a":[1]}}',
      '{"type":"RECORD","stream":"s","record":{"a":1},"time_extracted":"x"}',
      '{"stream":"s","type":"RECORD","record":{"a":1}}',
      '{"type":"RECORD","stream":"s\\"x","record":{"a":1}}',
      '{"type":"RECORD","stream":"s","record":{"a":1}} ',
    ]) expect(matchFlatRecord(line), line).toBeUndefined();
  });

  it('is sound: whatever it accepts, JSON.parse accepts with the same meaning (mutated lines)', () => {
    fc.assert(
      fc.property(stream, flatRecord, fc.boolean(), fc.array(fc.tuple(fc.nat(), fc.nat(2), mutationChar), { minLength: 1, maxLength: 4 }), (s, record, python, edits) => {
        let line = python
          ? `{"type": "RECORD", "stream": ${JSON.stringify(s)}, "record": ${pythonStyle(record)}}`
          : `{"type":"RECORD","stream":${JSON.stringify(s)},"record":${JSON.stringify(record)}}`;
        for (const [at, kind, ch] of edits) {
          const i = at % (line.length + 1);
          line = kind === 0 ? line.slice(0, i) + ch + line.slice(i) : kind === 1 ? line.slice(0, i) + line.slice(i + 1) : line.slice(0, i) + ch + line.slice(i + 1);
        }
        assertSound(line);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(500); // the property is not vacuous
  });

  it('is sound on number and escape edge cases', () => {
    const values = ['01', '-', '1.', '.5', '1e', '1e+', '-0', '1E-7', '+1', '0x1', 'NaN', 'Infinity', 'tru', 'nul', '"\\u12"', '"\\u00e9"', '"\\x41"', '"\\/"', '"\t"', '"\u2028"', '1 2', '"a""b"'];
    for (const v of values) assertSound(`{"type":"RECORD","stream":"s","record":{"k":${v}}}`);
    for (const v of ['{"a":1,}', '{,}', '{"a"1}', '{"a":1 "b":2}', '{"a":1}}', '{"a":1', '{ }', '{"a" : 1}']) {
      assertSound(`{"type":"RECORD","stream":"s","record":${v}}`);
      assertSound(`{"type": "RECORD", "stream": "s", "record": ${v}}`);
    }
  });
});
