// `tapline catalog|flows|preferences ...`: the environment's connector catalog, flows
// and widget preferences from the command line, through the same services as the API.
import type { Command } from 'commander';
import { systemEnvScope } from '../auth/scope.ts';
import { catalogDocument } from '../catalog/bulk.ts';
import { applyCatalogFile, readCatalogFile } from '../catalog/file.ts';
import { preferencesOf, setPreferences } from '../catalog/preferences.ts';
import * as catalog from '../catalog/service.ts';
import type { CatalogKind } from '../catalog/types.ts';
import type { AppContext } from '../context.ts';
import { print, withContext } from './admin.ts';

const KINDS: Record<string, CatalogKind> = { source: 'source', target: 'target', connector: 'connector' };
const NAME_MEMBERS = ['tap', 'target', 'id', 'name'];

function kindOf(value: string): CatalogKind {
  const kind = KINDS[value];
  if (!kind) throw new Error(`kind must be source, target or connector; got "${value}"`);
  return kind;
}

function readJson(file: string): Record<string, unknown> {
  const value = readCatalogFile(file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}

function registerCatalog(program: Command, open: () => Promise<AppContext>): void {
  const cmd = program.command('catalog').description("manage an environment's connector catalog");
  cmd.command('load <file> [env_id]')
    .description('replace the catalog and flows from a JSON file ({availableSources, availableTargets, availableConnectors, flows}, with "env_id" or keyed by "environments")')
    .action((file: string, envId: string | undefined) => withContext(open, async (ctx) => print(await applyCatalogFile(ctx, file, envId))));
  cmd.command('show <env_id>').description('print the catalog and flows (run specs shown, secrets never)')
    .action((envId: string) => withContext(open, async (ctx) => print(await catalogDocument(ctx, systemEnvScope(envId)))));
  cmd.command('put <env_id> <kind> <file>').description('create or replace one entry (kind: source, target or connector) from a JSON file')
    .action((envId: string, kind: string, file: string) => withContext(open, async (ctx) => {
      const entry = readJson(file);
      const name = NAME_MEMBERS.map((m) => entry[m]).find((v) => typeof v === 'string') as string | undefined;
      if (!name) throw new Error(`${file} names no entry: give "tap", "target" or "id"`);
      print(await catalog.putEntry(ctx, systemEnvScope(envId), kindOf(kind), name, entry));
    }));
  cmd.command('remove <env_id> <kind> <name>').description('remove one entry (refused while a flow uses it)')
    .action((envId: string, kind: string, name: string) => withContext(open, async (ctx) => print(await catalog.deleteEntry(ctx, systemEnvScope(envId), kindOf(kind), name))));
}

function registerFlows(program: Command, open: () => Promise<AppContext>): void {
  const cmd = program.command('flows').description("manage an environment's flows");
  cmd.command('list <env_id>').description('print the flows with their export side and ETL setting')
    .action((envId: string) => withContext(open, async (ctx) => print(await catalog.listAdminFlows(ctx, systemEnvScope(envId)))));
  cmd.command('put <env_id> <file>').description('create or replace a flow from a JSON file (its "id" names it)')
    .action((envId: string, file: string) => withContext(open, async (ctx) => {
      const flow = readJson(file);
      if (typeof flow.id !== 'string') throw new Error(`${file} needs the flow's "id"`);
      print(await catalog.putFlow(ctx, systemEnvScope(envId), flow.id, flow));
    }));
  cmd.command('remove <env_id> <flow_id>').description('remove a flow definition')
    .action((envId: string, flowId: string) => withContext(open, async (ctx) => print(await catalog.deleteFlow(ctx, systemEnvScope(envId), flowId))));
}

function registerPreferences(program: Command, open: () => Promise<AppContext>): void {
  const cmd = program.command('preferences').description("an environment's widget preferences");
  cmd.command('show <env_id>').description('print the preferences (with defaults filled in)')
    .action((envId: string) => withContext(open, async (ctx) => print(await preferencesOf(ctx, systemEnvScope(envId)))));
  cmd.command('set <env_id> [file]').description('replace the preferences from a JSON file, and/or set the primary color')
    .option('--primary-color <color>', 'uiPreferences.primaryColor, e.g. "#1e88e5"')
    .action((envId: string, file: string | undefined, o: { primaryColor?: string }) => withContext(open, async (ctx) => {
      const scope = systemEnvScope(envId);
      if (file === undefined && o.primaryColor === undefined) throw new Error('give a preferences file and/or --primary-color');
      const base = file !== undefined ? readJson(file) : await preferencesOf(ctx, scope);
      const ui = typeof base.uiPreferences === 'object' && base.uiPreferences !== null ? base.uiPreferences as Record<string, unknown> : {};
      const next = o.primaryColor === undefined ? base : { ...base, uiPreferences: { ...ui, primaryColor: o.primaryColor } };
      print(await setPreferences(ctx, scope, next));
    }));
}

/** Registers `catalog`, `flows` and `preferences` commands; `open` gives a context the command closes. */
export function registerCatalogCommands(program: Command, open: () => Promise<AppContext>): void {
  registerCatalog(program, open);
  registerFlows(program, open);
  registerPreferences(program, open);
}

