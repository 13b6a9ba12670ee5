// Entry point: `npm start`. Serves the API; in role `all` (default) it also runs the
// job workers, scheduler and webhook delivery in-process (embedded mode).
import { buildApp } from './app.ts';
import { ensureOperatorKey } from './auth/operator-key.ts';
import { startBackground } from './background.ts';
import { createContext } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { ensureDemoEnvironment } from './demo.ts';
import { printStartBanner } from './banner.ts';
import { applyCatalogFile } from './catalog/file.ts';
import { parseArgs } from 'node:util';

async function main(): Promise<void> {
  // `npm start -- --catalog catalog.json`: operators keep catalogs and flows in git.
  const { values: args } = parseArgs({ options: { catalog: { type: 'string' } } });
  const config = loadConfig();
  const ctx = await createContext(config);
  const operator = await ensureOperatorKey(ctx);
  const demo = config.databaseUrl ? null : await ensureDemoEnvironment(ctx);
  if (args.catalog) ctx.log.info({ catalog: await applyCatalogFile(ctx, args.catalog) }, 'catalog file applied');
  const app = await buildApp(ctx);
  const stopBackground = config.role === 'api' ? async () => {} : await startBackground(ctx);
  await app.listen({ port: config.port, host: config.host });
  printStartBanner(config, operator, demo);
  const shutdown = async (signal: string) => {
    ctx.log.info({ signal }, 'shutting down');
    await app.close();
    await stopBackground();
    await ctx.db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
