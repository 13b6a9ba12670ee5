import { describe, expect, it } from 'vitest';
import { parseScheduleExpression, ScheduleExpressionError } from './expression.ts';
import { nextRunAt } from './next-run.ts';

const runsFrom = (expression: string, fromIso: string, count: number, timezone = 'UTC'): string[] => {
  const runs: string[] = [];
  let after = new Date(fromIso);
  for (let i = 0; i < count; i++) {
    const next = nextRunAt({ expression, timezone, tenant: 't', after });
    if (next === null) break;
    runs.push(next.toISOString());
    after = next;
  }
  return runs;
};

describe('parseScheduleExpression: accepted forms', () => {
  it.each([
    ['*/15 * * * *', { kind: 'cron', form: 'cron5', pattern: '0 */15 * * * * *', hasSeconds: false, year: '*', awsWeekdays: false }],
    ['  0  12 * * MON-FRI ', { kind: 'cron', form: 'cron5', pattern: '0 0 12 * * MON-FRI *', hasSeconds: false }],
    ['30 */5 * * * *', { kind: 'cron', form: 'cron6', pattern: '30 */5 * * * * *', hasSeconds: true }],
    ['cron(0 12 * * ? *)', { kind: 'cron', form: 'aws', pattern: '0 0 12 * * ? *', year: '*', awsWeekdays: true }],
    ['cron(15 10 ? * MON-FRI 2027)', { kind: 'cron', form: 'aws', year: '2027', awsWeekdays: true }],
    ['@daily', { kind: 'cron', form: 'preset', pattern: '0 0 0 * * * *' }],
    ['rate(5 minutes)', { kind: 'rate', amount: 5, unit: 'minute', everyMs: 300_000 }],
    ['rate(1 minute)', { kind: 'rate', amount: 1, unit: 'minute', everyMs: 60_000 }],
    ['rate(1 hours)', { kind: 'rate', amount: 1, unit: 'hour', everyMs: 3_600_000 }],
    ['rate(2 Days)', { kind: 'rate', amount: 2, unit: 'day', everyMs: 172_800_000 }],
    ['RATE( 3 hour )', { kind: 'rate', amount: 3, unit: 'hour', everyMs: 10_800_000 }],
  ])('%s', (input, expected) => {
    expect(parseScheduleExpression(input)).toMatchObject(expected);
  });

  it.each([
    ['@yearly', ['2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z']],
    ['@annually', ['2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z']],
    ['@monthly', ['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z']],
    ['@weekly', ['2026-03-22T00:00:00.000Z', '2026-03-29T00:00:00.000Z']], // Sundays
    ['@daily', ['2026-03-19T00:00:00.000Z', '2026-03-20T00:00:00.000Z']],
    ['@midnight', ['2026-03-19T00:00:00.000Z', '2026-03-20T00:00:00.000Z']],
    ['@hourly', ['2026-03-18T11:00:00.000Z', '2026-03-18T12:00:00.000Z']],
    ['@HOURLY', ['2026-03-18T11:00:00.000Z', '2026-03-18T12:00:00.000Z']],
  ])('preset %s fires at the usual times', (preset, expected) => {
    expect(runsFrom(preset, '2026-03-18T10:20:00Z', 2)).toEqual(expected);
  });

  it.each([
    // 2026-03-18 is a Wednesday.
    ['*/20 * * * *', ['2026-03-18T10:40:00.000Z', '2026-03-18T11:00:00.000Z', '2026-03-18T11:20:00.000Z']],
    ['0/25 * * * *', ['2026-03-18T10:25:00.000Z', '2026-03-18T10:50:00.000Z', '2026-03-18T11:00:00.000Z']],
    ['0 9 * * 1-5', ['2026-03-19T09:00:00.000Z', '2026-03-20T09:00:00.000Z', '2026-03-23T09:00:00.000Z']],
    ['0 9 * * 7', ['2026-03-22T09:00:00.000Z', '2026-03-29T09:00:00.000Z', '2026-04-05T09:00:00.000Z']],
    ['0 0 L * *', ['2026-03-31T00:00:00.000Z', '2026-04-30T00:00:00.000Z', '2026-05-31T00:00:00.000Z']],
    ['15,45 10 * * *', ['2026-03-18T10:45:00.000Z', '2026-03-19T10:15:00.000Z', '2026-03-19T10:45:00.000Z']],
    ['*/20 * * * * *', ['2026-03-18T10:20:20.000Z', '2026-03-18T10:20:40.000Z', '2026-03-18T10:21:00.000Z']],
  ])('standard cron %s', (expression, expected) => {
    expect(runsFrom(expression, '2026-03-18T10:20:00Z', 3)).toEqual(expected);
  });
});

describe('AWS cron(...) form', () => {
  it.each([
    ['cron(0 12 * * ? *)', ['2026-03-18T12:00:00.000Z', '2026-03-19T12:00:00.000Z']],
    ['cron(15 10 ? * MON-FRI *)', ['2026-03-19T10:15:00.000Z', '2026-03-20T10:15:00.000Z', '2026-03-23T10:15:00.000Z']],
    // AWS numbers days 1-7 = SUN-SAT: 2-6 is MON-FRI, 1 is Sunday, 7 is Saturday.
    ['cron(15 10 ? * 2-6 *)', ['2026-03-19T10:15:00.000Z', '2026-03-20T10:15:00.000Z', '2026-03-23T10:15:00.000Z']],
    ['cron(0 8 ? * 1 *)', ['2026-03-22T08:00:00.000Z', '2026-03-29T08:00:00.000Z']],
    ['cron(0 8 ? * 7 *)', ['2026-03-21T08:00:00.000Z', '2026-03-28T08:00:00.000Z']],
    ['cron(0 8 ? * 6#2 *)', ['2026-04-10T08:00:00.000Z', '2026-05-08T08:00:00.000Z']], // 2nd Friday
    ['cron(0 8 ? * 6L *)', ['2026-03-27T08:00:00.000Z', '2026-04-24T08:00:00.000Z']], // last Friday
    ['cron(0 8 1 * ? *)', ['2026-04-01T08:00:00.000Z', '2026-05-01T08:00:00.000Z']],
    ['cron(0/15 * * * ? *)', ['2026-03-18T10:30:00.000Z', '2026-03-18T10:45:00.000Z']],
    ['cron(0 12 * * * *)', ['2026-03-18T12:00:00.000Z', '2026-03-19T12:00:00.000Z']],
  ])('%s', (expression, expected) => {
    expect(runsFrom(expression, '2026-03-18T10:20:00Z', expected.length)).toEqual(expected);
  });

  it('filters by a specific year', () => {
    expect(runsFrom('cron(0 12 1 JAN ? 2028)', '2026-03-18T10:20:00Z', 3)).toEqual(['2028-01-01T12:00:00.000Z']);
  });

  it('filters by a year range and stops after it', () => {
    expect(runsFrom('cron(0 0 1 1 ? 2027-2029)', '2026-03-18T00:00:00Z', 5)).toEqual([
      '2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z', '2029-01-01T00:00:00.000Z',
    ]);
  });

  it('returns null once the year has passed', () => {
    expect(nextRunAt({ expression: 'cron(0 12 * * ? 2020)', tenant: 't', after: new Date('2026-01-01T00:00:00Z') })).toBeNull();
  });
});

describe('parseScheduleExpression: invalid input', () => {
  it.each([
    ['61 * * * *', 'Invalid cron expression: "61 * * * *": minute value 61 out of range 0-59'],
    ['* 24 * * *', 'Invalid cron expression: "* 24 * * *": hour value 24 out of range 0-23'],
    ['* * 32 * *', 'Invalid cron expression: "* * 32 * *": day-of-month value 32 out of range 1-31'],
    ['* * 0 * *', 'Invalid cron expression: "* * 0 * *": day-of-month value 0 out of range 1-31'],
    ['* * * 13 *', 'Invalid cron expression: "* * * 13 *": month value 13 out of range 1-12'],
    ['* * * * 8', 'Invalid cron expression: "* * * * 8": day-of-week value 8 out of range 0-7'],
    ['0 1-70 * * *', 'Invalid cron expression: "0 1-70 * * *": hour value 70 out of range 0-23'],
    ['60 * * * * *', 'Invalid cron expression: "60 * * * * *": second value 60 out of range 0-59'],
    ['a * * * *', 'Invalid cron expression: "a * * * *": minute field (a) contains illegal characters'],
    ['* * * FOO *', 'Invalid cron expression: "* * * FOO *": month field (FOO) contains illegal characters'],
    ['1,,2 * * * *', 'Invalid cron expression: "1,,2 * * * *": minute field () is empty, check for trailing spaces'],
    ['*/0 * * * *', 'Invalid cron expression: "*/0 * * * *": illegal stepping: 0'],
    ['5-1 * * * *', `Invalid cron expression: "5-1 * * * *": from value is larger than to value: '5-1'`],
    ['0 0 30 2 *', 'Invalid cron expression: "0 0 30 2 *": expression never matches any date'],
    ['* * * *', 'Invalid cron expression: "* * * *": expected 5 fields (minute hour day-of-month month day-of-week) or 6 fields (second minute hour day-of-month month day-of-week), got 4'],
    ['0 0 12 * * ? 2027', 'Invalid cron expression: "0 0 12 * * ? 2027": expected 5 fields (minute hour day-of-month month day-of-week) or 6 fields (second minute hour day-of-month month day-of-week), got 7'],
    ['', 'Invalid cron expression: "": expression is empty'],
    ['   ', 'Invalid cron expression: "   ": expression is empty'],
    ['@reboot', 'Invalid cron expression: "@reboot": unknown preset "@reboot"; expected one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly'],
    ['cron(0 12 * * ?)', 'Invalid cron expression: "cron(0 12 * * ?)": expected 6 fields inside cron(...) (minute hour day-of-month month day-of-week year), got 5'],
    ['cron(0 12 * * 0 *)', 'Invalid cron expression: "cron(0 12 * * 0 *)": day-of-week value 0 out of range 1-7'],
    ['cron(0 12 * * ? 1969)', 'Invalid cron expression: "cron(0 12 * * ? 1969)": year value 1969 out of range 1970-2199'],
    ['cron(0 12 1 * MON *)', 'Invalid cron expression: "cron(0 12 1 * MON *)": day-of-month and day-of-week cannot both be set; use ? in one of them'],
    ['cron(0 12 * * ? *', 'Invalid cron expression: "cron(0 12 * * ? *": expected cron(minute hour day-of-month month day-of-week year)'],
    ['rate(0 minutes)', 'Invalid rate expression: "rate(0 minutes)": value "0" must be a whole number from 1 to 1000000'],
    ['rate(1.5 hours)', 'Invalid rate expression: "rate(1.5 hours)": value "1.5" must be a whole number from 1 to 1000000'],
    ['rate(-5 minutes)', 'Invalid rate expression: "rate(-5 minutes)": value "-5" must be a whole number from 1 to 1000000'],
    ['rate(5 weeks)', 'Invalid rate expression: "rate(5 weeks)": unit "weeks" must be one of minute, minutes, hour, hours, day, days'],
    ['rate(5 seconds)', 'Invalid rate expression: "rate(5 seconds)": unit "seconds" must be one of minute, minutes, hour, hours, day, days'],
    ['rate(5)', 'Invalid rate expression: "rate(5)": expected rate(<value> <unit>), e.g. rate(5 minutes)'],
    ['x'.repeat(257), `Invalid cron expression: "${'x'.repeat(257)}": expression is longer than 256 characters`],
  ])('%s', (input, message) => {
    let caught: unknown;
    try {
      parseScheduleExpression(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ScheduleExpressionError);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toBe(message);
    expect((caught as ScheduleExpressionError).expression).toBe(input);
    expect(message.endsWith(`: ${(caught as ScheduleExpressionError).detail}`)).toBe(true);
  });

  it('has a recognisable name', () => {
    expect(() => parseScheduleExpression('nope')).toThrow(expect.objectContaining({ name: 'ScheduleExpressionError' }));
  });
});
