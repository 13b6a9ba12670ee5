// Builds the AppContext from a Config: database (migrated), master key, logger.
// Shared by server, worker, CLI and tests so they all open the same data the same way.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { createSecretBox, generateMasterKey, parseMasterKey } from './crypto/secret-box.ts';
import { migrateToLatest, openDatabase } from './db/connect.ts';
import { createLogger } from './logging.ts';

export interface BootstrapOptions {
  readonly logger?: Logger;
  readonly now?: () => number;
  readonly pgSchema?: string;
  readonly migrate?: boolean;
}

/** Embedded mode keeps a generated master key in the data dir (mode 0600). */
export function masterKeyText(config: Config): string {
  if (config.secretKey) return config.secretKey;
  if (config.databaseUrl) throw new Error('TAPLINE_SECRET_KEY is required in PostgreSQL mode');
  const file = path.join(config.dataDir, 'secret-key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(config.dataDir, { recursive: true });
  const key = generateMasterKey();
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * Keys left in the data dir by an embedded `tapline secrets rotate` (the one being
 * rotated to, and the one rotated from): readable so that no crash point loses data.
 */
export function embeddedPreviousKeys(config: Config): string[] {
  if (config.secretKey || config.databaseUrl) return [];
  return ['secret-key.next', 'secret-key.previous']
    .map((name) => path.join(config.dataDir, name))
    .filter((file) => fs.existsSync(file))
    .map((file) => fs.readFileSync(file, 'utf8').trim());
}

export function sqliteFileOf(config: Config): string {
  return path.join(config.dataDir, 'tapline.db');
}

export async function createContext(config: Config, opts: BootstrapOptions = {}): Promise<AppContext> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const log = opts.logger ?? createLogger(config.logLevel);
  const db = openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: sqliteFileOf(config), pgSchema: opts.pgSchema });
  if (opts.migrate !== false) await migrateToLatest(db);
  const previous = [...config.previousSecretKeys, ...embeddedPreviousKeys(config)].map(parseMasterKey);
  const secrets = createSecretBox(parseMasterKey(masterKeyText(config)), previous);
  return { config, db, secrets, log, now: opts.now ?? Date.now };
}
