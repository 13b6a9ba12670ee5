import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StageError } from '../errors.ts';
import { runDiscover } from './discover.ts';
import { runEtl } from './etl.ts';
import { runExport } from './export.ts';
import { selectCatalog } from './select-catalog.ts';
import { runSync } from './sync.ts';

const fixture = (name: string) => ({ command: process.execPath, args: [fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))] });
const tap = fixture('fixture-tap.mjs');
const target = fixture('fixture-target.mjs');
const baseEnv = { PATH: process.env.PATH, HOME: tmpdir() };
const job = { jobId: 'j1', tenant: 't1', flow: 'f1', envId: 'e1' };
const jsonl = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-stages-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<StageError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(StageError);
  return error as StageError;
}

describe('runner stages with fixture connectors', () => {
  it('discover → sync → etl → export moves every record and the state', async () => {
    const logs: string[] = [];
    const opts = { baseEnv, log: (l: string) => logs.push(l), privateDirParent: dir };
    const catalog = await runDiscover({ ...opts, connector: tap, config: {} });
    expect(catalog.streams.map((s) => s.tap_stream_id)).toEqual(['contacts', 'companies']);

    const dump = join(dir, 'args.json');
    const selected = selectCatalog(catalog, null, null);
    const sync = await runSync({ ...opts, connector: tap, config: { records: 7, state_every: 2, dump_args_to: dump, api_key: 's3cret' }, catalog: selected, state: { since: 1 }, outDir: join(dir, 'sync') });
    expect(sync).toMatchObject({ recordCount: 7, perStream: { contacts: 4, companies: 3 }, state: { done: true, records: 7 } });
    expect(sync.bytes).toBeGreaterThan(0);
    const seen = JSON.parse(await readFile(dump, 'utf8'));
    expect(JSON.parse(seen.files['--catalog'])).toEqual(selected);
    expect(JSON.parse(seen.files['--state'])).toEqual({ since: 1 });
    // The private folder with the credentials is gone, nothing of it was logged.
    expect(await readdir(dir)).toEqual(['args.json', 'sync']);
    expect(logs.join('\n')).not.toContain('s3cret');
    expect((await jsonl(join(dir, 'sync', 'contacts.jsonl')))[1]).toEqual({ id: 2, name: 'n2', email: 'u2@example.com', n: 1 });
    const schemas = JSON.parse(await readFile(join(dir, 'sync', '_schemas.json'), 'utf8'));
    expect(schemas.contacts.key_properties).toEqual(['id']);

    const fieldMap = { contacts: { name: 'people', selected: ['id', 'email'] } };
    const etl = await runEtl({ ...opts, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl'), fieldMap, job });
    expect(etl).toEqual({ outputDir: join(dir, 'etl'), recordCount: 4, perStream: { people: 4 } });
    expect(await jsonl(join(dir, 'etl', 'people.jsonl'))).toEqual([0, 2, 4, 6].map((id) => ({ id, email: `u${id}@example.com` })));
    const etlSchemas = JSON.parse(await readFile(join(dir, 'etl', '_schemas.json'), 'utf8'));
    expect(Object.keys(etlSchemas.people.schema.properties)).toEqual(['id', 'email']);

    const dest = join(dir, 'dest');
    await mkdir(dest);
    const exported = await runExport({ ...opts, connector: target, config: { destination_path: dest }, inputDir: join(dir, 'etl'), state: sync.state });
    expect(exported).toEqual({ recordCount: 4, perStream: { people: 4 }, echoedState: { done: true, records: 7 } });
    expect(await jsonl(join(dest, 'people.jsonl'))).toEqual(await jsonl(join(dir, 'etl', 'people.jsonl')));
    expect(logs).toContain('target: not a state line');
  });

  it('a null field map keeps every stream unchanged (copied, counted)', async () => {
    await runSync({ baseEnv, connector: tap, config: { records: 5 }, catalog: { streams: [] }, outDir: join(dir, 'sync') });
    const etl = await runEtl({ baseEnv, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl'), fieldMap: null, job });
    expect(etl.perStream).toEqual({ companies: 2, contacts: 3 });
    expect(await readFile(join(dir, 'etl', 'contacts.jsonl'), 'utf8')).toBe(await readFile(join(dir, 'sync', 'contacts.jsonl'), 'utf8'));
  });

  it('imports the records of BATCH messages (gzip jsonl files)', async () => {
    const batch = join(dir, 'batch.jsonl.gz');
    const sync = await runSync({ baseEnv, connector: tap, config: { records: 2, batch_file: batch }, catalog: { streams: [] }, outDir: join(dir, 'sync') });
    expect(sync.perStream).toEqual({ contacts: 3, companies: 1 });
    expect((await jsonl(join(dir, 'sync', 'contacts.jsonl'))).map((r) => r.id)).toEqual([0, 100, 101]);
  });

  it('a failing tap gives a StageError with its exit code and last stderr lines', async () => {
    const error = await rejection(runSync({ baseEnv, connector: tap, config: { records: 2, fail: 'token expired' }, catalog: { streams: [] }, outDir: join(dir, 'sync') }));
    expect(error).toMatchObject({ stage: 'sync', kind: 'failed', exitCode: 3 });
    expect(error.message).toBe('tap exited with code 3\nstarting\nerror: token expired');
  });

  it('a malformed tap line fails the sync with its line number', async () => {
    const error = await rejection(runSync({ baseEnv, connector: tap, config: { records: 5, malformed_at: 4 }, catalog: { streams: [] }, outDir: join(dir, 'sync') }));
    expect(error.message).toBe('tap output line 4: not valid JSON (starts with "INFO this is not json")');
  });

  it('a tap that outlives timeoutMs is stopped', async () => {
    const error = await rejection(runSync({ baseEnv, connector: tap, config: { records: 1, sleep_ms: 20_000 }, catalog: { streams: [] }, outDir: join(dir, 'sync'), timeoutMs: 300 }));
    expect(error).toMatchObject({ stage: 'sync', kind: 'timeout', message: 'tap timed out after 300 ms' });
  });

  it('a target exiting non-zero, or echoing no state, fails the export', async () => {
    await runSync({ baseEnv, connector: tap, config: { records: 3 }, catalog: { streams: [] }, outDir: join(dir, 'sync') });
    const input = { baseEnv, inputDir: join(dir, 'sync') };
    const failed = await rejection(runExport({ ...input, connector: target, config: { destination_path: dir, exit_code: 5 } }));
    expect(failed).toMatchObject({ stage: 'export', exitCode: 5, message: 'target exited with code 5\ntarget failed with 5' });
    const early = await rejection(runExport({ ...input, connector: target, config: { destination_path: dir, stop_reading: true } }));
    expect(early).toMatchObject({ exitCode: 4 });
    const silent = await rejection(runExport({ ...input, connector: target, config: { destination_path: dir, no_echo: true } }));
    expect(silent.message).toBe('target exited without echoing a STATE');
  });

  it('a malformed export input line fails with its file and line', async () => {
    await writeFile(join(dir, 'a.jsonl'), '{"x":1}\n[2]\n');
    const error = await rejection(runExport({ baseEnv, connector: target, config: { destination_path: dir }, inputDir: dir }));
    expect(error.message).toBe('export input a line 2: not a JSON object');
  });

  it('runs an ETL command with the stage variables and counts its output', async () => {
    await runSync({ baseEnv, connector: tap, config: { records: 4 }, catalog: { streams: [] }, outDir: join(dir, 'sync') });
    const script = `
      const fs = require('node:fs');
      const rows = fs.readFileSync(process.env.INPUT_DIR + '/contacts.jsonl', 'utf8').trim().split('\\n');
      fs.writeFileSync(process.env.OUTPUT_DIR + '/out.jsonl', rows.map((r) => JSON.stringify({ ...JSON.parse(r), job: process.env.JOB_ID, tenant: process.env.TENANT, flow: process.env.FLOW, env: process.env.ENV_ID, x: process.env.X })).join('\\n') + '\\n');
      console.log('wrote', rows.length);`;
    const logs: string[] = [];
    const result = await runEtl({
      baseEnv, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl'), commandOutputDir: join(dir, 'out'), job,
      command: { command: process.execPath, args: ['-e', script] }, envVars: { X: 'y', INPUT_DIR: '/etc' }, log: (l) => logs.push(l),
    });
    expect(result).toEqual({ outputDir: join(dir, 'out'), recordCount: 2, perStream: { out: 2 } });
    expect((await jsonl(join(dir, 'out', 'out.jsonl')))[0]).toMatchObject({ job: 'j1', tenant: 't1', flow: 'f1', env: 'e1', x: 'y' });
    expect(logs).toContain('etl: wrote 2');
    expect((await stat(join(dir, 'out', '_schemas.json'))).isFile()).toBe(true);

    const failing = await rejection(runEtl({ baseEnv, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl2'), commandOutputDir: join(dir, 'out2'), job, command: { command: process.execPath, args: ['-e', 'console.error("boom"); process.exit(2)'] } }));
    expect(failing).toMatchObject({ stage: 'etl', exitCode: 2, message: 'ETL command exited with code 2\nboom' });
  });

  it('an aborted ETL stops with kind aborted', async () => {
    await runSync({ baseEnv, connector: tap, config: { records: 4 }, catalog: { streams: [] }, outDir: join(dir, 'sync') });
    const error = await rejection(runEtl({ baseEnv, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl'), job, signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ stage: 'etl', kind: 'aborted' });
  });
});
