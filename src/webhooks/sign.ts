// Webhook signing: every delivery carries two signature schemes.
//
// 1. `X-Hub-Signature`: bare lowercase hex HMAC-SHA1 of the raw body, keyed
//    with the CURRENT secret string exactly as configured (its UTF-8 bytes,
//    `whsec_` prefix and all). No `sha1=` prefix: upstream (hotglue) documents
//    receivers that compute `createHmac('sha1', secret).update(body).digest('hex')`
//    and compare it byte-for-byte with the header, which a prefix would break.
// 2. Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp`
//    and `webhook-signature` = space-separated `v1,<base64 HMAC-SHA256 of
//    "id.timestamp.body">`, one per secret, so during a rotation overlap a
//    receiver holding either the old or the new secret verifies.
//
// Secret formats: `whsec_<base64>` (Standard Webhooks convention; the HMAC key
// is the decoded bytes) or any other non-empty string (what upstream users
// configure; the key is its UTF-8 bytes). Receivers using the `standardwebhooks`
// package verify the former with `new Webhook(secret)` and the latter with
// `new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' })`.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WHSEC_PREFIX = 'whsec_';

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface SignDeliveryInput {
  /** Unique message id; stays the same across retries of one delivery. */
  readonly id: string;
  /** Unix time in seconds of this attempt (receivers reject > 5 min skew). */
  readonly timestampSeconds: number;
  /** The exact bytes that will be sent as the request body. */
  readonly body: string | Buffer;
  /** Current secret first, then older secrets still inside a rotation overlap. */
  readonly secrets: readonly string[];
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature'?: string;
  'X-Hub-Signature'?: string;
}

/** True when `secret` can be used for signing (validate on input, not at send time). */
export function isValidWebhookSecret(secret: string): boolean {
  if (secret.length === 0) return false;
  if (!secret.startsWith(WHSEC_PREFIX)) return true;
  const encoded = secret.slice(WHSEC_PREFIX.length);
  return encoded.length > 0 && STRICT_BASE64.test(encoded);
}

/** HMAC key used for the Standard Webhooks signature. Throws on a malformed whsec_ secret. */
export function standardWebhooksKey(secret: string): Buffer {
  if (!isValidWebhookSecret(secret)) throw new Error('invalid webhook secret');
  if (secret.startsWith(WHSEC_PREFIX)) return Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

export function hubSignature(body: string | Buffer, secret: string): string {
  return createHmac('sha1', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

export function standardWebhooksSignature(id: string, timestampSeconds: number, body: string | Buffer, secret: string): string {
  const hmac = createHmac('sha256', standardWebhooksKey(secret));
  hmac.update(`${id}.${timestampSeconds}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

/**
 * Headers to add to one delivery attempt. With no secrets only the id and
 * timestamp headers are returned (the webhook was configured without a secret).
 */
export function signDelivery(input: SignDeliveryInput): SignatureHeaders {
  const { id, timestampSeconds, body, secrets } = input;
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new Error('timestampSeconds must be a non-negative integer');
  if (!/^[\x21-\x7e]+$/.test(id)) throw new Error('webhook id must be non-empty printable ASCII without spaces');
  const headers: SignatureHeaders = { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds) };
  if (secrets.length === 0) return headers;
  headers['webhook-signature'] = secrets.map((s) => standardWebhooksSignature(id, timestampSeconds, body, s)).join(' ');
  headers['X-Hub-Signature'] = hubSignature(body, secrets[0]);
  return headers;
}

/** Constant-time check of an `X-Hub-Signature` header; accepts bare hex or `sha1=<hex>`. */
export function verifyHubSignature(body: string | Buffer, secret: string, header: string | undefined): boolean {
  if (!header) return false;
  const given = header.trim().replace(/^sha1=/i, '').toLowerCase();
  const expected = hubSignature(body, secret);
  if (given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}
