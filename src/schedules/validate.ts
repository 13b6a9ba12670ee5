// Checks a schedule request and turns it into stored values. Every problem is a
// BadRequestError whose message names it ("Invalid cron expression: …").
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { parseScheduleExpression, ScheduleExpressionError } from './expression.ts';
import type { ParsedExpression } from './expression.ts';
import { InvalidTimezoneError, nextRunAt, normalizeTimezone } from './next-run.ts';

export const DEFAULT_TENANT = 'default';
export const MIN_JITTER_MINUTES = 1;
export const MAX_JITTER_MINUTES = 720;

export type ScheduleState = 'ENABLED' | 'DISABLED';
export type Overlap = 'skip' | 'queue' | 'parallel';

/** Per-schedule job overrides; stored sealed because environment_variables may hold secrets. */
export interface ScheduleOverrides {
  override_start_date?: string | null;
  override_selected_tables?: Record<string, boolean> | null;
  override_field_map?: Record<string, unknown> | null;
  environment_variables?: Record<string, string> | null;
}

export const OVERRIDE_KEYS = ['override_start_date', 'override_selected_tables', 'override_field_map', 'environment_variables'] as const;

export function parseExpression(expression: string): ParsedExpression {
  try {
    return parseScheduleExpression(expression);
  } catch (error) {
    if (error instanceof ScheduleExpressionError) throw new BadRequestError(error.message);
    throw error;
  }
}

export function parseTimezone(timezone: string | null | undefined): string {
  try {
    return normalizeTimezone(timezone);
  } catch (error) {
    if (error instanceof InvalidTimezoneError) throw new BadRequestError(error.message);
    throw error;
  }
}

/** Jitter is set on the `default` tenant only, 1-720 whole minutes; null clears it. */
export function checkJitter(tenant: string, jitter: unknown): asserts jitter is number | null | undefined {
  if (jitter === undefined || jitter === null) return;
  if (tenant !== DEFAULT_TENANT) {
    throw new BadRequestError(`schedule_jitter_minutes can only be set on the "${DEFAULT_TENANT}" tenant; tenant "${tenant}" inherits it`);
  }
  if (typeof jitter !== 'number' || !Number.isInteger(jitter) || jitter < MIN_JITTER_MINUTES || jitter > MAX_JITTER_MINUTES) {
    throw new BadRequestError(`schedule_jitter_minutes must be a whole number from ${MIN_JITTER_MINUTES} to ${MAX_JITTER_MINUTES}, or null to clear it; got ${JSON.stringify(jitter)}`);
  }
}

export function checkStartDate(value: string | null | undefined): void {
  if (value === undefined || value === null) return;
  if (Number.isNaN(Date.parse(value))) {
    throw new BadRequestError(`override_start_date must be an ISO 8601 date or date-time; got ${JSON.stringify(value)}`);
  }
}

export interface Timing {
  expression: string;
  timezone: string;
  jitter_minutes: number | null;
}

/** The first run strictly after `after` for this tenant (jitter slot included), as epoch ms. */
export function nextRunMs(timing: Timing, tenant: string, after: number): number | null {
  const next = nextRunAt({
    expression: timing.expression, timezone: timing.timezone, jitterMinutes: timing.jitter_minutes, tenant, after: new Date(after),
  });
  return next === null ? null : next.getTime();
}

export function sealOverrides(ctx: AppContext, overrides: ScheduleOverrides): string | null {
  const kept: ScheduleOverrides = {};
  for (const key of OVERRIDE_KEYS) {
    const value = overrides[key];
    if (value !== undefined && value !== null) (kept as Record<string, unknown>)[key] = value;
  }
  return Object.keys(kept).length === 0 ? null : ctx.secrets.sealJson(kept);
}

export function openOverrides(ctx: AppContext, sealed: string | null): ScheduleOverrides {
  return sealed === null ? {} : ctx.secrets.openJson<ScheduleOverrides>(sealed);
}
