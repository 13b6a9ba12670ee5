// The real Tapline service for benches: `node <npm start's flags> src/server.ts` in
// embedded mode (SQLite; API, job worker, scheduler and webhook delivery in that one
// process) on a fresh data folder, driven over HTTP from the bench process. Its
// environment is the `demo` one a fresh embedded service creates; the catalog file
// given at start replaces that environment's catalog. Status-change webhooks go to
// a receiver in the bench: each event's timestamp is taken in the transaction of the
// change, so stage times need no polling.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeFlags } from './service-flags.ts';

export const ENV = 'demo';
const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));

export interface Service {
  pid: number;
  /** The Node flags the service runs with (those of `npm start`). */
  flags: string[];
  call<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T>;
  /** Time (ms) of a status of a job or of its discovery, from the webhooks received so far. */
  statusAt(jobId: string, status: string): number | undefined;
  stop(): Promise<void>;
}

interface Receiver {
  url: string;
  statusAt: Map<string, Map<string, number>>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const statusAt = new Map<string, Map<string, number>>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const event = JSON.parse(body) as { type: string; timestamp: string; data: { status?: string; job_id?: string | null } };
      const { job_id: jobId, status } = event.data;
      if (/^(job|discover)\.status_changed$/.test(event.type) && jobId && status) {
        const times = statusAt.get(jobId) ?? new Map<string, number>();
        times.set(status, Date.parse(event.timestamp));
        statusAt.set(jobId, times);
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, statusAt, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitReady(proc: ChildProcess, base: string, keysFile: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode} while starting`);
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ready && existsSync(keysFile)) return;
    if (tries > 600) throw new Error('service not ready after 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

/** Starts the service with its data in `dir`/data and `catalog` (a catalog document) applied. */
export async function startService(dir: string, catalog: Record<string, unknown>): Promise<Service> {
  const catalogFile = join(dir, 'catalog.json');
  await writeFile(catalogFile, JSON.stringify({ env_id: ENV, ...catalog }));
  const receiver = await startReceiver();
  const port = await freePort();
  const dataDir = join(dir, 'data');
  // A clean environment: nothing from the caller's shell (DATABASE_URL, ...) reaches the service.
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1',
    TAPLINE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', TAPLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const flags = serviceNodeFlags();
  const proc = spawn(process.execPath, [...flags, SERVER, '--catalog', catalogFile], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcess(proc);
    await receiver.close();
  };
  try {
    await waitReady(proc, base, join(dataDir, 'demo-keys.json'));
    const { environmentKey } = JSON.parse(await readFile(join(dataDir, 'demo-keys.json'), 'utf8')) as { environmentKey: string };
    const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}${path}`, {
        method, headers: { 'x-api-key': environmentKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    await call('PATCH', `/admin/environments/${ENV}`, { webhook_url: receiver.url });
    return { pid: proc.pid!, flags, call, statusAt: (jobId, status) => receiver.statusAt.get(jobId)?.get(status), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
