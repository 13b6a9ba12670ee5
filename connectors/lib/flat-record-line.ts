// Fast path of target-jsonl for the usual line, `{"type":"RECORD","stream":"s","record":{flat}}`:
// a sticky regex per stream takes whole runs of such lines, so the target can
// cut the records out with one replaceAll instead of JSON.parse per line.
// The patterns accept only text JSON.parse accepts: they are those of
// src/runner/record-fast-path.ts with strings in the equivalent "unrolled"
// form (runs of plain characters match in one native loop);
// flat-record-line.test.ts checks them against JSON.parse. Nested records,
// other layouts and escaped stream names are left to JSON.parse.
const PLAIN_CHARS = String.raw`[^"\\\u0000-\u001f]*`;
const STRING = String.raw`"${PLAIN_CHARS}(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})${PLAIN_CHARS})*"`;
const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const VALUE = `(?:${STRING}|${NUMBER}|true|false|null)`;
const FLAT_OBJECT = String.raw`\{(?:${STRING}:${VALUE}(?:,${STRING}:${VALUE})*)?\}`;
const PLAIN_STREAM = /^[^"\\\u0000-\u001f]+$/;

/** Sticky regex matching one compact flat RECORD line of `stream` with its '\n', or undefined. */
export function fastLinePattern(stream: string): RegExp | undefined {
  if (!PLAIN_STREAM.test(stream)) return undefined;
  const name = stream.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  return new RegExp(String.raw`\{"type":"RECORD","stream":"${name}","record":${FLAT_OBJECT}\}\n`, 'y');
}
