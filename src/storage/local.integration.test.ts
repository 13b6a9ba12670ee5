import { afterAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLocalStorage } from './local.ts';
import { describeStorageConformance } from './conformance.ts';

const roots: string[] = [];
async function makeRoot(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'tapline-local-storage-'));
  roots.push(root);
  return path.join(root, 'jobs');
}

afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

describeStorageConformance('local', async () => createLocalStorage(await makeRoot()));

describe('local storage specifics', () => {
  it('stores keys as plain files below the root', async () => {
    const root = await makeRoot();
    const storage = createLocalStorage(root);
    await storage.put('t1/flows/f1/jobs/2026/11/21/22/j1/state.json', '{"bookmarks":{}}');
    const file = path.join(root, 't1', 'flows', 'f1', 'jobs', '2026', '11', '21', '22', 'j1', 'state.json');
    expect(await fs.readFile(file, 'utf8')).toBe('{"bookmarks":{}}');
    expect(storage.localDir!('t1/flows/f1')).toBe(path.join(root, 't1', 'flows', 'f1'));
    expect(storage.localDir!('')).toBe(path.resolve(root));
  });

  it('lets a process write into localDir and then putDir onto itself without copying', async () => {
    const storage = createLocalStorage(await makeRoot());
    const dir = storage.localDir!('t/job/sync-output');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'contacts.jsonl'), '{"id":1}\n');
    expect(await storage.putDir('t/job/sync-output', dir)).toBe(1);
    expect(await storage.list('t/job')).toEqual(['t/job/sync-output/contacts.jsonl']);
    expect((await storage.get('t/job/sync-output/contacts.jsonl'))?.toString()).toBe('{"id":1}\n');
  });

  it('never lists in-flight temp files and never writes outside the root', async () => {
    const root = await makeRoot();
    const storage = createLocalStorage(root);
    await fs.mkdir(path.join(root, 'p'), { recursive: true });
    await fs.writeFile(path.join(root, 'p', '.tapline-tmp-abc'), 'partial');
    await storage.put('p/done.json', 'x');
    expect(await storage.list('p')).toEqual(['p/done.json']);
    await expect(storage.put('../outside.txt', 'x')).rejects.toThrow(/\.\./);
    await expect(fs.stat(path.join(root, '..', 'outside.txt'))).rejects.toThrow();
  });
});
