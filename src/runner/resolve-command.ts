// Turns a catalog entry's run spec into an argv. Built-in connectors are our own
// TypeScript files run by the Node binary that runs Tapline.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type RunSpec = { builtin: string } | { command: string; args?: readonly string[] };

export interface ConnectorCommand {
  command: string;
  args: string[];
  /** Variables the connector itself needs (not the job's), e.g. Node's compile cache for built-ins. */
  env?: Readonly<Record<string, string>>;
}

const CONNECTORS_DIR = fileURLToPath(new URL('../../connectors/', import.meta.url));
// Node's compile cache halves a built-in's start (~100 ms -> ~45 ms measured: most of it
// is compiling the TypeScript). Kept beside our own modules, not in a shared /tmp.
const BUILTIN_COMPILE_CACHE = fileURLToPath(new URL('../../node_modules/.cache/tapline-connectors/', import.meta.url));
const BUILTIN_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Throws Error for an unknown built-in or a malformed spec. */
export function resolveCommand(run: RunSpec, connectorsDir: string = CONNECTORS_DIR): ConnectorCommand {
  if ('builtin' in run) {
    if (!BUILTIN_NAME.test(run.builtin)) throw new Error(`invalid built-in connector name: ${JSON.stringify(run.builtin)}`);
    const file = `${connectorsDir.replace(/\/?$/, '/')}${run.builtin}.ts`;
    if (!existsSync(file)) throw new Error(`unknown built-in connector: ${run.builtin}`);
    return { command: process.execPath, args: [file], env: { NODE_COMPILE_CACHE: BUILTIN_COMPILE_CACHE } };
  }
  if (typeof run.command !== 'string' || run.command === '') throw new Error('run spec without a command');
  const args = run.args ?? [];
  if (!args.every((a) => typeof a === 'string')) throw new Error('run spec args must be strings');
  return { command: run.command, args: [...args] };
}
