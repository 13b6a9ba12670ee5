// The only module that reads process.env. Everything else receives a frozen Config.
import path from 'node:path';
import { CONNECTOR_BASE_ENV_KEYS } from './runner/env.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type Role = 'all' | 'api' | 'worker';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** undefined: embedded SQLite file in dataDir; otherwise a postgres:// URL. */
  readonly databaseUrl: string | undefined;
  readonly adminKey: string | undefined;
  /** Master key for credential encryption; undefined means "generate into dataDir" (embedded only). */
  readonly secretKey: string | undefined;
  /** Previous master keys still accepted for decryption during a rotation. */
  readonly previousSecretKeys: readonly string[];
  readonly logLevel: LogLevel;
  readonly bodyLimitBytes: number;
  /** Global CORS allow-list; '*' allows any origin. Environments may add their own. */
  readonly corsOrigins: readonly string[];
  readonly role: Role;
  readonly workerConcurrency: number;
  readonly envConcurrency: number;
  readonly stageTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly workerLostAfterMs: number;
  readonly schedulerTickMs: number;
  readonly webhookAllowPrivate: boolean;
  readonly webhookTimeoutMs: number;
  readonly webhookConcurrency: number;
  readonly webhookRetryBaseMs: number;
  readonly webhookRetryMaxMs: number;
  readonly webhookRetryWindowMs: number;
  readonly webhookRetentionDays: number;
  readonly jwtClockSkewSeconds: number;
  /** The only variables of ours a connector process inherits (plus its job's own). */
  readonly connectorBaseEnv: Readonly<Record<string, string>>;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ROLES: readonly Role[] = ['all', 'api', 'worker'];

class Reader {
  readonly problems: string[] = [];
  private readonly env: Env;
  constructor(env: Env) {
    this.env = env;
  }

  string(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
    if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
    this.problems.push(`${name}: expected true or false, got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name}: expected one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }
}

function checkDatabaseUrl(reader: Reader, url: string | undefined): void {
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    reader.problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL (unset it for embedded SQLite)');
  }
}

function checkSecretKey(reader: Reader, name: string, key: string | undefined): void {
  if (key !== undefined && !isValidMasterKey(key)) {
    reader.problems.push(`${name}: expected 32 bytes as 64 hex characters or base64`);
  }
}

export function isValidMasterKey(key: string): boolean {
  if (/^[0-9a-fA-F]{64}$/.test(key)) return true;
  return Buffer.from(key, 'base64').length === 32 && /^[A-Za-z0-9+/=_-]+$/.test(key);
}

/** Reads and validates configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const r = new Reader(env);
  const databaseUrl = r.string('DATABASE_URL');
  checkDatabaseUrl(r, databaseUrl);
  const secretKey = r.string('TAPLINE_SECRET_KEY');
  checkSecretKey(r, 'TAPLINE_SECRET_KEY', secretKey);
  const previousSecretKeys = (r.string('TAPLINE_PREVIOUS_SECRET_KEYS') ?? '').split(',').filter(Boolean);
  previousSecretKeys.forEach((k) => checkSecretKey(r, 'TAPLINE_PREVIOUS_SECRET_KEYS', k));
  if (databaseUrl !== undefined && secretKey === undefined && overrides.secretKey === undefined) {
    r.problems.push('TAPLINE_SECRET_KEY: required when DATABASE_URL is set (PostgreSQL mode)');
  }
  const adminKey = r.string('TAPLINE_ADMIN_KEY');
  if (adminKey !== undefined && adminKey.length < 24) {
    r.problems.push('TAPLINE_ADMIN_KEY: must be at least 24 characters');
  }
  const config: Config = {
    port: r.int('PORT', 8080, 0, 65535),
    host: r.string('HOST') ?? '0.0.0.0',
    dataDir: path.resolve(r.string('TAPLINE_DATA_DIR') ?? './data'),
    databaseUrl,
    adminKey,
    secretKey,
    previousSecretKeys,
    logLevel: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimitBytes: r.int('TAPLINE_BODY_LIMIT', 1024 * 1024, 1024, 256 * 1024 * 1024),
    corsOrigins: (r.string('TAPLINE_CORS_ORIGINS') ?? '*').split(',').map((s) => s.trim()).filter(Boolean),
    role: r.oneOf('TAPLINE_ROLE', ROLES, 'all'),
    workerConcurrency: r.int('TAPLINE_WORKER_CONCURRENCY', 4, 1, 1000),
    envConcurrency: r.int('TAPLINE_ENV_CONCURRENCY', 4, 1, 1000),
    stageTimeoutMs: r.int('TAPLINE_STAGE_TIMEOUT_MS', 6 * 3600_000, 1000, 7 * 24 * 3600_000),
    heartbeatMs: r.int('TAPLINE_HEARTBEAT_MS', 5000, 100, 600_000),
    workerLostAfterMs: r.int('TAPLINE_WORKER_LOST_AFTER_MS', 30_000, 500, 3600_000),
    schedulerTickMs: r.int('TAPLINE_SCHEDULER_TICK_MS', 1000, 50, 60_000),
    webhookAllowPrivate: r.bool('TAPLINE_WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutMs: r.int('TAPLINE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookConcurrency: r.int('TAPLINE_WEBHOOK_CONCURRENCY', 16, 1, 1000),
    webhookRetryBaseMs: r.int('TAPLINE_WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3600_000),
    webhookRetryMaxMs: r.int('TAPLINE_WEBHOOK_RETRY_MAX_MS', 2 * 3600_000, 10, 24 * 3600_000),
    webhookRetryWindowMs: r.int('TAPLINE_WEBHOOK_RETRY_WINDOW_MS', 24 * 3600_000, 1000, 7 * 24 * 3600_000),
    webhookRetentionDays: r.int('TAPLINE_WEBHOOK_RETENTION_DAYS', 14, 0, 3650),
    jwtClockSkewSeconds: r.int('TAPLINE_JWT_CLOCK_SKEW_SECONDS', 30, 0, 600),
    connectorBaseEnv: connectorBaseEnv(env),
    ...overrides,
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return Object.freeze(config);
}

/** The values of our environment a connector process may inherit (allow-list in runner/env.ts). */
export function connectorBaseEnv(env: Env = process.env): Readonly<Record<string, string>> {
  const base: Record<string, string> = {};
  for (const name of CONNECTOR_BASE_ENV_KEYS) {
    const value = env[name];
    if (value !== undefined) base[name] = value;
  }
  return Object.freeze(base);
}
