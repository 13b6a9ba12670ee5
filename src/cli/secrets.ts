// `tapline secrets rotate`: re-seal every stored credential under the current master key.
// Embedded mode generates the new key itself; PostgreSQL mode rotates to TAPLINE_SECRET_KEY
// while TAPLINE_PREVIOUS_SECRET_KEYS still opens the old ciphertexts.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { createSecretBox, generateMasterKey, parseMasterKey } from '../crypto/secret-box.ts';
import { rotateSecrets } from '../crypto/rotate.ts';
import { print, withContext, type OpenContext } from './admin.ts';

function unreadableCount(report: Record<string, { unreadable?: number }>): number {
  return Object.values(report).reduce((sum, column) => sum + (column.unreadable ?? 0), 0);
}

/** Embedded: new key written beside the old one first, so a crash at any point loses nothing. */
async function rotateEmbedded(ctx: AppContext, config: Config) {
  const current = path.join(config.dataDir, 'secret-key');
  const next = path.join(config.dataDir, 'secret-key.next');
  const newKey = generateMasterKey();
  fs.writeFileSync(next, `${newKey}\n`, { mode: 0o600 });
  const oldKey = fs.readFileSync(current, 'utf8').trim();
  const box = createSecretBox(parseMasterKey(newKey), [parseMasterKey(oldKey), ...config.previousSecretKeys.map(parseMasterKey)]);
  const report = await rotateSecrets({ ...ctx, secrets: box });
  fs.renameSync(current, path.join(config.dataDir, 'secret-key.previous'));
  fs.renameSync(next, current);
  return report;
}

export function registerSecretCommands(program: Command, open: OpenContext, config: Config): void {
  const secrets = program.command('secrets').description('master key operations');
  secrets.command('rotate')
    .description('re-encrypt every stored credential under the current master key (embedded: generates a new key)')
    .action(() => withContext(open, async (ctx) => {
      const embedded = !config.secretKey && !config.databaseUrl;
      const report = embedded ? await rotateEmbedded(ctx, config) : await rotateSecrets(ctx);
      print({ key_id: embedded ? 'new key in secret-key' : ctx.secrets.currentKeyId, columns: report });
      if (unreadableCount(report) > 0) {
        console.error('Some values could not be opened with the configured keys; they were left unchanged.');
        process.exitCode = 1;
      }
    }));
}
