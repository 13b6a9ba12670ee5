import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAttempt, DEFAULT_RETRY_POLICY, nextAttemptDelayMs, parseRetryAfter } from './retry.ts';
import type { SendErrorKind } from './send.ts';

const HOUR = 3_600_000;
const fixed = (r: number) => () => r;

describe('classifyAttempt', () => {
  it.each([
    [200, 'delivered'], [201, 'delivered'], [204, 'delivered'], [299, 'delivered'],
    [408, 'retry'], [409, 'retry'], [429, 'retry'], [500, 'retry'], [502, 'retry'], [503, 'retry'], [599, 'retry'],
    [400, 'fail'], [401, 'fail'], [403, 'fail'], [404, 'fail'], [410, 'fail'], [413, 'fail'], [422, 'fail'],
    [301, 'fail'], [302, 'fail'], [307, 'fail'], [101, 'fail'],
  ] as const)('HTTP %i -> %s', (status, outcome) => {
    expect(classifyAttempt({ ok: status >= 200 && status < 300, status })).toBe(outcome);
  });

  it.each([
    ['timeout', 'retry'], ['connection', 'retry'], ['dns', 'retry'], ['aborted', 'retry'], ['blocked', 'fail'], ['invalid_url', 'fail'], ['invalid_request', 'fail'],
  ] as Array<[SendErrorKind, string]>)('error %s -> %s', (kind, outcome) => {
    expect(classifyAttempt({ ok: false, error: { kind, message: 'x' } })).toBe(outcome);
  });
});

describe('nextAttemptDelayMs', () => {
  it('doubles from the base delay up to the cap (no jitter)', () => {
    const delays = [1, 2, 3, 4, 9, 10, 12].map((a) => nextAttemptDelayMs(a, { random: fixed(0), jitter: 'none' }));
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 2 * HOUR, 2 * HOUR, 2 * HOUR]);
  });

  it('applies equal and full jitter within their ranges', () => {
    expect(nextAttemptDelayMs(3, { random: fixed(0) })).toBe(60_000);
    expect(nextAttemptDelayMs(3, { random: fixed(0.999999) })).toBe(120_000);
    expect(nextAttemptDelayMs(3, { random: fixed(0.5), jitter: 'full' })).toBe(60_000);
  });

  it('honours Retry-After when longer than the backoff, capped at maxDelayMs', () => {
    expect(nextAttemptDelayMs(1, { random: fixed(0), retryAfterMs: 90_000 })).toBe(90_000);
    expect(nextAttemptDelayMs(1, { random: fixed(0), retryAfterMs: 1_000 })).toBe(15_000);
    expect(nextAttemptDelayMs(1, { random: fixed(0), retryAfterMs: 48 * HOUR })).toBe(2 * HOUR);
  });

  it('gives up when the next attempt would fall outside the window', () => {
    expect(nextAttemptDelayMs(15, { random: fixed(1), elapsedMs: 23 * HOUR })).toBeNull();
    expect(nextAttemptDelayMs(15, { random: fixed(0), elapsedMs: 23 * HOUR })).toBe(HOUR);
    expect(nextAttemptDelayMs(2, { random: fixed(0), elapsedMs: 0, windowMs: 10_000 })).toBeNull();
  });

  it('follows an explicit schedule and gives up when it is exhausted', () => {
    const scheduleMs = [5_000, 300_000, 1_800_000];
    const delays = [1, 2, 3, 4].map((a) => nextAttemptDelayMs(a, { random: fixed(0), jitter: 'none', scheduleMs }));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, null]);
  });

  it('rejects a non-positive attempt number', () => {
    expect(() => nextAttemptDelayMs(0, { random: Math.random })).toThrow();
  });

  const randoms = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

  it('property: with equal jitter delays never shrink as attempts grow (below the cap)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 30 }), randoms, randoms, (attempt, r1, r2) => {
      const a = nextAttemptDelayMs(attempt, { random: fixed(r1) })!;
      const b = nextAttemptDelayMs(attempt + 1, { random: fixed(r2) })!;
      return b >= a || a > DEFAULT_RETRY_POLICY.maxDelayMs / 2;
    }));
  });

  it('property: delays are bounded by [0, max(cap, Retry-After cap)] and at least the honoured Retry-After', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 60 }), randoms, fc.constantFrom<'equal' | 'full' | 'none'>('equal', 'full', 'none'),
      fc.option(fc.integer({ min: 0, max: 10 * HOUR }), { nil: undefined }),
      (attempt, r, jitter, retryAfterMs) => {
        const delay = nextAttemptDelayMs(attempt, { random: fixed(r), jitter, retryAfterMs })!;
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxDelayMs);
        if (retryAfterMs !== undefined) expect(delay).toBeGreaterThanOrEqual(Math.min(retryAfterMs, DEFAULT_RETRY_POLICY.maxDelayMs));
      }));
  });

  it('property: a whole delivery never schedules an attempt past the window, and keeps retrying until near it', () => {
    fc.assert(fc.property(
      fc.array(randoms, { minLength: 200, maxLength: 200 }), fc.integer({ min: HOUR, max: 48 * HOUR }),
      (rs, windowMs) => {
        let elapsedMs = 0;
        let attempt = 1;
        for (;;) {
          const delay = nextAttemptDelayMs(attempt, { random: fixed(rs[attempt % rs.length]), elapsedMs, windowMs });
          if (delay === null) break;
          elapsedMs += delay;
          attempt += 1;
        }
        expect(elapsedMs).toBeLessThanOrEqual(windowMs);
        // Gave up only because the next (at most maxDelayMs) wait would overshoot.
        expect(elapsedMs).toBeGreaterThan(windowMs - DEFAULT_RETRY_POLICY.maxDelayMs);
      }));
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['120', 120_000], ['0', 0], [' 7 ', 7_000],
    ['Wed, 01 Jan 2025 00:01:30 GMT', 90_000], ['Tue, 31 Dec 2024 23:00:00 GMT', 0],
    [undefined, undefined], ['', undefined], ['soon', undefined], ['-5', undefined], ['1.5', undefined],
  ])('%j -> %j', (header, expected) => expect(parseRetryAfter(header, now)).toBe(expected));

  it('takes the first of repeated headers', () => expect(parseRetryAfter(['3', '9'], now)).toBe(3_000));
});
