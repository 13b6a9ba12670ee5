// Entry point of the `tapline` command: administration against the same data dir or
// database as the server (configuration from the same environment variables).
import { Command } from 'commander';
import { createContext, sqliteFileOf } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrateToLatest, openDatabase } from './db/connect.ts';
import { registerEnvCommands, registerKeyCommands, print, type OpenContext } from './cli/admin.ts';
import { registerExtraCommands } from './cli/extra.ts';
import { createLogger } from './logging.ts';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
})();

const open: OpenContext = () => createContext(config, { logger: createLogger('warn') });
const program = new Command('tapline').description('Tapline administration').showHelpAfterError();

program.command('migrate').description('apply database migrations').action(async () => {
  const db = openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: sqliteFileOf(config) });
  try {
    print({ applied: await migrateToLatest(db) });
  } finally {
    await db.close();
  }
});
registerEnvCommands(program, open);
registerKeyCommands(program, open);
registerExtraCommands(program, open, config);

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
