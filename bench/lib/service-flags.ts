// The Node flags `npm start` gives the service (e.g. --max-semi-space-size=8), read
// from package.json so the bench runs Tapline exactly as operators do.
import { readFileSync } from 'node:fs';

const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** Flags between `node` and the script in the `start` script, e.g. ['--max-semi-space-size=8']. */
export function serviceNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  const words = (scripts.start ?? '').trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`package.json "start" does not run node: ${scripts.start}`);
  const flags: string[] = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith('-')) break;
    flags.push(word);
  }
  return flags;
}
