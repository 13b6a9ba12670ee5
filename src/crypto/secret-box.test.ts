import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSecretBox, generateMasterKey, parseMasterKey } from './secret-box.ts';

const keyA = parseMasterKey(generateMasterKey());
const keyB = parseMasterKey(generateMasterKey());

describe('secret box', () => {
  it('round-trips any string and never contains the plaintext', () => {
    const box = createSecretBox(keyA);
    fc.assert(fc.property(fc.string({ minLength: 4 }), (plain) => {
      const sealed = box.seal(plain);
      expect(box.open(sealed)).toBe(plain);
      expect(sealed.includes(plain)).toBe(false);
    }));
  });

  it('uses a fresh IV each time', () => {
    const box = createSecretBox(keyA);
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('rejects tampering', () => {
    const box = createSecretBox(keyA);
    const parts = box.seal('hunter2').split('.');
    parts[4] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('reads ciphertexts of a previous key after rotation and flags them stale', () => {
    const old = createSecretBox(keyA);
    const sealed = old.seal('s3cret');
    const rotated = createSecretBox(keyB, [keyA]);
    expect(rotated.open(sealed)).toBe('s3cret');
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.seal('x'))).toBe(false);
    expect(() => createSecretBox(keyB).open(sealed)).toThrow(/no master key/);
  });

  it('accepts hex and base64 master keys of 32 bytes only', () => {
    expect(parseMasterKey(keyA.toString('base64')).equals(keyA)).toBe(true);
    expect(() => parseMasterKey('abcd')).toThrow(/32 bytes/);
  });
});
