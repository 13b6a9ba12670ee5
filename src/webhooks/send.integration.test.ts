import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyAttempt } from './retry.ts';
import { sendWebhook } from './send.ts';
import { signDelivery, verifyHubSignature } from './sign.ts';

interface Received { path: string; headers: http.IncomingHttpHeaders; body: string }
let received: Received[] = [];
let connections = 0;
let base = '';
let port = 0;

const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const route = req.url ?? '';
    if (route === '/ok') return res.writeHead(204).end();
    if (route === '/500') return res.writeHead(500).end('boom');
    if (route === '/429') return res.writeHead(429, { 'retry-after': '7' }).end();
    if (route === '/503-date') return res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
    if (route === '/404') return res.writeHead(404).end();
    if (route === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
    if (route === '/big') return res.writeHead(200).end(Buffer.alloc(1024 * 1024, 120));
    if (route === '/drip') { res.writeHead(200); res.write('x'); return; } // body never ends
    // '/slow': never answers
  });
});
receiver.on('connection', () => { connections += 1; });

beforeAll(async () => {
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  port = (receiver.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((done) => receiver.close(() => done()));
});
beforeEach(() => { received = []; connections = 0; });

const body = JSON.stringify({ job_id: 'j1', status: 'JOB_COMPLETED' });
const send = (path: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) =>
  sendWebhook({ url: `${base}${path}`, headers: {}, body, allowPrivate: true, timeoutMs: 2_000, ...extra });

describe('sendWebhook against a real local receiver', () => {
  it('delivers a signed POST that standardwebhooks and an HMAC-SHA1 receiver both verify', async () => {
    const secret = 'upstream-style secret';
    const headers = signDelivery({ id: 'msg_int', timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
    const result = await send('/ok', { headers: { ...headers } });
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(classifyAttempt(result)).toBe('delivered');
    const [req] = received;
    expect(req.body).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
    const asStrings = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(Buffer.from(secret), { format: 'raw' }).verify(req.body, asStrings)).toEqual(JSON.parse(body));
    expect(verifyHubSignature(req.body, secret, String(req.headers['x-hub-signature']))).toBe(true);
  });

  it('reports 500 as retryable', async () => {
    const result = await send('/500');
    expect(result).toMatchObject({ ok: false, status: 500 });
    expect(classifyAttempt(result)).toBe('retry');
  });

  it('reports 429 with its Retry-After in ms', async () => {
    const result = await send('/429');
    expect(result).toMatchObject({ ok: false, status: 429, retryAfterMs: 7_000 });
    expect(classifyAttempt(result)).toBe('retry');
  });

  it('parses an HTTP-date Retry-After', async () => {
    const result = await send('/503-date');
    expect(result.status).toBe(503);
    expect(result.retryAfterMs).toBeGreaterThan(55_000);
    expect(result.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('fails 404 at once and does not follow redirects', async () => {
    expect(classifyAttempt(await send('/404'))).toBe('fail');
    const redirect = await send('/redirect');
    expect(redirect).toMatchObject({ ok: false, status: 302 });
    expect(received.map((r) => r.path)).toEqual(['/404', '/redirect']);
  });

  it('times out a receiver that never answers', async () => {
    const started = Date.now();
    const result = await send('/slow', { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(result.status).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(classifyAttempt(result)).toBe('retry');
  });

  it('keeps the status when the body is large or never ends', async () => {
    expect(await send('/big')).toMatchObject({ ok: true, status: 200 });
    const started = Date.now();
    expect(await send('/drip', { timeoutMs: 300 })).toMatchObject({ ok: true, status: 200 });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports a refused connection as retryable', async () => {
    const closed = http.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const result = await sendWebhook({ url: `http://127.0.0.1:${deadPort}/`, headers: {}, body, allowPrivate: true });
    expect(result).toMatchObject({ ok: false, error: { kind: 'connection' } });
    expect(result.error?.message).toMatch(/ECONNREFUSED/);
    expect(classifyAttempt(result)).toBe('retry');
  });

  it('fails at once on a header value that cannot be sent', async () => {
    const result = await send('/ok', { headers: { 'x-bad': 'a\r\nInjected: 1' } });
    expect(result).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
    expect(classifyAttempt(result)).toBe('fail');
    expect(connections).toBe(0);
  });

  it('an already aborted signal makes no request', async () => {
    const result = await send('/ok', { signal: AbortSignal.abort() });
    expect(result.error?.kind).toBe('aborted');
    expect(connections).toBe(0);
  });
});

describe('SSRF guard in sendWebhook', () => {
  it('with allowPrivate false refuses 127.0.0.1 and localhost before connecting', async () => {
    for (const url of [`${base}/ok`, `http://localhost:${port}/ok`, `http://[::ffff:127.0.0.1]:${port}/ok`]) {
      const result = await sendWebhook({ url, headers: {}, body, allowPrivate: false });
      expect(result).toMatchObject({ ok: false, error: { kind: 'blocked' } });
      expect(classifyAttempt(result)).toBe('fail');
    }
    expect(connections).toBe(0);
  });

  it('re-checks at connect time, so a host that re-resolves to loopback is refused (DNS rebinding)', async () => {
    // The pre-connect check is told localhost is public; the real lookup at connect time says 127.0.0.1.
    const rebinding = async () => [{ address: '93.184.216.34', family: 4 as const }];
    const result = await sendWebhook({ url: `http://localhost:${port}/ok`, headers: {}, body, allowPrivate: false, resolve: rebinding });
    expect(result).toMatchObject({ ok: false, error: { kind: 'blocked' } });
    expect(connections).toBe(0);
  });

  it('counts a hanging pre-connect DNS check against the timeout', async () => {
    const hanging = () => new Promise<never>(() => {});
    const result = await sendWebhook({ url: 'https://hooks.example.com/', headers: {}, body, allowPrivate: false, timeoutMs: 100, resolve: hanging });
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('refuses non-http schemes even with allowPrivate', async () => {
    const result = await sendWebhook({ url: 'file:///etc/passwd', headers: {}, body, allowPrivate: true });
    expect(result).toMatchObject({ ok: false, error: { kind: 'invalid_url' } });
  });
});
