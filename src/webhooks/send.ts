// One webhook delivery attempt over node:http(s): SSRF-checked before connecting
// and again at DNS lookup time, a hard timeout over the whole attempt, no
// redirects followed, and the response body drained (capped) and discarded.
import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from './retry.ts';
import { BLOCKED_ADDRESS_CODE, checkWebhookUrl, createSafeLookup } from './ssrf.ts';
import type { ResolveHost } from './ssrf.ts';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'Tapline-Webhooks/1';

/** Why no HTTP status was obtained. `blocked`, `invalid_url` and `invalid_request` are permanent. */
export type SendErrorKind = 'timeout' | 'connection' | 'dns' | 'blocked' | 'invalid_url' | 'invalid_request' | 'aborted';

export interface SendResult {
  /** True for a 2xx response. */
  readonly ok: boolean;
  readonly status?: number;
  /** From request start to response headers (or to the failure). */
  readonly latencyMs: number;
  /** Parsed Retry-After of the response, when it had one. */
  readonly retryAfterMs?: number;
  readonly error?: { readonly kind: SendErrorKind; readonly message: string };
}

export interface SendWebhookInput {
  readonly url: string;
  /** Signature and other headers; content-type defaults to application/json. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  readonly timeoutMs?: number;
  readonly allowPrivate: boolean;
  /** Aborts the attempt (e.g. on shutdown); the result has error kind `aborted`. */
  readonly signal?: AbortSignal;
  /** Resolver for the pre-connect URL check (tests); connect-time lookup always uses DNS. */
  readonly resolve?: ResolveHost;
  /** Injected clock (ms) for Retry-After dates; defaults to Date.now. */
  readonly now?: () => number;
}

const CONNECTION_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

function errorKind(err: NodeJS.ErrnoException): SendErrorKind {
  if (err.code === BLOCKED_ADDRESS_CODE) return 'blocked';
  if (err.code !== undefined && CONNECTION_CODES.has(err.code)) return 'dns';
  return 'connection';
}

function failure(kind: SendErrorKind, message: string, latencyMs: number): SendResult {
  return { ok: false, latencyMs, error: { kind, message } };
}

function buildHeaders(input: SendWebhookInput, body: Buffer): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  headers['content-length'] = String(body.length);
  return headers;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<undefined>((resolve) => { timer = setTimeout(resolve, ms, undefined); });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/** Performs one POST attempt; never throws. */
export async function sendWebhook(input: SendWebhookInput): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timedOut = () => failure('timeout', `no response within ${timeoutMs} ms`, elapsed());
  // The pre-connect DNS check counts against the attempt's timeout too.
  const check = await withTimeout(checkWebhookUrl(input.url, { allowPrivate: input.allowPrivate, resolve: input.resolve }), timeoutMs);
  if (check === undefined) return timedOut();
  if (!check.ok) {
    const kind = check.reason === 'blocked_address' ? 'blocked' : check.reason === 'unresolvable' ? 'dns' : 'invalid_url';
    return failure(kind, check.message, elapsed());
  }
  const body = Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body, 'utf8');
  return new Promise<SendResult>((resolve) => {
    let request: http.ClientRequest | undefined;
    let settled = false;
    let response: SendResult | undefined;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
      request?.destroy();
      resolve(result);
    };
    // A response already received stands even if draining its body times out.
    const timer = setTimeout(() => finish(response ?? timedOut()), Math.max(0, timeoutMs - elapsed()));
    const onAbort = () => finish(response ?? failure('aborted', 'delivery attempt aborted', elapsed()));
    if (input.signal?.aborted) return onAbort();
    input.signal?.addEventListener('abort', onAbort, { once: true });

    const transport = check.url.protocol === 'https:' ? https : http;
    try {
      request = transport.request(check.url, {
        method: 'POST',
        headers: buildHeaders(input, body),
        agent: false, // fresh connection each attempt, so the safe lookup always runs
        lookup: createSafeLookup({ allowPrivate: input.allowPrivate }),
      });
    } catch (err) {
      return finish(failure('invalid_request', (err as Error).message, elapsed())); // e.g. a header with CR/LF
    }
    request.on('error', (err: NodeJS.ErrnoException) => finish(response ?? failure(errorKind(err), err.message, elapsed())));
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const retryAfterMs = parseRetryAfter(res.headers['retry-after'], (input.now ?? Date.now)());
      response = { ok: status >= 200 && status < 300, status, latencyMs: elapsed(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > MAX_RESPONSE_BYTES) finish(response!);
      });
      res.on('end', () => finish(response!));
      res.on('error', () => finish(response!));
      res.on('close', () => finish(response!));
    });
    request.end(body);
  });
}
