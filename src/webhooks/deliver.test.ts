import { describe, expect, it } from 'vitest';
import { displayUrl, envelopeId, planAfterAttempt } from './deliver.ts';
import { eventWanted } from './outbox.ts';
import type { ClaimedDelivery } from './queue.ts';
import { assertWebhookEventFilter, assertWebhookSecret } from './validate.ts';

const row = (attempts: number, firstAttemptAt: number | null = 1_000): ClaimedDelivery => ({
  id: 1, env_id: 'e', event_type: 'job.status_changed', ordering_key: 'job:1', url: 'http://x/', secrets_enc: null,
  payload: '{"id":"msg_1"}', attempts, first_attempt_at: firstAttemptAt, created_at: 1_000,
});
const plan = (result: Parameters<typeof planAfterAttempt>[0], r = row(1), now = 2_000) =>
  planAfterAttempt(result, r, { now, retry: { baseDelayMs: 100, jitter: 'none', windowMs: 10_000 }, random: () => 0.5 });

describe('planAfterAttempt', () => {
  it('marks 2xx delivered and stores code and latency', () => {
    expect(plan({ ok: true, status: 204, latencyMs: 7 })).toEqual({ status: 'delivered', nextAttemptAt: null, statusCode: 204, latencyMs: 7, error: null, at: 2_000 });
  });
  it('fails at once on 4xx other than 408/409/429 and on a blocked address', () => {
    expect(plan({ ok: false, status: 404, latencyMs: 1 })).toMatchObject({ status: 'failed', error: 'HTTP 404' });
    expect(plan({ ok: false, latencyMs: 1, error: { kind: 'blocked', message: 'loopback' } })).toMatchObject({ status: 'failed', error: 'blocked: loopback' });
  });
  it('retries 5xx, 429 and timeouts with backoff counted from the first attempt, honouring Retry-After', () => {
    expect(plan({ ok: false, status: 503, latencyMs: 1 })).toMatchObject({ status: 'pending', nextAttemptAt: 2_100 });
    expect(plan({ ok: false, status: 503, latencyMs: 1 }, row(3))).toMatchObject({ nextAttemptAt: 2_400 });
    expect(plan({ ok: false, status: 429, latencyMs: 1, retryAfterMs: 5_000 })).toMatchObject({ nextAttemptAt: 7_000 });
    expect(plan({ ok: false, latencyMs: 1, error: { kind: 'timeout', message: 'slow' } })).toMatchObject({ status: 'pending', error: 'timeout: slow' });
  });
  it('gives up once the next attempt would leave the retry window', () => {
    expect(plan({ ok: false, status: 500, latencyMs: 1 }, row(1, 1_000), 10_950)).toMatchObject({ status: 'failed', error: 'HTTP 500 (retries exhausted)' });
  });
});

describe('event filter, secrets, URLs', () => {
  it('filters by exact type, group and wildcard', () => {
    expect(eventWanted(null, 'job.status_changed')).toBe(true);
    expect(eventWanted([], 'job.status_changed')).toBe(false);
    expect(eventWanted(['job.*'], 'job.status_changed')).toBe(true);
    expect(eventWanted(['connection.linked'], 'connection.unlinked')).toBe(false);
    expect(eventWanted(['*'], 'tenant.deleted')).toBe(true);
  });
  it('validates filters and secrets', () => {
    expect(() => assertWebhookEventFilter(['job.status_changed', 'connection.*', '*'])).not.toThrow();
    expect(() => assertWebhookEventFilter(['job.finished'])).toThrow(/Unknown webhook event type\(s\): job.finished/);
    expect(() => assertWebhookSecret('whsec_not base64!')).toThrow(/padded base64/);
    expect(() => assertWebhookSecret('plain secret')).not.toThrow();
  });
  it('hides query strings and reads envelope ids', () => {
    expect(displayUrl('https://h.example/p/q?token=abc')).toBe('https://h.example/p/q?[hidden]');
    expect(displayUrl('http://127.0.0.1:80/x')).toBe('http://127.0.0.1/x');
    expect(displayUrl('nope')).toBe('[invalid url]');
    expect(envelopeId('{"id":"msg_abc","data":{}}')).toBe('msg_abc');
    expect(() => envelopeId('{}')).toThrow();
  });
});
