// A private folder per stage for the config/catalog/state files handed to a
// connector. They hold credentials, so: folder 0700, files 0600, created
// exclusively, and removed when the stage ends whatever the outcome.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateDir {
  readonly path: string;
  /** Writes `value` as JSON to `<path>/<name>` (mode 0600) and returns the file path. */
  writeJson(name: string, value: unknown): Promise<string>;
  /** Removes the folder and its files. Idempotent. */
  remove(): Promise<void>;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export async function createPrivateDir(parentDir: string = tmpdir(), prefix = 'tapline-stage-'): Promise<PrivateDir> {
  const path = await mkdtemp(join(parentDir, prefix));
  await chmod(path, 0o700); // mkdtemp already uses 0700; be explicit against odd umasks.
  let removed = false;
  return {
    path,
    async writeJson(name, value) {
      if (!SAFE_NAME.test(name)) throw new Error(`invalid private file name: ${JSON.stringify(name)}`);
      const file = join(path, name);
      await writeFile(file, JSON.stringify(value), { mode: 0o600, flag: 'wx' });
      return file;
    },
    async remove() {
      if (removed) return;
      removed = true;
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Runs `fn` with a fresh private folder that is removed afterwards (also on failure). */
export async function withPrivateDir<T>(fn: (dir: PrivateDir) => Promise<T>, parentDir?: string): Promise<T> {
  const dir = await createPrivateDir(parentDir);
  try {
    return await fn(dir);
  } finally {
    await dir.remove();
  }
}
