/** Singer command-line conventions shared by the built-in connectors. */
import { readFileSync } from 'node:fs';

export interface SingerArgs {
  config?: string;
  catalog?: string;
  state?: string;
  discover: boolean;
  about: boolean;
}

const VALUE_FLAGS: Record<string, 'config' | 'catalog' | 'state'> = {
  '--config': 'config',
  '--catalog': 'catalog',
  '--properties': 'catalog', // legacy Singer name for the catalog
  '--state': 'state',
};

/** Parses `--config f --catalog f --state f --discover --about` (also `--flag=value`). */
export function parseSingerArgs(argv: string[]): SingerArgs {
  const args: SingerArgs = { discover: false, about: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') ? splitOnce(argv[i]) : [argv[i], undefined];
    if (flag === '--discover') args.discover = true;
    else if (flag === '--about') args.about = true;
    else if (flag in VALUE_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new Error(`${flag} needs a file path`);
      args[VALUE_FLAGS[flag]] = value;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
    }
  }
  return args;
}

function splitOnce(arg: string): [string, string] {
  const at = arg.indexOf('=');
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/** Reads a JSON object file; `what` names it in errors. */
export function readJsonObject(file: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} file ${file}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${what} file ${file} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Prints `name: message` on stderr and sets exit code 1 (lets buffered stdout drain). */
export function failWith(name: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${name}: ${message}\n`);
  process.exitCode = 1;
}
