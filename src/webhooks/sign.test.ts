import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isValidWebhookSecret, signDelivery, verifyHubSignature } from './sign.ts';

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ job_id: '16FzN', status: 'JOB_COMPLETED', tenant: 'default', note: 'héllo ✓' });
const whsec = `whsec_${randomBytes(24).toString('base64')}`;
const plain = 'my upstream secret';

/** A receiver exactly as the standardwebhooks README shows, for either secret kind. */
function receiverFor(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

function asReceived(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
}

describe('signDelivery with the standardwebhooks package as receiver', () => {
  it.each([['whsec_ secret', whsec], ['plain secret', plain], ['non-ASCII plain secret', 'sécret-ü✓']])('verifies a %s', (_label, secret) => {
    const headers = signDelivery({ id: 'msg_1', timestampSeconds: now(), body, secrets: [secret] });
    expect(receiverFor(secret).verify(body, asReceived({ ...headers }))).toEqual(JSON.parse(body));
  });

  it('verifies a Buffer body identical to the string body', () => {
    const a = signDelivery({ id: 'msg_b', timestampSeconds: 1_700_000_000, body, secrets: [whsec] });
    const b = signDelivery({ id: 'msg_b', timestampSeconds: 1_700_000_000, body: Buffer.from(body), secrets: [whsec] });
    expect(b).toEqual(a);
  });

  it('rejects a tampered body, a wrong secret and a stale timestamp', () => {
    const headers = asReceived({ ...signDelivery({ id: 'msg_2', timestampSeconds: now(), body, secrets: [whsec] }) });
    expect(() => receiverFor(whsec).verify(body.replace('COMPLETED', 'FAILED'), headers)).toThrow(WebhookVerificationError);
    expect(() => receiverFor(plain).verify(body, headers)).toThrow(WebhookVerificationError);
    const stale = asReceived({ ...signDelivery({ id: 'msg_2', timestampSeconds: now() - 600, body, secrets: [whsec] }) });
    expect(() => receiverFor(whsec).verify(body, stale)).toThrow(/too old/);
  });

  it('sends one v1 signature per secret during a rotation overlap; old and new receivers both verify', () => {
    const oldSecret = plain;
    const newSecret = whsec;
    const headers = signDelivery({ id: 'msg_3', timestampSeconds: now(), body, secrets: [newSecret, oldSecret] });
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
    expect(() => receiverFor(oldSecret).verify(body, asReceived({ ...headers }))).not.toThrow();
    expect(() => receiverFor(newSecret).verify(body, asReceived({ ...headers }))).not.toThrow();
    // X-Hub-Signature carries only the current (first) secret.
    expect(verifyHubSignature(body, newSecret, headers['X-Hub-Signature'])).toBe(true);
    expect(verifyHubSignature(body, oldSecret, headers['X-Hub-Signature'])).toBe(false);
  });

  it('sends only id and timestamp when the webhook has no secret', () => {
    expect(signDelivery({ id: 'msg_4', timestampSeconds: 5, body, secrets: [] })).toEqual({ 'webhook-id': 'msg_4', 'webhook-timestamp': '5' });
  });

  it('refuses malformed ids, timestamps and whsec_ secrets', () => {
    expect(() => signDelivery({ id: 'has space', timestampSeconds: 1, body, secrets: [plain] })).toThrow();
    expect(() => signDelivery({ id: 'ok', timestampSeconds: 1.5, body, secrets: [plain] })).toThrow();
    expect(() => signDelivery({ id: 'ok', timestampSeconds: 1, body, secrets: ['whsec_not base64!'] })).toThrow(/invalid webhook secret/);
  });
});

describe('X-Hub-Signature (upstream-compatible)', () => {
  it('is the bare hex HMAC-SHA1 of the raw body keyed with the secret string, as upstream receivers compute it', () => {
    for (const secret of [plain, whsec]) {
      const headers = signDelivery({ id: 'msg_5', timestampSeconds: now(), body, secrets: [secret] });
      const receiverComputed = createHmac('sha1', secret).update(body).digest('hex');
      expect(headers['X-Hub-Signature']).toBe(receiverComputed);
      expect(headers['X-Hub-Signature']).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('matches a known vector', () => {
    // HMAC-SHA1(key="key", "The quick brown fox jumps over the lazy dog")
    const headers = signDelivery({ id: 'v', timestampSeconds: 0, body: 'The quick brown fox jumps over the lazy dog', secrets: ['key'] });
    expect(headers['X-Hub-Signature']).toBe('de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9');
  });

  it('verifyHubSignature accepts bare and sha1= forms and rejects others', () => {
    const sig = createHmac('sha1', plain).update(body).digest('hex');
    expect(verifyHubSignature(body, plain, sig)).toBe(true);
    expect(verifyHubSignature(body, plain, `sha1=${sig}`)).toBe(true);
    expect(verifyHubSignature(body, plain, sig.toUpperCase())).toBe(true);
    expect(verifyHubSignature(body + ' ', plain, sig)).toBe(false);
    expect(verifyHubSignature(body, plain, sig.slice(1))).toBe(false);
    expect(verifyHubSignature(body, plain, undefined)).toBe(false);
  });
});

describe('isValidWebhookSecret', () => {
  it.each([
    ['plain', true], ['', false], [whsec, true], ['whsec_', false], ['whsec_abc', false], ['whsec_YWJj', true], ['whsec_YWI=', true],
  ])('%s -> %s', (secret, valid) => expect(isValidWebhookSecret(secret)).toBe(valid));
});
