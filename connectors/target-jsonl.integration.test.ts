import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONNECTORS_DIR, jsonLines, runConnector, tempDir, writeJson } from './testing.ts';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let runs = 0;
function target(input: string, config: Record<string, unknown> = {}) {
  const dest = (config.destination_path as string) ?? path.join(dir, `out-${++runs}`, 'nested');
  const configFile = writeJson(dir, `target-${++runs}.json`, { destination_path: dest, ...config });
  return { ...runConnector('target-jsonl.ts', ['--config', configFile], input), dest };
}

const lines = (...messages: unknown[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('');
const schema = (stream: string) => ({ type: 'SCHEMA', stream, schema: { type: 'object', properties: {} }, key_properties: ['id'] });
const record = (stream: string, id: number, extra: Record<string, unknown> = {}) => ({ type: 'RECORD', stream, record: { id, ...extra } });
const state = (n: number) => ({ type: 'STATE', value: { bookmarks: { s: { n } } } });
const readJsonl = (file: string) => jsonLines(fs.readFileSync(file, 'utf8'));

describe('target-jsonl', () => {
  it('writes one file per stream, creating the folder, and echoes the last state', () => {
    const input = lines(schema('a'), schema('b'), record('a', 1), record('b', 1, { name: 'é "q"' }), state(1), record('a', 2), state(2));
    const { status, stdout, dest } = target(input);
    expect(status).toBe(0);
    expect(readJsonl(path.join(dest, 'a.jsonl'))).toEqual([{ id: 1 }, { id: 2 }]);
    expect(readJsonl(path.join(dest, 'b.jsonl'))).toEqual([{ id: 1, name: 'é "q"' }]);
    expect(jsonLines(stdout).at(-1)).toEqual({ bookmarks: { s: { n: 2 } } });
  });

  it('echoes a state only after the records before it are flushed', () => {
    const input = lines(
      schema('a'), state(0), record('a', 1), state(1), state(1.5), record('a', 2), state(2),
      record('a', 3), state(3), record('a', 4), state(4), record('a', 5),
    );
    const { stdout } = target(input, { flush_every_records: 2 });
    // 0: nothing pending, echoed at once. 1 and 1.5 wait for the flush at record 2, and only the latest is echoed.
    // 2 and 4 arrive right after a flush, echoed at once; 3 waits for the flush at record 4. Record 5 is flushed at the end, with no newer state.
    expect(jsonLines(stdout).map((s) => s.bookmarks.s.n)).toEqual([0, 1.5, 2, 3, 4]);
  });

  it('appends across runs', () => {
    const dest = path.join(dir, 'append');
    target(lines(schema('a'), record('a', 1)), { destination_path: dest });
    target(lines(schema('a'), record('a', 2)), { destination_path: dest });
    expect(readJsonl(path.join(dest, 'a.jsonl'))).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('writes only the record for any message layout', () => {
    const input =
      `${JSON.stringify(schema('a'))}\r\n` +
      '{"type":"RECORD","stream":"a","record":{"id":1},"time_extracted":"2024-01-01T00:00:00Z"}\n' +
      '{"record":{"id":2,"nested":{"x":[1,2]}},"stream":"a","type":"RECORD"}\n' +
      '{ "type": "RECORD", "stream": "a", "record": {"id": 3} }\n' +
      '{"type":"RECORD","stream":"a","record":{"id":4,"s":"}}"}}\n\n';
    const { status, dest } = target(input);
    expect(status).toBe(0);
    expect(readJsonl(path.join(dest, 'a.jsonl'))).toEqual([{ id: 1 }, { id: 2, nested: { x: [1, 2] } }, { id: 3 }, { id: 4, s: '}}' }]);
  });

  it('keeps stream file names inside the destination', () => {
    const { dest } = target(lines(schema('public/../users'), record('public/../users', 1), schema('..'), record('..', 2)));
    expect(fs.readdirSync(dest).sort()).toEqual(['_...jsonl', 'public_.._users.jsonl']);
  });

  it('accepts ACTIVATE_VERSION and ignores unknown message types with a warning', () => {
    const input = lines(schema('a'), { type: 'ACTIVATE_VERSION', stream: 'a', version: 1 }, { type: 'BATCH', stream: 'a' }, record('a', 1));
    const { status, stderr, dest } = target(input);
    expect(status).toBe(0);
    expect(stderr).toMatch(/ignoring message type "BATCH" \(line 3\)/);
    expect(readJsonl(path.join(dest, 'a.jsonl'))).toEqual([{ id: 1 }]);
  });

  it.each([
    ['a non-JSON line', lines(schema('a'), record('a', 1)) + 'not json\n', /line 3: not valid JSON/],
    ['a message without type', lines(schema('a'), { stream: 'a' }), /line 2: not a Singer message/],
    ['a RECORD before its SCHEMA', lines(schema('a'), record('b', 1)), /line 2: RECORD for stream "b" before its SCHEMA/],
    ['a RECORD without record', lines(schema('a'), { type: 'RECORD', stream: 'a' }), /line 2: RECORD needs/],
    ['a truncated last line', lines(schema('a')) + '{"type":"RECORD","stream":"a","rec', /line 2: not valid JSON/],
  ])('exits 1 with the line number on %s', (_name, input, message) => {
    const { status, stderr } = target(input);
    expect(status).toBe(1);
    expect(stderr).toMatch(message);
  });

  it('fails on purpose at fail_on_record', () => {
    const { status, stderr, stdout } = target(lines(schema('a'), record('a', 1), state(1), record('a', 2), state(2)), { fail_on_record: 2 });
    expect(status).toBe(1);
    expect(stderr).toMatch(/fail_on_record/);
    expect(jsonLines(stdout)).toEqual([]);
  });

  it('rejects a config without destination_path', () => {
    const result = runConnector('target-jsonl.ts', ['--config', writeJson(dir, 'bad.json', {})], '');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/destination_path/);
  });

  it('stores everything tap-sample emits when piped from it, ending with the tap state', async () => {
    const dest = path.join(dir, 'piped');
    const tapConfig = writeJson(dir, 'tap.json', { record_count: 25_000, seed: 3 });
    const targetConfig = writeJson(dir, 'piped-target.json', { destination_path: dest });
    const tapProc = spawn(process.execPath, [path.join(CONNECTORS_DIR, 'tap-sample.ts'), '--config', tapConfig], { stdio: ['ignore', 'pipe', 'inherit'] });
    const targetProc = spawn(process.execPath, [path.join(CONNECTORS_DIR, 'target-jsonl.ts'), '--config', targetConfig], { stdio: ['pipe', 'pipe', 'pipe'] });
    tapProc.stdout.pipe(targetProc.stdin);
    let stdout = '';
    targetProc.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    const [[tapCode], [targetCode]] = await Promise.all([once(tapProc, 'exit'), once(targetProc, 'exit')]);
    expect([tapCode, targetCode]).toEqual([0, 0]);
    for (const stream of ['contacts', 'companies', 'deals']) {
      const rows = readJsonl(path.join(dest, `${stream}.jsonl`));
      expect(rows).toHaveLength(25_000);
      expect(rows[24_999].id).toBe(25_000);
    }
    const finalState = jsonLines(stdout).at(-1);
    expect(finalState.bookmarks.deals.updated_at).toBe('2024-01-01T06:56:39Z');
  });
});
