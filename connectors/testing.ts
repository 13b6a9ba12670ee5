/** Helpers for the connector integration tests (not shipped behaviour). */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CONNECTORS_DIR = path.dirname(new URL(import.meta.url).pathname);

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion with `input` on stdin. */
export function run(command: string, args: string[], input = '', env?: NodeJS.ProcessEnv): RunResult {
  const r = spawnSync(command, args, { input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, env: env ?? process.env });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `connectors/<script>` with the Node running the tests (Node 24 under npm). */
export function runConnector(script: string, args: string[], input = ''): RunResult {
  return run(process.execPath, [path.join(CONNECTORS_DIR, script), ...args], input);
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-connectors-'));
}

/** Writes `value` as JSON into `dir/name` and returns the path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

export function jsonLines(text: string): any[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}
