// Parses the schedule expressions Tapline accepts into one normal form that
// next-run.ts can evaluate. Cron semantics come from croner; this module only
// recognises the outer form (5/6-field cron, AWS `cron(...)`, presets, `rate(...)`)
// and checks numeric field ranges first so error messages name the field precisely.
import { Cron } from 'croner';

export class ScheduleExpressionError extends Error {
  override name = 'ScheduleExpressionError';
  /** The expression as the caller gave it. */
  readonly expression: string;
  /** The reason alone, without the `Invalid … expression: "…": ` prefix. */
  readonly detail: string;
  constructor(kind: 'cron' | 'rate', expression: string, detail: string) {
    super(`Invalid ${kind} expression: ${JSON.stringify(expression)}: ${detail}`);
    this.expression = expression;
    this.detail = detail;
  }
}

export interface ParsedCron {
  kind: 'cron';
  form: 'cron5' | 'cron6' | 'aws' | 'preset';
  /** Croner 7-part pattern: second minute hour day-of-month month day-of-week year. */
  pattern: string;
  hasSeconds: boolean;
  /** The year field (`*` unless an AWS expression restricts it). */
  year: string;
  /** AWS numbering: day-of-week 1-7 = SUN-SAT (croner's alternativeWeekdays). */
  awsWeekdays: boolean;
}

export interface ParsedRate {
  kind: 'rate';
  amount: number;
  unit: 'minute' | 'hour' | 'day';
  everyMs: number;
}

export type ParsedExpression = ParsedCron | ParsedRate;

export const MAX_EXPRESSION_LENGTH = 256;
export const MAX_RATE_AMOUNT = 1_000_000;

const PRESETS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

interface FieldSpec { name: string; min: number; max: number }
const SECOND: FieldSpec = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { name: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldSpec = { name: 'month', min: 1, max: 12 };
const DAY_OF_WEEK: FieldSpec = { name: 'day-of-week', min: 0, max: 7 }; // 7 = Sunday too
const AWS_DAY_OF_WEEK: FieldSpec = { name: 'day-of-week', min: 1, max: 7 };
const AWS_YEAR: FieldSpec = { name: 'year', min: 1970, max: 2199 };

const CRON5 = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];
const CRON6 = [SECOND, ...CRON5];
const AWS = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, AWS_DAY_OF_WEEK, AWS_YEAR];
/** Field names by croner 7-part index, to rewrite croner's own messages. */
const CRONER_FIELDS = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'];
const CRONER_NAMES: Record<string, string> = { day: 'day-of-month', dayOfWeek: 'day-of-week' };

export function parseScheduleExpression(input: string): ParsedExpression {
  if (typeof input !== 'string') throw new ScheduleExpressionError('cron', String(input), 'expression must be a string');
  const source = input.trim();
  if (source === '') throw new ScheduleExpressionError('cron', input, 'expression is empty');
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ScheduleExpressionError('cron', input, `expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  if (/^rate\s*\(/i.test(source)) return parseRate(input, source);
  if (/^cron\s*\(/i.test(source)) return parseAwsCron(input, source);
  if (source.startsWith('@')) return parsePreset(input, source);
  return parseStandardCron(input, source);
}

function parseRate(input: string, source: string): ParsedRate {
  const match = /^rate\(\s*(\S+)\s+(\S+?)\s*\)$/i.exec(source);
  if (!match) throw new ScheduleExpressionError('rate', input, 'expected rate(<value> <unit>), e.g. rate(5 minutes)');
  const [, amountText, unitText] = match as unknown as [string, string, string];
  const amount = /^\d+$/.test(amountText) ? Number(amountText) : NaN;
  if (!(amount >= 1 && amount <= MAX_RATE_AMOUNT)) {
    throw new ScheduleExpressionError('rate', input, `value ${JSON.stringify(amountText)} must be a whole number from 1 to ${MAX_RATE_AMOUNT}`);
  }
  // Singular and plural are both accepted whatever the value (AWS insists on agreement; we do not).
  const unit = unitText.toLowerCase().replace(/s$/, '');
  if (unit !== 'minute' && unit !== 'hour' && unit !== 'day') {
    throw new ScheduleExpressionError('rate', input, `unit ${JSON.stringify(unitText)} must be one of minute, minutes, hour, hours, day, days`);
  }
  return { kind: 'rate', amount, unit, everyMs: amount * UNIT_MS[unit] };
}

function parseAwsCron(input: string, source: string): ParsedCron {
  const match = /^cron\((.*)\)$/is.exec(source);
  if (!match) throw new ScheduleExpressionError('cron', input, 'expected cron(minute hour day-of-month month day-of-week year)');
  const fields = splitFields(match[1] as string);
  if (fields.length !== 6) {
    throw new ScheduleExpressionError('cron', input,
      `expected 6 fields inside cron(...) (minute hour day-of-month month day-of-week year), got ${fields.length}`);
  }
  checkRanges(input, fields, AWS);
  const [, , dom, , dow] = fields as [string, string, string, string, string, string];
  if (!isWildcard(dom) && !isWildcard(dow)) {
    throw new ScheduleExpressionError('cron', input, 'day-of-month and day-of-week cannot both be set; use ? in one of them');
  }
  return compile(input, { form: 'aws', pattern: `0 ${fields.join(' ')}`, hasSeconds: false, year: fields[5] as string, awsWeekdays: true });
}

function parsePreset(input: string, source: string): ParsedCron {
  const fields = PRESETS[source.toLowerCase()];
  if (fields === undefined) {
    throw new ScheduleExpressionError('cron', input, `unknown preset ${JSON.stringify(source)}; expected one of ${Object.keys(PRESETS).join(', ')}`);
  }
  return compile(input, { form: 'preset', pattern: `0 ${fields} *`, hasSeconds: false, year: '*', awsWeekdays: false });
}

function parseStandardCron(input: string, source: string): ParsedCron {
  const fields = splitFields(source);
  if (fields.length === 5) {
    checkRanges(input, fields, CRON5);
    return compile(input, { form: 'cron5', pattern: `0 ${fields.join(' ')} *`, hasSeconds: false, year: '*', awsWeekdays: false });
  }
  if (fields.length === 6) {
    checkRanges(input, fields, CRON6);
    return compile(input, { form: 'cron6', pattern: `${fields.join(' ')} *`, hasSeconds: true, year: '*', awsWeekdays: false });
  }
  throw new ScheduleExpressionError('cron', input,
    `expected 5 fields (minute hour day-of-month month day-of-week) or 6 fields (second minute hour day-of-month month day-of-week), got ${fields.length}`);
}

function splitFields(text: string): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

function isWildcard(field: string): boolean {
  return field === '*' || field === '?';
}

/** Range-check every plain number in each field (list items, range ends, `15W`, `5L`, `5#2`). */
function checkRanges(input: string, fields: string[], specs: FieldSpec[]): void {
  fields.forEach((field, index) => {
    const spec = specs[index] as FieldSpec;
    for (const item of field.split(',')) {
      const [range = ''] = item.split('/');
      for (const atom of range.split('-')) {
        const number = /^(\d+)(?:[LW]|#\d+)?$/i.exec(atom)?.[1];
        if (number === undefined) continue;
        const value = Number(number);
        if (value < spec.min || value > spec.max) {
          throw new ScheduleExpressionError('cron', input, `${spec.name} value ${value} out of range ${spec.min}-${spec.max}`);
        }
      }
    }
  });
}

function compile(input: string, parsed: Omit<ParsedCron, 'kind'>): ParsedCron {
  const result: ParsedCron = { kind: 'cron', ...parsed };
  let cron: Cron;
  try {
    cron = cronFor(result, 'UTC');
  } catch (error) {
    throw new ScheduleExpressionError('cron', input, describeCronerError(error));
  }
  // Croner finds impossible dates (e.g. 30 February) quickly and returns null.
  if (cron.nextRun(new Date(Date.UTC(1969, 11, 31))) === null) {
    throw new ScheduleExpressionError('cron', input, 'expression never matches any date');
  }
  return result;
}

function describeCronerError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/^CronPattern: /, '')
    .replace(/^Syntax error, /, '')
    .replace(/configuration entry (\w+)/, (_, entry: string) => `${CRONER_FIELDS[Number(entry)] ?? CRONER_NAMES[entry] ?? entry} field`)
    .replace(/\.$/, '')
    .replace(/^./, (first) => first.toLowerCase());
}

/**
 * A paused croner job for a parsed cron expression, with Tapline's fixed options.
 * `fixedTimeRule: 'no-wildcard'` makes lists like `30 1,13 * * *` fixed-time jobs too,
 * so they run once (not twice) when a DST fall-back repeats 01:30.
 */
export function cronFor(parsed: ParsedCron, timezone: string): Cron {
  return new Cron(parsed.pattern, {
    paused: true,
    // UTC has no DST, so a fixed zero offset is the same zone; croner evaluates it
    // without Intl time-zone conversions, about 15x faster (the scheduler's hot path).
    ...(timezone === 'UTC' ? { utcOffset: 0 } : { timezone }),
    mode: '7-part',
    alternativeWeekdays: parsed.awsWeekdays,
    sloppyRanges: true,
    fixedTimeRule: 'no-wildcard',
  });
}
