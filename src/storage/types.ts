import type { Readable } from 'node:stream';

/**
 * Where a job's files live (config, state, tap output, ETL output, logs).
 *
 * Keys are '/'-separated relative paths such as
 * `tenant/flows/flow/jobs/2026/11/21/22/job_id/sync-output/contacts.jsonl`.
 * A prefix names a folder: `list('a/b')` returns the keys under `a/b/`
 * (never a key that merely starts with the string `a/b`, like `a/bc`).
 * Invalid keys or prefixes ('..', '.', absolute paths, empty segments,
 * backslashes, NUL) make every method throw.
 */
export interface JobStorage {
  /** Short backend name, e.g. 'local' or 's3'. */
  readonly kind: string;
  /** Writes (replaces) one object. Readers never see a half-written object. */
  put(key: string, data: Buffer | string): Promise<void>;
  /** Uploads one local file as `key`. */
  putFile(key: string, localPath: string): Promise<void>;
  /** Uploads every file below `localDir` (recursively) as `prefix/<relative path>`; returns the file count. */
  putDir(prefix: string, localDir: string): Promise<number>;
  /** Whole object, or null when the key does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Streamed object, or null when the key does not exist. */
  getStream(key: string): Promise<Readable | null>;
  /** Downloads every object under `prefix` into `localDir/<relative key>`; returns the file count. */
  getDir(prefix: string, localDir: string): Promise<number>;
  /** Full keys under `prefix` (recursively), sorted; [] when nothing is there. */
  list(prefix: string): Promise<string[]>;
  /** Deletes one object; returns whether it existed. */
  delete(key: string): Promise<boolean>;
  /** Deletes every object under `prefix`; returns how many were deleted. */
  deletePrefix(prefix: string): Promise<number>;
  /**
   * Only for backends on the local disk: the absolute folder that holds `prefix`,
   * so a runner can let a process write there directly instead of copying.
   */
  localDir?(prefix: string): string;
}
