// Webhook bench: (1) the latency a job status change gains when webhooks are on
// (the event is written to the outbox in the same transaction), and (2) events
// per second the delivery worker gets to a local receiver. Usage:
//   npm run bench:webhooks [-- --changes 2000] [--events 5000] [--pg postgres://...]
// Without --pg it runs on embedded SQLite in a temporary directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { systemEnvScope, type EnvScope } from '../src/auth/scope.ts';
import { createContext } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { generateMasterKey } from '../src/crypto/secret-box.ts';
import { createEnvironment, updateEnvironmentSettings } from '../src/environments/service.ts';
import { transitionJob, type JobStatus } from '../src/jobs/status.ts';
import { recordEvent } from '../src/webhooks/outbox.ts';
import { HAPPY_PATH, insertJobRow } from '../src/webhooks/testing/job-row.ts';
import { startWebhookDelivery } from '../src/webhooks/worker.ts';

const GOAL_ADDED_MEDIAN_MS = 1;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function stats(samples: number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function openContext(pgUrl: string | undefined): Promise<{ ctx: AppContext; cleanup: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-bench-webhooks-'));
  const schema = `bench_webhooks_${process.pid}`;
  if (pgUrl) await withPg(pgUrl, `CREATE SCHEMA ${schema}`);
  const config = loadConfig({}, {
    dataDir, databaseUrl: pgUrl, secretKey: generateMasterKey(), logLevel: 'silent', webhookAllowPrivate: true,
  });
  const ctx = await createContext(config, { logger: pino({ level: 'silent' }), pgSchema: pgUrl ? schema : undefined });
  return {
    ctx,
    cleanup: async () => {
      await ctx.db.close();
      if (pgUrl) await withPg(pgUrl, `DROP SCHEMA ${schema} CASCADE`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withPg(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(statement);
  await client.end();
}

async function newEnv(ctx: AppContext, id: string, webhookUrl: string | null): Promise<EnvScope> {
  await createEnvironment(ctx, id);
  const scope = systemEnvScope(id);
  if (webhookUrl) await updateEnvironmentSettings(ctx, scope, { webhook_url: webhookUrl, webhook_secret: 'bench-webhook-secret' });
  return scope;
}

/** The same status change without any outbox involvement (for reference). */
async function plainUpdate(ctx: AppContext, scope: EnvScope, jobId: string, from: JobStatus, to: JobStatus): Promise<void> {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('jobs').set({ status: to, last_updated: ctx.now() })
      .where('env_id', '=', scope.envId).where('job_id', '=', jobId).where('status', '=', from).returningAll().executeTakeFirst();
  });
}

/** Interleaves on/off/plain changes so drift (cache, WAL growth) hits all three alike. */
async function measureStatusChanges(ctx: AppContext, changes: number, receiverUrl: string) {
  const on = await newEnv(ctx, 'bench-on', receiverUrl);
  const off = await newEnv(ctx, 'bench-off', null);
  const plain = await newEnv(ctx, 'bench-plain', null);
  const samples = { on: [] as number[], off: [] as number[], plain: [] as number[] };
  const warmup = 7 * 20;
  const jobs = Math.ceil((changes + warmup) / (HAPPY_PATH.length - 1));
  let done = 0;
  for (let j = 0; j < jobs; j += 1) {
    for (const scope of [on, off, plain]) await insertJobRow(ctx, scope, `${scope.envId}-job${j}`);
    for (let step = 1; step < HAPPY_PATH.length; step += 1) {
      const [from, to] = [HAPPY_PATH[step - 1], HAPPY_PATH[step]];
      const timed = async (bucket: number[], change: () => Promise<unknown>) => {
        const started = performance.now();
        await change();
        if (done >= warmup) bucket.push(performance.now() - started);
      };
      await timed(samples.on, () => transitionJob(ctx.db.kysely, ctx, on, `${on.envId}-job${j}`, from, to, { message: `to ${to}` }));
      await timed(samples.off, () => transitionJob(ctx.db.kysely, ctx, off, `${off.envId}-job${j}`, from, to, { message: `to ${to}` }));
      await timed(samples.plain, () => plainUpdate(ctx, plain, `${plain.envId}-job${j}`, from, to));
      done += 1;
    }
  }
  const recorded = await ctx.db.kysely.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('env_id', '=', on.envId).executeTakeFirstOrThrow();
  return { on: stats(samples.on), off: stats(samples.off), plain: stats(samples.plain), count: samples.on.length, recorded: Number(recorded.n) };
}

/** A receiver in its own process, as in production: the worker's figures are not shared with it. */
async function startReceiverProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--receiver'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (c: Buffer) => resolve(Number(String(c).trim())));
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

async function runReceiver(): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

async function deliveredCount(ctx: AppContext, envId: string): Promise<number> {
  const row = await ctx.db.kysely.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('env_id', '=', envId).where('status', '=', 'delivered').executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Records `keys` x `perKey` events, then times the worker delivering all of them. */
async function measureThroughput(ctx: AppContext, envId: string, receiverUrl: string, keys: number, perKey: number) {
  const scope = await newEnv(ctx, envId, receiverUrl);
  const total = keys * perKey;
  for (let seq = 0; seq < perKey; seq += 1) {
    await ctx.db.kysely.transaction().execute(async (trx) => {
      for (let k = 0; k < keys; k += 1) {
        await recordEvent(trx, ctx, scope, { type: 'job.status_changed', orderingKey: `job:${k}`, data: { job_id: `job${k}`, seq, status: 'SYNC_STARTED' } });
      }
    });
  }
  const started = performance.now();
  const worker = startWebhookDelivery(ctx, { envIds: [envId], concurrency: 32, perEndpointConcurrency: 32 });
  while ((await deliveredCount(ctx, envId)) < total) await new Promise((resolve) => setTimeout(resolve, 100));
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  return { total, seconds, perSecond: total / seconds };
}

async function main(): Promise<void> {
  const changes = Number(argValue('--changes') ?? 2000);
  const events = Number(argValue('--events') ?? 5000);
  const pgUrl = argValue('--pg');
  const { ctx, cleanup } = await openContext(pgUrl);
  const sink = await startReceiverProcess();
  try {
    const store = pgUrl ? 'PostgreSQL' : 'SQLite';
    const latency = await measureStatusChanges(ctx, changes, sink.url);
    const spread = await measureThroughput(ctx, 'bench-many', sink.url, 100, Math.max(1, Math.round(events / 100)));
    const serial = await measureThroughput(ctx, 'bench-one', sink.url, 1, Math.max(1, Math.round(events / 5)));
    const ms = (n: number) => n.toFixed(3);
    const added = latency.on.median - latency.off.median;
    console.log(`## Webhooks bench (${store}, Node ${process.version})\n`);
    console.log(`Job status change (transitionJob, one transaction), ${latency.count} changes each, interleaved:\n`);
    console.log('| variant | median ms | p99 ms |\n|---|---:|---:|');
    console.log(`| webhooks on (event written to the outbox) | ${ms(latency.on.median)} | ${ms(latency.on.p99)} |`);
    console.log(`| webhooks off (no webhook configured) | ${ms(latency.off.median)} | ${ms(latency.off.p99)} |`);
    console.log(`| plain UPDATE in a transaction (no outbox code) | ${ms(latency.plain.median)} | ${ms(latency.plain.p99)} |`);
    console.log(`\nAdded median latency, on vs off: ${ms(added)} ms (goal < ${GOAL_ADDED_MEDIAN_MS} ms: ${added < GOAL_ADDED_MEDIAN_MS ? 'met' : 'NOT met'}); events recorded: ${latency.recorded}\n`);
    console.log('Delivery to a local receiver in another process (signed, fresh connection per attempt, worker concurrency 32):\n');
    console.log('| ordering keys | events | seconds | events/s |\n|---:|---:|---:|---:|');
    for (const [keys, t] of [[100, spread], [1, serial]] as const) {
      console.log(`| ${keys} | ${t.total} | ${t.seconds.toFixed(2)} | ${Math.round(t.perSecond).toLocaleString('en-US')} |`);
    }
  } finally {
    sink.stop();
    await cleanup();
  }
}

if (process.argv.includes('--receiver')) await runReceiver();
else await main();
