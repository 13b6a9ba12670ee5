// Background loops of a Tapline process (job workers, scheduler, webhook delivery).
// Each domain adds a starter; server.ts (role all) and worker.ts run them.
import type { AppContext } from './context.ts';

export interface BackgroundTask {
  readonly name: string;
  stop(): Promise<void>;
}

export type BackgroundStarter = (ctx: AppContext) => Promise<BackgroundTask>;

export const backgroundStarters: BackgroundStarter[] = [];

export async function startBackground(ctx: AppContext): Promise<() => Promise<void>> {
  const tasks: BackgroundTask[] = [];
  for (const start of backgroundStarters) tasks.push(await start(ctx));
  return async () => {
    for (const task of tasks.reverse()) await task.stop();
  };
}
