// What every service receives: explicit dependencies, built once by the entry point.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Db } from './db/connect.ts';

export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly log: Logger;
  /** Epoch milliseconds; tests pass a controllable clock. */
  readonly now: () => number;
}
