// Commands contributed by domains (catalog, flows, preferences, secrets rotation).
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import type { OpenContext } from './admin.ts';
import { registerCatalogCommands } from './catalog.ts';
import { registerSecretCommands } from './secrets.ts';

export function registerExtraCommands(program: Command, open: OpenContext, config: Config): void {
  registerCatalogCommands(program, open);
  registerSecretCommands(program, open, config);
}
