import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listStreamFiles, readSchemas, streamFileName, writeSchemas } from './stage-files.ts';

describe('stage folder layout', () => {
  it('encodes any stream name into one safe file name and back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runner-files-'));
    try {
      const names = ['contacts', 'public-users', '../etc/passwd', '.hidden', 'a/b', 'naïve 表', '__proto__', '%41'];
      for (const name of names) {
        const file = streamFileName(name);
        expect(file).not.toMatch(/^\.|\//);
        await writeFile(join(dir, file), '');
      }
      expect((await listStreamFiles(dir)).map((f) => f.stream).sort()).toEqual([...names].sort());
      await writeSchemas(dir, new Map([['__proto__', { schema: { type: 'object' } }]]));
      expect((await readSchemas(dir)).get('__proto__')).toEqual({ schema: { type: 'object' } });
      expect(() => streamFileName('')).toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
