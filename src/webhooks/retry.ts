// Retry policy for webhook deliveries. Pure: the caller supplies the attempt
// number, the time already spent, the receiver's Retry-After and `random`.
import type { SendResult } from './send.ts';

export type AttemptOutcome = 'delivered' | 'retry' | 'fail';
export type Jitter = 'equal' | 'full' | 'none';

export interface RetryPolicy {
  /** Nominal delay before the first retry; doubles per attempt up to maxDelayMs. */
  readonly baseDelayMs: number;
  /** Cap on the exponential delay and on an honoured Retry-After. */
  readonly maxDelayMs: number;
  /** No attempt is scheduled later than this after the first one. */
  readonly windowMs: number;
  /** equal: [d/2, d]; full: [0, d]; none: d. */
  readonly jitter: Jitter;
  /** Explicit nominal delays (entry i precedes retry i+1) instead of doubling; exhausted = give up. */
  readonly scheduleMs?: readonly number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 30_000,
  maxDelayMs: 2 * 60 * 60 * 1000,
  windowMs: 24 * 60 * 60 * 1000,
  jitter: 'equal',
};

const RETRYABLE_STATUSES = new Set([408, 409, 429]);
const PERMANENT_ERRORS = new Set<string>(['blocked', 'invalid_url', 'invalid_request']);

/** Decides what an attempt means for the delivery. */
export function classifyAttempt(result: Pick<SendResult, 'ok' | 'status' | 'error'>): AttemptOutcome {
  const { status, error } = result;
  if (status === undefined) {
    // No response: timeouts, refused/reset connections, DNS failures and aborts
    // are transient; a blocked address or an unusable URL/request will not get better.
    return error !== undefined && PERMANENT_ERRORS.has(error.kind) ? 'fail' : 'retry';
  }
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || RETRYABLE_STATUSES.has(status)) return 'retry';
  return 'fail'; // 1xx/3xx (redirects are not followed) and other 4xx
}

export interface NextDelayOptions extends Partial<RetryPolicy> {
  /** Uniform in [0, 1); pass Math.random in production. */
  readonly random: () => number;
  /** Receiver's Retry-After, already converted to a delay (parseRetryAfter). */
  readonly retryAfterMs?: number;
  /** Time since the first attempt of this delivery; defaults to 0. */
  readonly elapsedMs?: number;
}

function nominalDelayMs(attempt: number, policy: RetryPolicy): number | undefined {
  if (policy.scheduleMs) return policy.scheduleMs[attempt - 1];
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 52));
}

function applyJitter(delay: number, jitter: Jitter, random: number): number {
  if (jitter === 'none') return delay;
  if (jitter === 'full') return delay * random;
  return delay / 2 + (delay / 2) * random;
}

/**
 * Delay in ms before the next attempt, given `attempt` attempts already made
 * (>= 1), or null when the delivery should give up: the schedule is exhausted
 * or the next attempt would fall outside the retry window.
 */
export function nextAttemptDelayMs(attempt: number, options: NextDelayOptions): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error('attempt must be an integer >= 1');
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(options) };
  const nominal = nominalDelayMs(attempt, policy);
  if (nominal === undefined) return null;
  const r = Math.min(Math.max(options.random(), 0), 1);
  let delay = Math.round(applyJitter(nominal, policy.jitter, r));
  if (options.retryAfterMs !== undefined && options.retryAfterMs > 0) {
    delay = Math.max(delay, Math.min(Math.round(options.retryAfterMs), policy.maxDelayMs));
  }
  if ((options.elapsedMs ?? 0) + delay > policy.windowMs) return null;
  return delay;
}

function definedOnly(options: Partial<RetryPolicy>): Partial<RetryPolicy> {
  const out: Record<string, unknown> = {};
  for (const key of ['baseDelayMs', 'maxDelayMs', 'windowMs', 'jitter', 'scheduleMs'] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as Partial<RetryPolicy>;
}

/**
 * Retry-After header as a delay in ms from `nowMs`: delta-seconds or an HTTP
 * date (a past date gives 0). Undefined when absent or unparseable.
 */
export function parseRetryAfter(header: string | readonly string[] | null | undefined, nowMs: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return undefined; // e.g. "-5" or "1.5": not a date either
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
