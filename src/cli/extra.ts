// Commands contributed by domains (catalog, flows, secrets rotation).
import type { Command } from 'commander';
import type { OpenContext } from './admin.ts';

export function registerExtraCommands(program: Command, open: OpenContext): void {
  void program;
  void open;
}
