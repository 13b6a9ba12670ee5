import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createContext } from '../bootstrap.ts';
import { DEMO_CATALOG } from '../catalog/demo.ts';
import { TEST_CATALOG } from '../catalog/testing.ts';
import { loadConfig } from '../config.ts';
import { generateMasterKey } from '../crypto/secret-box.ts';
import { createEnvironment } from '../environments/service.ts';
import { registerCatalogCommands } from './catalog.ts';

describe('tapline catalog / flows / preferences', () => {
  let dataDir: string;
  const open = () => createContext(loadConfig({}, { dataDir, secretKey: key, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
  const key = generateMasterKey();

  async function run(...args: string[]): Promise<unknown> {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => { lines.push(line); });
    try {
      const program = new Command('tapline').exitOverride();
      registerCatalogCommands(program, open);
      await program.parseAsync(['node', 'tapline', ...args]);
    } finally {
      spy.mockRestore();
    }
    return JSON.parse(lines.join('\n'));
  }

  function file(name: string, content: unknown): string {
    const p = path.join(dataDir, name);
    fs.writeFileSync(p, JSON.stringify(content));
    return p;
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-cli-catalog-'));
    const ctx = await open();
    await createEnvironment(ctx, 'acme');
    await createEnvironment(ctx, 'beta');
    await ctx.db.close();
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('loads a catalog file for one environment, or several keyed by environments', async () => {
    expect(await run('catalog', 'load', file('c.json', { env_id: 'acme', ...TEST_CATALOG }))).toMatchObject({ acme: { status: 'applied', flows: 3 } });
    const multi = file('m.json', { environments: { beta: DEMO_CATALOG } });
    expect(await run('catalog', 'load', multi)).toMatchObject({ beta: { availableConnectors: 1, flows: 2 } });
    await expect(run('catalog', 'load', multi, 'acme')).rejects.toThrow(/no environment "acme"/);
    const shown = await run('catalog', 'show', 'beta') as { flows: Array<{ id: string }> };
    expect(shown.flows.map((f) => f.id)).toEqual(['demo-v1', 'demo-v2']);
  });

  it('puts and removes entries and flows', async () => {
    await run('catalog', 'load', file('c.json', { env_id: 'acme', ...TEST_CATALOG }));
    expect(await run('catalog', 'put', 'acme', 'source', file('e.json', { tap: 'tap-new', run: { command: 'tap-new' } }))).toMatchObject({ tap: 'tap-new', run: { command: 'tap-new', args: [] } });
    expect(await run('flows', 'put', 'acme', file('f.json', { id: 'fx', taps: ['tap-new'] }))).toMatchObject({ id: 'fx', taps: ['tap-new'] });
    await expect(run('catalog', 'remove', 'acme', 'source', 'tap-new')).rejects.toThrow(/used by flow\(s\) fx/);
    expect(await run('flows', 'remove', 'acme', 'fx')).toEqual({ status: 'deleted', flow_id: 'fx' });
    expect(await run('catalog', 'remove', 'acme', 'source', 'tap-new')).toEqual({ status: 'deleted', kind: 'source', name: 'tap-new' });
    expect((await run('flows', 'list', 'acme') as unknown[]).length).toBe(3);
    await expect(run('catalog', 'put', 'acme', 'widget', file('e.json', { tap: 'x' }))).rejects.toThrow(/kind must be/);
  });

  it('sets preferences from a file and the primary color', async () => {
    expect(await run('preferences', 'show', 'acme')).toEqual({ uiPreferences: { primaryColor: '#1e88e5' } });
    expect(await run('preferences', 'set', 'acme', file('p.json', { logo: 'l.png' }))).toEqual({ logo: 'l.png', uiPreferences: { primaryColor: '#1e88e5' } });
    expect(await run('preferences', 'set', 'acme', '--primary-color', '#000000')).toEqual({ logo: 'l.png', uiPreferences: { primaryColor: '#000000' } });
  });
});
