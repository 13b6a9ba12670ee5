// The job storage of a context: local folders under <data dir>/jobs for now (the
// scale-out issue moves this choice into configuration and adds S3).
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { createLocalStorage } from '../storage/local.ts';
import type { JobStorage } from '../storage/types.ts';

const storages = new WeakMap<AppContext, JobStorage>();

export function jobStorageFor(ctx: AppContext): JobStorage {
  let storage = storages.get(ctx);
  if (!storage) {
    storage = createLocalStorage(path.join(ctx.config.dataDir, 'jobs'));
    storages.set(ctx, storage);
  }
  return storage;
}
