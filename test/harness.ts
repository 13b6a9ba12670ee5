// Test harness: a real Tapline (real database, real HTTP routes via inject) per
// store. Every suite runs on SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/bootstrap.ts';
import { loadConfig, type Config } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import { generateMasterKey } from '../src/crypto/secret-box.ts';

export type StoreName = 'sqlite' | 'postgres';

export interface Harness {
  readonly store: StoreName;
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  readonly operatorKey: string;
  readonly dataDir: string;
  /** Creates a fresh environment; returns its id and keys. */
  createEnv(prefix?: string): Promise<TestEnv>;
  request(opts: RequestOptions): Promise<LightMyRequestResponse>;
}

export interface TestEnv {
  readonly envId: string;
  readonly envKey: string;
  readonly publicKey: string;
}

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  url: string;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function uniqueId(prefix = 't'): string {
  return `${prefix}${crypto.randomBytes(5).toString('hex')}`;
}

export function availableStores(): StoreName[] {
  return inject('pgSchema') ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface HarnessOptions {
  readonly config?: Partial<Config>;
  readonly now?: () => number;
  /** A logger to inspect (defaults to a silent one). */
  readonly logger?: import('pino').Logger;
}

export async function startHarness(store: StoreName, opts: HarnessOptions = {}): Promise<Harness & { close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapline-test-'));
  const operatorKey = `tl_op_${crypto.randomBytes(24).toString('base64url')}`;
  const config = loadConfig({}, {
    dataDir,
    adminKey: operatorKey,
    secretKey: generateMasterKey(),
    databaseUrl: store === 'postgres' ? process.env.TEST_DATABASE_URL : undefined,
    logLevel: 'silent',
    webhookAllowPrivate: true,
    ...opts.config,
  });
  const ctx = await createContext(config, {
    logger: opts.logger ?? pino({ level: 'silent' }),
    pgSchema: store === 'postgres' ? inject('pgSchema') ?? undefined : undefined,
    now: opts.now,
  });
  const { ensureOperatorKey } = await import('../src/auth/operator-key.ts');
  await ensureOperatorKey(ctx);
  const app = await buildApp(ctx);
  const request = (r: RequestOptions) => app.inject({
    method: r.method,
    url: r.url,
    payload: r.body === undefined ? undefined : JSON.stringify(r.body),
    headers: {
      ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(r.key ? { 'x-api-key': r.key } : {}),
      ...r.headers,
    },
  });
  async function createEnv(prefix = 'env'): Promise<TestEnv> {
    const envId = uniqueId(prefix);
    const res = await request({ method: 'POST', url: '/admin/environments', key: operatorKey, body: { env_id: envId } });
    if (res.statusCode !== 200) throw new Error(`createEnv failed: ${res.statusCode} ${res.body}`);
    const body = res.json();
    return { envId, envKey: body.api_keys.environment, publicKey: body.api_keys.public };
  }
  async function close(): Promise<void> {
    await app.close();
    await ctx.db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return { store, ctx, app, operatorKey, dataDir, createEnv, request, close };
}

/** Runs `body` once per available store, with a harness started for the describe block. */
export function describeEachStore(name: string, body: (h: () => Harness) => void, opts: HarnessOptions = {}): void {
  for (const store of availableStores()) {
    describe(`${name} [${store}]`, () => {
      let harness: (Harness & { close(): Promise<void> }) | undefined;
      beforeAll(async () => {
        harness = await startHarness(store, opts);
      });
      afterAll(async () => {
        await harness?.close();
      });
      body(() => {
        if (!harness) throw new Error('harness not started');
        return harness;
      });
    });
  }
}
