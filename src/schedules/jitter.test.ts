import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jitterOffsetMs } from './jitter.ts';

describe('jitterOffsetMs', () => {
  it('is 0 when jitter is off', () => {
    expect(jitterOffsetMs('acme', null)).toBe(0);
    expect(jitterOffsetMs('acme', undefined)).toBe(0);
    expect(jitterOffsetMs('acme', 0)).toBe(0);
  });

  // Pinned: these must never change between versions, or every tenant's run time moves.
  it.each([
    ['acme', 60, undefined, 2_007_000],
    ['acme', 720, undefined, 2_007_000],
    ['tenant-42', 15, undefined, 671_000],
    ['acme', 60, 'flow-1', 791_000],
  ])('pins %s / %i min / key %s to %i ms', (tenant, minutes, key, expected) => {
    expect(jitterOffsetMs(tenant, minutes, key)).toBe(expected);
  });

  it('rejects negative or fractional windows', () => {
    expect(() => jitterOffsetMs('acme', -1)).toThrow('jitterMinutes must be a non-negative whole number, got -1');
    expect(() => jitterOffsetMs('acme', 1.5)).toThrow(RangeError);
    expect(() => jitterOffsetMs('acme', Number.NaN)).toThrow(RangeError);
  });

  it('is deterministic, in range and a whole number of seconds', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 720 }), fc.option(fc.string(), { nil: undefined }), (tenant, minutes, key) => {
        const offset = jitterOffsetMs(tenant, minutes, key);
        expect(jitterOffsetMs(tenant, minutes, key)).toBe(offset);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThan(minutes * 60_000);
        expect(offset % 1000).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('differs per schedule key for the same tenant', () => {
    const offsets = new Set(['a', 'b', 'c', 'd', 'e'].map((key) => jitterOffsetMs('acme', 720, key)));
    expect(offsets.size).toBe(5);
  });

  it('spreads 10k tenants roughly uniformly over a 60 minute window', () => {
    const buckets = new Array<number>(60).fill(0);
    let sumMs = 0;
    for (let i = 0; i < 10_000; i++) {
      const offset = jitterOffsetMs(`tenant-${i}`, 60);
      buckets[Math.floor(offset / 60_000)]! += 1;
      sumMs += offset;
    }
    const expected = 10_000 / 60;
    const chiSquare = buckets.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // 59 degrees of freedom: 98.3 is the p = 0.001 critical value.
    expect(chiSquare).toBeLessThan(98.3);
    expect(Math.min(...buckets)).toBeGreaterThan(expected * 0.7);
    expect(Math.max(...buckets)).toBeLessThan(expected * 1.3);
    expect(sumMs / 10_000 / 60_000).toBeCloseTo(30, 0);
  });
});
