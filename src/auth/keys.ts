// API keys: 32 random bytes, a prefix that tells the key's type, stored only as a
// SHA-256 hash (the key's entropy makes a slow hash unnecessary).
import crypto from 'node:crypto';
import type { KeyType } from './scope.ts';

const TYPE_PREFIX: Record<KeyType, string> = {
  environment: 'tl_env_',
  personal: 'tl_pat_',
  public: 'tl_pub_',
  operator: 'tl_op_',
};

export interface NewKey {
  readonly key: string;
  /** Safe to show and store: identifies the key, cannot be used as one. */
  readonly prefix: string;
  readonly hash: string;
}

export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(type: KeyType): NewKey {
  const key = TYPE_PREFIX[type] + crypto.randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, TYPE_PREFIX[type].length + 6), hash: hashApiKey(key) };
}

export function keyTypeOf(key: string): KeyType | null {
  for (const [type, prefix] of Object.entries(TYPE_PREFIX)) {
    if (key.startsWith(prefix)) return type as KeyType;
  }
  return null;
}

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('base64url')}`;
}
