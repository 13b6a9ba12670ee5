// Helpers for the job integration tests (not shipped behaviour): an environment
// with the built-in and fixture connectors, a linked tenant, and waiting on jobs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { startJobWorker, type JobWorker } from './worker.ts';
import { systemEnvScope, systemTenantScope } from '../auth/scope.ts';
import { saveDiscoveredCatalog } from '../links/job-plan.ts';
import type { Harness, TestEnv } from '../../test/harness.ts';
import { isTerminal } from './status-table.ts';
import { jobStorageFor } from './storage.ts';

export const FIXTURES = fileURLToPath(new URL('../../connectors/fixtures/', import.meta.url));
const node = (script: string) => ({ command: process.execPath, args: [path.join(FIXTURES, script)] });

/** A tap that prints its config file to stderr and fails: proves the log redaction. */
const CONFIG_ECHO = { command: '/bin/sh', args: ['-c', 'cat "$2" >&2; echo >&2; exit 1', 'sh'] };

export function tempDir(prefix = 'tapline-jobs-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface JobEnv extends TestEnv {
  /** Where target-jsonl writes for flow `f1`. */
  out: string;
  url(flow: string, tenant: string, suffix?: string): string;
}

/**
 * Sources, targets, connectors and flows every job test uses. No discovery at link time
 * (`discover_on_link: false`): the jobs discover themselves, deterministically, and the
 * fixture taps that cannot discover never run in the background.
 */
export function catalogDocument(out: string, extraFlows: unknown[] = []) {
  const manual = { discover_on_link: false };
  return {
    availableSources: [
      { tap: 'tap-sample', run: { builtin: 'tap-sample' }, config: { record_count: 20 }, ...manual },
      { tap: 'tap-fail', run: node('tap-fail.mjs'), ...manual },
      { tap: 'tap-slow', run: node('tap-slow.mjs'), config: { interval_ms: 50 }, ...manual },
      { tap: 'tap-malformed', run: node('tap-malformed.mjs'), ...manual },
      { tap: 'tap-python', run: { command: 'python3', args: [path.join(FIXTURES, 'tap-python.py')] }, ...manual },
      { tap: 'tap-echo', run: CONFIG_ECHO, ...manual },
    ],
    availableTargets: [
      { target: 'target-jsonl', run: { builtin: 'target-jsonl' } },
      { target: 'target-fail', run: node('target-fail.mjs') },
    ],
    availableConnectors: [
      { id: 'sample', read: { builtin: 'tap-sample' }, write: { builtin: 'target-jsonl' }, config: { record_count: 10 }, ...manual },
    ],
    flows: [
      { id: 'f1', taps: ['tap-sample', 'tap-fail', 'tap-slow', 'tap-malformed', 'tap-python', 'tap-echo'], targets: ['target-jsonl', 'target-fail'],
        export: { target: 'target-jsonl', config: { destination_path: out } } },
      { id: 'f2', version: 2, connectors: ['sample'],
        export: { read: { connector: 'sample', config: { destination_path: path.join(out, 'v2-read') } } } },
      { id: 'noexport', taps: ['tap-sample'] },
      ...extraFlows,
    ],
  };
}

export async function setupJobEnv(h: Harness, extraFlows: unknown[] = []): Promise<JobEnv> {
  const env = await h.createEnv('jobs');
  const out = tempDir('tapline-out-');
  const doc = catalogDocument(out, extraFlows);
  const res = await h.request({ method: 'PUT', url: `/admin/environments/${env.envId}/catalog`, key: env.envKey, body: doc });
  if (res.statusCode !== 200) throw new Error(`catalog: ${res.statusCode} ${res.body}`);
  return { ...env, out, url: (flow, tenant, suffix = '') => `/${env.envId}/${flow}/${tenant}/jobs${suffix}` };
}

export async function linkSource(h: Harness, env: TestEnv, flow: string, tenant: string, tap: string, config: Record<string, unknown> = {}, fieldMap?: unknown) {
  const res = await h.request({
    method: 'POST', url: `/${env.envId}/${flow}/${tenant}/linkedSources`, key: env.envKey,
    body: { source: { tap, config }, ...(fieldMap === undefined ? {} : { field_map: fieldMap }) },
  });
  if (res.statusCode !== 200) throw new Error(`link ${tap}: ${res.statusCode} ${res.body}`);
}

export async function runJob(h: Harness, env: JobEnv, flow: string, tenant: string, body: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await h.request({ method: 'POST', url: env.url(flow, tenant), key: env.envKey, body, headers });
  if (res.statusCode !== 200) throw new Error(`run job: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function jobStatus(h: Harness, env: JobEnv, flow: string, tenant: string, root: string) {
  const res = await h.request({ method: 'GET', url: `${env.url(flow, tenant, '/status')}?job_root=${encodeURIComponent(root)}`, key: env.envKey });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** Polls until `done(job)` (default: a terminal status); fails after `timeoutMs`. */
export async function waitForJob(h: Harness, env: JobEnv, flow: string, tenant: string, root: string,
  done: (job: any) => boolean = (job) => isTerminal(job.status), timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobStatus(h, env, flow, tenant, root);
    if (done(job)) return job;
    if (Date.now() > until) throw new Error(`job ${root} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The statuses a job went through, from its webhook events (the env must have a webhook_url). */
export async function statusPath(h: Harness, jobId: string): Promise<string[]> {
  const rows = await h.ctx.db.kysely.selectFrom('webhook_events').select('payload')
    .where('ordering_key', '=', `job:${jobId}`).where('event_type', '=', 'job.status_changed').orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.payload).data.status);
}

/** The job's events of both types, in order, as `type:status`. */
export async function eventPath(h: Harness, jobId: string): Promise<string[]> {
  const rows = await h.ctx.db.kysely.selectFrom('webhook_events').select(['event_type', 'payload'])
    .where('ordering_key', '=', `job:${jobId}`).orderBy('id').execute();
  return rows.map((r) => `${r.event_type === 'job.status_changed' ? 'job' : 'discover'}:${JSON.parse(r.payload).data.status}`);
}

export async function enableWebhookEvents(h: Harness, env: TestEnv): Promise<void> {
  const res = await h.request({ method: 'PATCH', url: `/admin/environments/${env.envId}`, key: env.envKey, body: { webhook_url: 'http://127.0.0.1:9/hook' } });
  if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
}

export async function storedState(h: Harness, env: TestEnv, flow: string, tenant: string, kind = 'source'): Promise<unknown> {
  const row = await h.ctx.db.kysely.selectFrom('links').select('state')
    .where('env_id', '=', env.envId).where('flow_id', '=', flow).where('tenant', '=', tenant).where('kind', '=', kind).executeTakeFirst();
  return row?.state ? JSON.parse(row.state) : null;
}

export function readJsonl(file: string): any[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** Every file below `dir`, recursively. */
export function filesBelow(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

export const ITEMS_CATALOG = { streams: [{ tap_stream_id: 'items', stream: 'items', schema: { type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string' } } }, metadata: [] }] };

/** Links tap-slow (flow f1) with a stored catalog: it cannot discover. */
export async function linkSlowTap(h: Harness, env: JobEnv, tenant: string, config: Record<string, unknown> = {}) {
  await linkSource(h, env, 'f1', tenant, 'tap-slow', config);
  await saveDiscoveredCatalog(h.ctx.db.kysely, systemTenantScope(env.envId, tenant), 'f1', { kind: 'source', name: 'tap-slow' }, ITEMS_CATALOG);
}

/** Polls `probe` until it gives a value (not undefined/false). */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Local folder of a job's storage root. */
export function jobDir(h: Harness, env: TestEnv, root: string): string {
  return jobStorageFor(h.ctx, systemEnvScope(env.envId)).localDir!(root);
}

/** A fresh job environment with webhook events on and a job worker serving only it. */
export async function startWorkingJobEnv(h: Harness): Promise<{ env: JobEnv; worker: JobWorker }> {
  const env = await setupJobEnv(h);
  await enableWebhookEvents(h, env);
  return { env, worker: startJobWorker(h.ctx, { envIds: [env.envId] }) };
}
