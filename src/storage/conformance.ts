/**
 * Behaviour every JobStorage backend must share. A backend's test file calls
 * `describeStorageConformance('s3', () => createS3Storage(...))`. Each test
 * works under its own random prefix, so one store can serve the whole suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { JobStorage } from './types.ts';

export interface ConformanceOptions {
  /** Runs after the suite, e.g. to stop a test server. */
  cleanup?: () => Promise<void> | void;
}

const INVALID_KEYS = ['', '/abs/key', '../escape', 'a/../b', 'a//b', 'a/./b', 'a/', 'a\\b', 'nul\0byte'];

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'tapline-storage-'));
}

export function describeStorageConformance(
  name: string,
  makeStorage: () => Promise<JobStorage> | JobStorage,
  options: ConformanceOptions = {},
): void {
  describe(`JobStorage conformance: ${name}`, () => {
    let storage: JobStorage;
    const dirs: string[] = [];
    const base = () => `conformance-${randomBytes(5).toString('hex')}`;
    const local = async () => {
      const dir = await tempDir();
      dirs.push(dir);
      return dir;
    };

    beforeAll(async () => {
      storage = await makeStorage();
    });
    afterAll(async () => {
      for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
      await options.cleanup?.();
    });

    it('has a kind', () => {
      expect(typeof storage.kind).toBe('string');
      expect(storage.kind.length).toBeGreaterThan(0);
    });

    it('round-trips strings and binary buffers, and put replaces', async () => {
      const b = base();
      const binary = Buffer.from([0, 1, 2, 254, 255, 10, 13]);
      await storage.put(`${b}/text.json`, '{"a":"é"}');
      await storage.put(`${b}/bin/data.bin`, binary);
      expect((await storage.get(`${b}/text.json`))?.toString('utf8')).toBe('{"a":"é"}');
      expect((await storage.get(`${b}/bin/data.bin`))?.equals(binary)).toBe(true);
      await storage.put(`${b}/text.json`, 'replaced');
      expect((await storage.get(`${b}/text.json`))?.toString()).toBe('replaced');
      await storage.put(`${b}/empty`, '');
      expect((await storage.get(`${b}/empty`))?.length).toBe(0);
    });

    it('returns null for missing keys, and for a folder read as a key', async () => {
      const b = base();
      expect(await storage.get(`${b}/missing.json`)).toBeNull();
      expect(await storage.getStream(`${b}/missing.json`)).toBeNull();
      await storage.put(`${b}/folder/inner.txt`, 'x');
      expect(await storage.get(`${b}/folder`)).toBeNull();
      expect(await storage.getStream(`${b}/folder`)).toBeNull();
    });

    it('streams a large object', async () => {
      const b = base();
      const big = Buffer.alloc(3 * 1024 * 1024 + 17, 'abcdefghij');
      await storage.put(`${b}/big.jsonl`, big);
      const stream = await storage.getStream(`${b}/big.jsonl`);
      expect(stream).not.toBeNull();
      expect((await readAll(stream!)).equals(big)).toBe(true);
    });

    it('lists keys recursively and sorted, by folder rather than by string prefix', async () => {
      const b = base();
      for (const key of ['a/z.txt', 'a/b/c.txt', 'a/b/a.txt', 'ab/x.txt', 'a b/é=1.jsonl']) {
        await storage.put(`${b}/${key}`, key);
      }
      expect(await storage.list(`${b}/a`)).toEqual([`${b}/a/b/a.txt`, `${b}/a/b/c.txt`, `${b}/a/z.txt`]);
      expect(await storage.list(`${b}/a/`)).toEqual(await storage.list(`${b}/a`));
      expect(await storage.list(`${b}/a b`)).toEqual([`${b}/a b/é=1.jsonl`]);
      expect(await storage.list(b)).toHaveLength(5);
      expect(await storage.list(`${b}/nothing/here`)).toEqual([]);
      expect(await storage.list(`${b}/a/z.txt`)).toEqual([]);
    });

    it('uploads a file and a whole folder, and downloads a folder', async () => {
      const b = base();
      const src = await local();
      await fs.mkdir(path.join(src, 'nested', 'deeper'), { recursive: true });
      await fs.writeFile(path.join(src, 'one.jsonl'), '{"id":1}\n');
      await fs.writeFile(path.join(src, 'nested', 'deeper', 'two.jsonl'), '{"id":2}\n');
      await storage.putFile(`${b}/single/file.jsonl`, path.join(src, 'one.jsonl'));
      expect((await storage.get(`${b}/single/file.jsonl`))?.toString()).toBe('{"id":1}\n');

      expect(await storage.putDir(`${b}/out`, src)).toBe(2);
      expect(await storage.list(`${b}/out`)).toEqual([`${b}/out/nested/deeper/two.jsonl`, `${b}/out/one.jsonl`]);

      const dest = await local();
      expect(await storage.getDir(`${b}/out`, dest)).toBe(2);
      expect(await fs.readFile(path.join(dest, 'nested', 'deeper', 'two.jsonl'), 'utf8')).toBe('{"id":2}\n');
      expect(await storage.getDir(`${b}/none`, dest)).toBe(0);
      expect(await storage.putDir(`${b}/empty`, path.join(src, 'does-not-exist'))).toBe(0);
    });

    it('deletes single keys and whole prefixes, leaving neighbours alone', async () => {
      const b = base();
      await storage.put(`${b}/job/state.json`, '{}');
      await storage.put(`${b}/job/sync-output/a.jsonl`, 'a');
      await storage.put(`${b}/job/sync-output/b.jsonl`, 'b');
      await storage.put(`${b}/jobx/keep.json`, 'keep');
      expect(await storage.delete(`${b}/job/state.json`)).toBe(true);
      expect(await storage.delete(`${b}/job/state.json`)).toBe(false);
      expect(await storage.get(`${b}/job/state.json`)).toBeNull();
      expect(await storage.deletePrefix(`${b}/job`)).toBe(2);
      expect(await storage.list(`${b}/job`)).toEqual([]);
      expect(await storage.list(b)).toEqual([`${b}/jobx/keep.json`]);
      expect(await storage.deletePrefix(`${b}/job`)).toBe(0);
    });

    it('handles concurrent writes to one folder', async () => {
      const b = base();
      const keys = Array.from({ length: 20 }, (_, i) => `${b}/many/k${String(i).padStart(2, '0')}.json`);
      await Promise.all(keys.map((key, i) => storage.put(key, String(i))));
      expect(await storage.list(`${b}/many`)).toEqual(keys);
      expect((await storage.get(keys[7]))?.toString()).toBe('7');
    });

    it('rejects unsafe keys and prefixes', async () => {
      const src = await local();
      for (const key of INVALID_KEYS) {
        await expect(storage.put(key, 'x'), key).rejects.toThrow();
        await expect(storage.get(key), key).rejects.toThrow();
        await expect(storage.getStream(key), key).rejects.toThrow();
        await expect(storage.delete(key), key).rejects.toThrow();
        await expect(storage.putFile(key, path.join(src, 'x')), key).rejects.toThrow();
      }
      for (const prefix of ['/abs', '../up', 'a/../b', 'a//b', 'a\\b']) {
        await expect(storage.list(prefix), prefix).rejects.toThrow();
        await expect(storage.deletePrefix(prefix), prefix).rejects.toThrow();
        await expect(storage.putDir(prefix, src), prefix).rejects.toThrow();
        await expect(storage.getDir(prefix, src), prefix).rejects.toThrow();
      }
      await expect(storage.deletePrefix(''), 'empty prefix').rejects.toThrow();
    });
  });
}
