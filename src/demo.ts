// First start in embedded mode: create a `demo` environment so a newcomer can call
// the API at once. Its keys are printed and kept in <data dir>/demo-keys.json (0600).
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from './context.ts';
import { createEnvironment, listEnvironments } from './environments/service.ts';

export interface DemoSetup {
  readonly envId: string;
  readonly environmentKey: string;
  readonly publicKey: string;
}

export type DemoSeeder = (ctx: AppContext, envId: string) => Promise<void>;

/** Seeders add the demo's catalog and flows (connections) — registered by their domains. */
export const demoSeeders: DemoSeeder[] = [];

export async function ensureDemoEnvironment(ctx: AppContext): Promise<DemoSetup | null> {
  if ((await listEnvironments(ctx)).length > 0) return null;
  const created = await createEnvironment(ctx, 'demo');
  for (const seed of demoSeeders) await seed(ctx, created.env_id);
  const setup = { envId: created.env_id, environmentKey: created.api_keys.environment, publicKey: created.api_keys.public };
  fs.writeFileSync(path.join(ctx.config.dataDir, 'demo-keys.json'), `${JSON.stringify(setup, null, 2)}\n`, { mode: 0o600 });
  return setup;
}
