// `tapline secrets rotate`: re-seals every encrypted column with the current master
// key, so previous keys can be dropped from TAPLINE_PREVIOUS_SECRET_KEYS afterwards.
// Each update is a compare-and-set on the old ciphertext, so a concurrent change wins.
import type { Kysely } from 'kysely';
import { resealFlowSpec } from '../catalog/store.ts';
import type { AppContext } from '../context.ts';
import type { SecretBox } from './secret-box.ts';

interface SealedColumn {
  table: string;
  column: string;
  key: string[];
  /** New stored text, or null when the value is already sealed with the current key. */
  reseal: (secrets: SecretBox, value: string) => string | null;
}

function resealCiphertext(secrets: SecretBox, value: string): string | null {
  return secrets.isStale(value) ? secrets.seal(secrets.open(value)) : null;
}

const plain = (table: string, column: string, key: string[]): SealedColumn => ({ table, column, key, reseal: resealCiphertext });

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  plain('links', 'config_enc', ['env_id', 'flow_id', 'tenant', 'kind', 'name']),
  plain('catalog_entries', 'secrets_enc', ['env_id', 'kind', 'name']),
  plain('environments', 'webhook_secrets_enc', ['env_id']),
  plain('jobs', 'request_enc', ['job_id']),
  plain('queued_jobs', 'request_enc', ['id']),
  plain('schedules', 'overrides_enc', ['id']),
  plain('webhook_events', 'secrets_enc', ['id']),
  // Flow export configs are sealed inside the spec JSON (member configs_enc).
  { table: 'flows', column: 'spec', key: ['env_id', 'flow_id'], reseal: resealFlowSpec },
];

export interface ColumnReport {
  scanned: number;
  resealed: number;
  /** Sealed with a key that is not configured (neither current nor previous): left as is. */
  unreadable: number;
}

const BATCH = 500;

async function rotateColumn(db: Kysely<any>, secrets: SecretBox, col: SealedColumn): Promise<ColumnReport> {
  const report: ColumnReport = { scanned: 0, resealed: 0, unreadable: 0 };
  for (let offset = 0; ; offset += BATCH) {
    let query = db.selectFrom(col.table).select([...col.key, col.column]).where(col.column, 'is not', null);
    for (const k of col.key) query = query.orderBy(k);
    const rows = await query.limit(BATCH).offset(offset).execute();
    for (const row of rows) {
      report.scanned += 1;
      const old = row[col.column] as string;
      let next: string | null;
      try {
        next = col.reseal(secrets, old);
      } catch {
        report.unreadable += 1;
        continue;
      }
      if (next === null) continue;
      let update = db.updateTable(col.table).set({ [col.column]: next }).where(col.column, '=', old);
      for (const k of col.key) update = update.where(k, '=', row[k]);
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) report.resealed += 1;
    }
    if (rows.length < BATCH) return report;
  }
}

/** Re-seals every sealed value with the current key; returns a report per `table.column`. */
export async function rotateSecrets(ctx: AppContext): Promise<Record<string, ColumnReport>> {
  const reports: Record<string, ColumnReport> = {};
  for (const col of SEALED_COLUMNS) {
    reports[`${col.table}.${col.column}`] = await rotateColumn(ctx.db.kysely as Kysely<any>, ctx.secrets, col);
  }
  return reports;
}
