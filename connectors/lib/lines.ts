/** Fast line reading: one await per input chunk, never per line. */
import type { Readable } from 'node:stream';

/**
 * Calls `onLine(line, lineNumber)` synchronously for every line of `input`
 * (1-based numbers, '\n' separated, a final unterminated line included).
 * An exception from `onLine` stops reading and rejects.
 */
export async function forEachLine(input: Readable, onLine: (line: string, lineNumber: number) => void): Promise<void> {
  input.setEncoding('utf8');
  let rest = '';
  let lineNumber = 0;
  for await (const chunk of input as AsyncIterable<string>) {
    let text = rest === '' ? chunk : rest + chunk;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl !== -1) {
      onLine(text.slice(start, nl), ++lineNumber);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    rest = start === 0 ? text : text.slice(start);
    text = '';
  }
  if (rest !== '') onLine(rest, ++lineNumber);
}
