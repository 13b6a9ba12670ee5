// Entry point: `npm run worker`. Background work only (job workers, scheduler,
// webhook delivery) against a shared database; API processes run with TAPLINE_ROLE=api.
import { startBackground } from './background.ts';
import { createContext } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import './routes.ts'; // registers every domain's background starters

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const stop = await startBackground(ctx);
  ctx.log.info({ role: 'worker' }, 'Tapline worker started');
  const shutdown = async () => {
    await stop();
    await ctx.db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
