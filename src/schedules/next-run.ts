// Pure scheduling math: when does a schedule run next, and what to do about runs
// missed while the service was down. Every function takes the reference time as an
// argument; nothing here reads the clock, starts timers or touches storage.
import type { Cron } from 'croner';
import { cronFor, parseScheduleExpression } from './expression.ts';
import type { ParsedCron, ParsedExpression } from './expression.ts';
import { jitterOffsetMs } from './jitter.ts';

export const DEFAULT_TIMEZONE = 'UTC';

export class InvalidTimezoneError extends Error {
  override name = 'InvalidTimezoneError';
  readonly timezone: string;
  constructor(timezone: string) {
    super(`Invalid timezone: ${JSON.stringify(timezone)}: not an IANA time zone name (e.g. "UTC", "America/New_York")`);
    this.timezone = timezone;
  }
}

export interface ScheduleTiming {
  /** Source text, or the result of parseScheduleExpression (saves re-parsing). */
  expression: string | ParsedExpression;
  /** IANA zone the cron fields are read in; null/undefined means UTC. Ignored by rate(). */
  timezone?: string | null;
  /** Jitter window in minutes; null/undefined/0 means no jitter. */
  jitterMinutes?: number | null;
  tenant: string;
  /** Optional extra jitter hash input (see jitterOffsetMs). */
  scheduleKey?: string;
}

export interface NextRunInput extends ScheduleTiming {
  after: Date;
}

export interface MisfireInput extends ScheduleTiming {
  /** The stored next_run_at: the (jittered) run time that came due. */
  lastDue: Date;
  now: Date;
}

export interface MisfireDecision {
  /** The run to start now (equal to lastDue), or null when lastDue is still in the future. */
  fireDueAt: Date | null;
  /** True when more due times than lastDue fell in (lastDue, now] and were folded into this one run. */
  coalesced: boolean;
  /** What to store as next_run_at: the first run strictly after now (lastDue if not yet due). */
  nextRunAt: Date | null;
}

const CACHE_LIMIT = 1000;
const timezoneCache = new Map<string, string>();
const cronCache = new Map<string, Cron>();

/** Validates an IANA zone with Intl and returns its canonical spelling ("utc" → "UTC"). */
export function normalizeTimezone(timezone: string | null | undefined): string {
  if (timezone === null || timezone === undefined) return DEFAULT_TIMEZONE;
  const cached = timezoneCache.get(timezone);
  if (cached !== undefined) return cached;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidTimezoneError(timezone);
  }
  remember(timezoneCache, timezone, canonical);
  return canonical;
}

/**
 * The first run time strictly after `after`: the first unjittered due time T with
 * T + offset > after, returned as T + offset. A T before `after` whose offset pushes
 * it past `after` counts. Null when the expression never fires again (e.g. a past year).
 */
export function nextRunAt(input: NextRunInput): Date | null {
  const afterMs = timeOf(input.after, 'after');
  const parsed = toParsed(input.expression);
  const timezone = normalizeTimezone(input.timezone);
  const offset = jitterOffsetMs(input.tenant, input.jitterMinutes, input.scheduleKey);
  const due = nextDueAfter(parsed, timezone, afterMs - offset);
  return due === null ? null : new Date(due + offset);
}

/**
 * The first unjittered due time strictly after `afterMs`. Rates are anchored to the
 * Unix epoch (multiples of everyMs in UTC), so they survive restarts unchanged.
 */
export function nextDueAfter(parsed: ParsedExpression, timezone: string, afterMs: number): number | null {
  if (parsed.kind === 'rate') return (Math.floor(afterMs / parsed.everyMs) + 1) * parsed.everyMs;
  return cachedCron(parsed, timezone).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/**
 * Misfire rule: a schedule whose stored next_run_at (`lastDue`) has passed runs once
 * now, however many due times were missed, and then resumes its cadence from `now`.
 * Also the plain on-time case: the scheduler can call this for every due schedule.
 */
export function misfireNext(input: MisfireInput): MisfireDecision {
  const lastDueMs = timeOf(input.lastDue, 'lastDue');
  const nowMs = timeOf(input.now, 'now');
  if (lastDueMs > nowMs) return { fireDueAt: null, coalesced: false, nextRunAt: new Date(lastDueMs) };
  const following = nextRunAt({ ...input, after: input.lastDue });
  return {
    fireDueAt: new Date(lastDueMs),
    coalesced: following !== null && following.getTime() <= nowMs,
    nextRunAt: nextRunAt({ ...input, after: input.now }),
  };
}

function toParsed(expression: string | ParsedExpression): ParsedExpression {
  return typeof expression === 'string' ? parseScheduleExpression(expression) : expression;
}

function timeOf(date: Date, name: string): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (Number.isNaN(ms)) throw new TypeError(`${name} must be a valid Date`);
  return ms;
}

// Croner objects are immutable once paused, and building one costs about as much as a
// nextRun call, so a scheduler sweeping many schedules reuses them.
function cachedCron(parsed: ParsedCron, timezone: string): Cron {
  const key = `${parsed.awsWeekdays ? 'aws' : 'std'}|${timezone}|${parsed.pattern}`;
  let cron = cronCache.get(key);
  if (cron === undefined) {
    cron = cronFor(parsed, timezone);
    remember(cronCache, key, cron);
  }
  return cron;
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}
