// One attempt of one claimed delivery: sign the stored body, send it, and decide
// what happens next (delivered, retry at a time, or failed).
import type { AttemptRecord, ClaimedDelivery } from './queue.ts';
import { classifyAttempt, nextAttemptDelayMs, type RetryPolicy } from './retry.ts';
import { sendWebhook, type SendResult } from './send.ts';
import { signDelivery } from './sign.ts';

const MAX_ERROR_LENGTH = 500;

export interface AttemptOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  readonly signal?: AbortSignal;
  readonly now: () => number;
}

/** The envelope id (also the `webhook-id` header) of a stored payload. */
export function envelopeId(payload: string): string {
  const id = (JSON.parse(payload) as { id?: unknown }).id;
  if (typeof id !== 'string') throw new Error('stored webhook payload has no id');
  return id;
}

/** Signs with `secrets` (current first) at send time and performs the POST; never throws. */
export async function sendDelivery(row: ClaimedDelivery, secrets: readonly string[], opts: AttemptOptions): Promise<SendResult> {
  let headers: Record<string, string>;
  try {
    headers = { ...signDelivery({ id: envelopeId(row.payload), timestampSeconds: Math.floor(opts.now() / 1000), body: row.payload, secrets }) };
  } catch (err) {
    return { ok: false, latencyMs: 0, error: { kind: 'invalid_request', message: `cannot sign delivery: ${(err as Error).message}` } };
  }
  headers['webhook-event-type'] = row.event_type;
  return sendWebhook({
    url: row.url, headers, body: row.payload, timeoutMs: opts.timeoutMs,
    allowPrivate: opts.allowPrivate, signal: opts.signal, now: opts.now,
  });
}

function describeFailure(result: SendResult): string | null {
  if (result.ok) return null;
  const text = result.error ? `${result.error.kind}: ${result.error.message}` : `HTTP ${result.status}`;
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

export interface PlanOptions {
  readonly now: number;
  readonly retry: Partial<RetryPolicy>;
  readonly random: () => number;
}

/** What to store after an attempt: retries follow the policy, counted from the first attempt. */
export function planAfterAttempt(result: SendResult, row: ClaimedDelivery, opts: PlanOptions): AttemptRecord {
  const base = { statusCode: result.status ?? null, latencyMs: result.latencyMs, error: describeFailure(result), at: opts.now };
  const outcome = classifyAttempt(result);
  if (outcome === 'delivered') return { ...base, status: 'delivered', nextAttemptAt: null };
  if (outcome === 'fail') return { ...base, status: 'failed', nextAttemptAt: null };
  const delay = nextAttemptDelayMs(row.attempts, {
    ...opts.retry, random: opts.random, retryAfterMs: result.retryAfterMs,
    elapsedMs: opts.now - (row.first_attempt_at ?? opts.now),
  });
  if (delay === null) return { ...base, status: 'failed', nextAttemptAt: null, error: `${base.error ?? 'failed'} (retries exhausted)` };
  return { ...base, status: 'pending', nextAttemptAt: opts.now + delay };
}

/** A URL as shown in logs and the delivery log: the query string (often a token) is hidden. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?[hidden]' : ''}`;
  } catch {
    return '[invalid url]';
  }
}
