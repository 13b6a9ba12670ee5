// AES-256-GCM encryption of credentials at rest. Each ciphertext names the key it was
// sealed with (a fingerprint), so the master key can be rotated: old ciphertexts stay
// readable through `previous` keys until `tapline secrets rotate` re-seals them.
import crypto from 'node:crypto';

const PREFIX = 'tl1';

export interface SecretBox {
  readonly currentKeyId: string;
  seal(plaintext: string): string;
  open(sealed: string): string;
  sealJson(value: unknown): string;
  openJson<T = unknown>(sealed: string): T;
  /** True when `sealed` was made with a key other than the current one. */
  isStale(sealed: string): boolean;
}

export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('master key must be 32 bytes (64 hex characters or base64)');
  return key;
}

export function generateMasterKey(): string {
  return crypto.randomBytes(32).toString('hex');
}

function keyId(key: Buffer): string {
  return crypto.createHash('sha256').update('tapline-key-id').update(key).digest('hex').slice(0, 12);
}

export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const key of [...previous, current]) keys.set(keyId(key), key);
  const currentKeyId = keyId(current);

  function seal(plaintext: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', current, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [PREFIX, currentKeyId, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
  }

  function open(sealed: string): string {
    const [prefix, id, iv, tag, body] = sealed.split('.');
    if (prefix !== PREFIX || !id || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('not a Tapline ciphertext');
    }
    const key = keys.get(id);
    if (!key) throw new Error(`no master key with id ${id} is configured (was the key rotated away?)`);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  return {
    currentKeyId,
    seal,
    open,
    sealJson: (value) => seal(JSON.stringify(value)),
    openJson: <T>(sealed: string) => JSON.parse(open(sealed)) as T,
    isStale: (sealed) => sealed.split('.')[1] !== currentKeyId,
  };
}
