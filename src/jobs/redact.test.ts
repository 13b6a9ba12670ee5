import { describe, expect, it } from 'vitest';
import { makeRedactor, REDACTED, secretStrings } from './redact.ts';

describe('job log redaction', () => {
  it('redacts every string value of 4+ characters, nested, also JSON-escaped', () => {
    const secrets = secretStrings({ api_key: 'sk_live_123', nested: { password: 'pa"ss', list: ['tokenA'] }, n: 5, short: 'abc' });
    const redact = makeRedactor(secrets);
    expect(redact('key=sk_live_123 pw="pa\\"ss" tok tokenA abc')).toBe(`key=${REDACTED} pw="${REDACTED}" tok ${REDACTED} abc`);
  });

  it('keeps dates, numbers and booleans readable', () => {
    const secrets = secretStrings({ start_date: '2024-01-01T00:00:00Z', day: '2024-01-01', count: '1000', flag: 'true' });
    expect(secrets).toEqual([]);
  });

  it('replaces a longer secret whole before a shorter one inside it', () => {
    const redact = makeRedactor(secretStrings({ a: 'abcd', b: 'abcdefgh' }));
    expect(redact('abcdefgh abcd')).toBe(`${REDACTED} ${REDACTED}`);
  });
});
