// The README's first command, for real: `npm start` in embedded mode on an empty data
// dir creates the demo environment, prints working curl lines, and the demo flow runs
// a real job to JOB_COMPLETED with the exported files on disk.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('embedded quickstart (npm start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-quickstart-'));
  let server: ChildProcess | undefined;
  let output = '';

  afterAll(() => {
    server?.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the demo environment and runs the README job to JOB_COMPLETED', async () => {
    const port = await freePort();
    server = spawn(process.execPath, [path.join(root, 'src/server.ts')], {
      cwd: dataDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', TAPLINE_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d) => { output += String(d); });
    server.stderr!.on('data', (d) => { output += String(d); });
    await waitFor('the start banner', async () => (output.includes('Try it') ? true : undefined));
    const base = `http://127.0.0.1:${port}`;
    expect(output).toContain(`Tapline is serving on ${base}`);
    const keys = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-keys.json'), 'utf8'));
    expect(output).toContain(keys.environmentKey);
    expect(fs.statSync(path.join(dataDir, 'admin-key')).mode & 0o777).toBe(0o600);

    // The curl lines printed by the banner, in order.
    const headers = { 'x-api-key': keys.environmentKey, 'content-type': 'application/json' };
    const flows = await (await fetch(`${base}/demo/flows/supported`, { headers: { "x-api-key": keys.environmentKey } })).json() as Array<{ id: string }>;
    expect(flows.map((f: { id: string }) => f.id)).toEqual(expect.arrayContaining(['demo-v1', 'demo-v2']));
    const link = await fetch(`${base}/demo/demo-v1/acme/linkedSources`, { method: 'POST', headers, body: JSON.stringify({ source: { tap: 'tap-sample', config: { api_key: 'demo' } } }) });
    expect(link.status).toBe(200);
    const job = await (await fetch(`${base}/demo/demo-v1/acme/jobs`, { method: 'POST', headers, body: JSON.stringify({ tap: 'tap-sample' }) })).json() as { status: string; job_id: string };
    expect(job.status).toBe('JOB_CREATED');
    const done = await waitFor('JOB_COMPLETED', async () => {
      const latest = await (await fetch(`${base}/demo/demo-v1/acme/jobs/latest`, { headers: { 'x-api-key': keys.environmentKey } })).json() as { status?: string; message?: string; job_id: string; processed_rows: number };
      if (latest.status?.endsWith('FAILED')) throw new Error(`job failed: ${latest.message}`);
      return latest.status === 'JOB_COMPLETED' ? latest : undefined;
    });
    expect(done.job_id).toBe(job.job_id);
    expect(done.processed_rows).toBe(300);
    const exportDir = path.join(dataDir, 'exports/demo/demo-v1/acme');
    expect(fs.readdirSync(exportDir).sort()).toEqual(['companies.jsonl', 'contacts.jsonl', 'deals.jsonl']);
    expect(fs.readFileSync(path.join(exportDir, 'contacts.jsonl'), 'utf8').trim().split('\n')).toHaveLength(100);
  });
});
