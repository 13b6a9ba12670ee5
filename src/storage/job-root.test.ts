import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jobRoot } from './job-root.ts';
import { assertValidKey, joinKey, normalizePrefix } from './keys.ts';

describe('jobRoot', () => {
  it('builds the documented layout in UTC', () => {
    const date = new Date('2026-11-21T22:05:09.123Z');
    expect(jobRoot('acme', 'flow1', 'job_42', date)).toBe('acme/flows/flow1/jobs/2026/11/21/22/job_42');
  });

  it('uses UTC hours and zero padding across a day boundary', () => {
    const date = new Date('2026-01-02T03:00:00+05:00'); // 2026-01-01T22:00Z
    expect(jobRoot('t', 'f', 'j', date)).toBe('t/flows/f/jobs/2026/01/01/22/j');
  });

  it('rejects unsafe or empty segments and invalid dates', () => {
    const d = new Date('2026-11-21T22:00:00Z');
    expect(() => jobRoot('a/b', 'f', 'j', d)).toThrow(/tenant/);
    expect(() => jobRoot('t', '..', 'j', d)).toThrow(/flow/);
    expect(() => jobRoot('t', 'f', '', d)).toThrow(/job/);
    expect(() => jobRoot('t', 'f', 'a\\b', d)).toThrow(/job/);
    expect(() => jobRoot('t', 'f', 'j', new Date('nope'))).toThrow(/date/);
  });

  it('always yields a valid storage key with the ids as whole segments', () => {
    const segment = fc.string({ minLength: 1 }).filter((s) => !/[/\\\0]/.test(s) && s !== '.' && s !== '..');
    const dates = fc.date({ min: new Date('2000-01-01Z'), max: new Date('2199-12-31Z'), noInvalidDate: true });
    fc.assert(
      fc.property(segment, segment, segment, dates, (tenant, flow, job, date) => {
        const root = jobRoot(tenant, flow, job, date);
        assertValidKey(root);
        const parts = root.split('/');
        expect(parts).toHaveLength(9);
        expect([parts[0], parts[2], parts[8]]).toEqual([tenant, flow, job]);
        expect(parts[4]).toBe(String(date.getUTCFullYear()));
      }),
    );
  });
});

describe('storage keys', () => {
  it('accepts ordinary relative keys', () => {
    for (const key of ['a', 'a/b.jsonl', 't/flows/f/jobs/2026/11/21/22/j/sync-output/x y=1.jsonl', '.hidden/x']) {
      expect(() => assertValidKey(key)).not.toThrow();
    }
  });

  it('rejects traversal, absolute paths and empty segments', () => {
    for (const key of ['', '/a', 'a/..', '../a', 'a//b', 'a/', './a', 'a\\b', 'a\0b']) {
      expect(() => assertValidKey(key), JSON.stringify(key)).toThrow();
    }
  });

  it('normalises prefixes and joins keys', () => {
    expect(normalizePrefix('a/b/')).toBe('a/b');
    expect(normalizePrefix('', true)).toBe('');
    expect(() => normalizePrefix('')).toThrow();
    expect(() => normalizePrefix('a//')).toThrow();
    expect(joinKey('t/flows/f', '', 'state.json')).toBe('t/flows/f/state.json');
    expect(() => joinKey('t', '../x')).toThrow();
  });
});
