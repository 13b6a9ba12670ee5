import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { JobStorage } from './types.ts';
import { assertValidKey, normalizePrefix } from './keys.ts';

/** Temporary files of in-flight writes; never listed. */
const TMP_MARK = '.tapline-tmp-';

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

/** Relative paths ('/'-separated) of the regular files below `dir`; [] when `dir` is missing. */
async function walkFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(abs: string, rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(abs, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(TMP_MARK)) continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path.join(abs, entry.name), childRel);
      else if (entry.isFile()) out.push(childRel);
    }
  }
  await walk(dir, '');
  return out.sort();
}

/** Writes through a temp file + rename so readers never see partial content. */
async function atomicWrite(dest: string, write: (tmp: string) => Promise<void>): Promise<void> {
  await fs.mkdir(path.dirname(dest), { recursive: true });
  const tmp = path.join(path.dirname(dest), `${TMP_MARK}${randomBytes(6).toString('hex')}`);
  try {
    await write(tmp);
    await fs.rename(tmp, dest);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** Job storage on the local disk below `rootDir` (normally the data dir's `jobs/` folder). */
export function createLocalStorage(rootDir: string): JobStorage {
  const root = path.resolve(rootDir);

  function keyPath(key: string): string {
    assertValidKey(key);
    return path.join(root, ...key.split('/'));
  }

  function prefixPath(prefix: string, allowRoot: boolean): { dir: string; norm: string } {
    const norm = normalizePrefix(prefix, allowRoot);
    return { dir: norm === '' ? root : path.join(root, ...norm.split('/')), norm };
  }

  const storage: JobStorage = {
    kind: 'local',

    async put(key, data) {
      const dest = keyPath(key);
      await atomicWrite(dest, (tmp) => fs.writeFile(tmp, data));
    },

    async putFile(key, localPath) {
      const dest = keyPath(key);
      if (path.resolve(localPath) === dest) return;
      await atomicWrite(dest, (tmp) => fs.copyFile(localPath, tmp));
    },

    async putDir(prefix, localDir) {
      const { dir, norm } = prefixPath(prefix, false);
      const files = await walkFiles(localDir);
      // The runner may have let a process write straight into our folder.
      if (path.resolve(localDir) === dir) return files.length;
      for (const rel of files) await storage.putFile(`${norm}/${rel}`, path.join(localDir, rel));
      return files.length;
    },

    async get(key) {
      try {
        return await fs.readFile(keyPath(key));
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async getStream(key): Promise<Readable | null> {
      const file = keyPath(key);
      let handle;
      try {
        handle = await fs.open(file, 'r');
        const stat = await handle.stat();
        if (!stat.isFile()) {
          await handle.close();
          return null;
        }
      } catch (err) {
        await handle?.close();
        if (isMissing(err)) return null;
        throw err;
      }
      // The stream owns the handle and closes it at end or on destroy.
      return handle.createReadStream();
    },

    async getDir(prefix, localDir) {
      const { dir } = prefixPath(prefix, false);
      const files = await walkFiles(dir);
      if (path.resolve(localDir) === dir) return files.length;
      for (const rel of files) {
        const dest = path.join(localDir, ...rel.split('/'));
        await fs.mkdir(path.dirname(dest), { recursive: true });
        await fs.copyFile(path.join(dir, ...rel.split('/')), dest);
      }
      return files.length;
    },

    async list(prefix) {
      const { dir, norm } = prefixPath(prefix, true);
      const files = await walkFiles(dir);
      return norm === '' ? files : files.map((rel) => `${norm}/${rel}`);
    },

    async delete(key) {
      try {
        await fs.unlink(keyPath(key));
        return true;
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
    },

    async deletePrefix(prefix) {
      const { dir } = prefixPath(prefix, false);
      const files = await walkFiles(dir);
      await fs.rm(dir, { recursive: true, force: true });
      return files.length;
    },

    localDir(prefix) {
      return prefixPath(prefix, true).dir;
    },
  };
  return storage;
}
