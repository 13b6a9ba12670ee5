import { describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateDir, withPrivateDir } from './private-dir.ts';

describe('private stage folder', () => {
  it('is 0700 with 0600 files and is removed afterwards, also when the stage fails', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'runner-private-'));
    try {
      let seen = '';
      await expect(withPrivateDir(async (dir) => {
        seen = dir.path;
        const file = await dir.writeJson('config.json', { password: 'p' });
        expect(statSync(dir.path).mode & 0o777).toBe(0o700);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ password: 'p' });
        throw new Error('stage failed');
      }, parent)).rejects.toThrow('stage failed');
      expect(seen.startsWith(parent)).toBe(true);
      expect(existsSync(seen)).toBe(false);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('refuses path-like names and overwriting', async () => {
    const dir = await createPrivateDir();
    try {
      await expect(dir.writeJson('../x.json', {})).rejects.toThrow(/invalid private file name/);
      await dir.writeJson('a.json', {});
      await expect(dir.writeJson('a.json', {})).rejects.toThrow(/EEXIST/);
    } finally {
      await dir.remove();
      await dir.remove(); // idempotent
    }
  });
});
