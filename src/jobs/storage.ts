// The job storage of an environment: local folders under <data dir>/jobs/<env_id>
// for now (the scale-out issue moves this choice into configuration and adds S3).
// One store per environment, so the same tenant id in two environments never
// shares a folder (job roots start with the tenant: `{tenant}/flows/…`).
import path from 'node:path';
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { assertSafeSegment } from '../storage/keys.ts';
import { createLocalStorage } from '../storage/local.ts';
import type { JobStorage } from '../storage/types.ts';

const storages = new WeakMap<AppContext, Map<string, JobStorage>>();

export function jobStorageFor(ctx: AppContext, scope: EnvScope): JobStorage {
  assertSafeSegment(scope.envId, 'environment id');
  let byEnv = storages.get(ctx);
  if (!byEnv) {
    byEnv = new Map();
    storages.set(ctx, byEnv);
  }
  let storage = byEnv.get(scope.envId);
  if (!storage) {
    storage = createLocalStorage(path.join(ctx.config.dataDir, 'jobs', scope.envId));
    byEnv.set(scope.envId, storage);
  }
  return storage;
}
