// The stages through the built-in connectors (connectors/tap-sample.ts, target-jsonl.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCommand } from '../resolve-command.ts';
import { runDiscover } from './discover.ts';
import { runEtl } from './etl.ts';
import { runExport } from './export.ts';
import { selectCatalog } from './select-catalog.ts';
import { runSync } from './sync.ts';

const baseEnv = { PATH: process.env.PATH, HOME: tmpdir() };
const job = { jobId: 'j', tenant: 't', flow: 'f', envId: 'e' };
const lines = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-builtin-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runner stages with tap-sample and target-jsonl', () => {
  it('runs a job end to end, then an incremental one from its state', async () => {
    const tap = resolveCommand({ builtin: 'tap-sample' });
    const target = resolveCommand({ builtin: 'target-jsonl' });
    const fieldMap = { contacts: { name: 'people', selected: ['id', 'email', 'updated_at'] }, deals: {} };
    const catalog = selectCatalog(await runDiscover({ baseEnv, connector: tap, config: {} }), fieldMap, null);
    const config = { record_count: 25, seed: 7 };

    const sync = await runSync({ baseEnv, connector: tap, config, catalog, outDir: join(dir, 'sync') });
    expect(sync.perStream).toEqual({ contacts: 25, deals: 25 });
    const etl = await runEtl({ baseEnv, inputDir: join(dir, 'sync'), outDir: join(dir, 'etl'), fieldMap, job });
    expect(etl.perStream).toEqual({ deals: 25, people: 25 });
    const dest = join(dir, 'dest');
    const exported = await runExport({ baseEnv, connector: target, config: { destination_path: dest }, inputDir: etl.outputDir, state: sync.state });
    expect(exported).toMatchObject({ recordCount: 50, echoedState: sync.state });
    const people = await lines(join(dest, 'people.jsonl'));
    expect(people).toEqual(await lines(join(dir, 'etl', 'people.jsonl')));
    expect(Object.keys(people[0])).toEqual(['id', 'email', 'updated_at']);
    expect(await lines(join(dest, 'deals.jsonl'))).toEqual(await lines(join(dir, 'sync', 'deals.jsonl')));

    const again = await runSync({ baseEnv, connector: tap, config: { ...config, record_count: 30 }, catalog, state: sync.state, outDir: join(dir, 'sync2') });
    expect(again.perStream).toEqual({ contacts: 5, deals: 5 });
    expect((await lines(join(dir, 'sync2', 'contacts.jsonl')))[0].id).toBe(26);
  });
});
