// Catalog entries and flows of one environment. Every function takes an EnvScope
// and filters by it. Secrets (OAuth client secrets, export configs) are sealed here.
import type { Kysely } from 'kysely';
import type { EnvScope } from '../auth/scope.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/types.ts';
import type { CatalogEntry, CatalogKind, CatalogSecrets, ExportSide, FlowSpec } from './types.ts';

type Db = Kysely<Database>;

export interface StoredEntry {
  entry: CatalogEntry;
  /** Sealed secrets; open with openEntrySecrets only where needed (OAuth revocation). */
  secretsEnc: string | null;
}

export async function putEntry(db: Db, scope: EnvScope, entry: CatalogEntry, secretsEnc: string | null | undefined, now: number): Promise<void> {
  const existing = await db.selectFrom('catalog_entries').select('secrets_enc')
    .where('env_id', '=', scope.envId).where('kind', '=', entry.kind).where('name', '=', entry.name).executeTakeFirst();
  // undefined keeps the stored secret (an operator re-putting an entry need not resend it).
  const sealed = secretsEnc === undefined ? existing?.secrets_enc ?? null : secretsEnc;
  if (existing) {
    await db.updateTable('catalog_entries').set({ entry: JSON.stringify(entry), secrets_enc: sealed, updated_at: now })
      .where('env_id', '=', scope.envId).where('kind', '=', entry.kind).where('name', '=', entry.name).execute();
    return;
  }
  await db.insertInto('catalog_entries').values({
    env_id: scope.envId, kind: entry.kind, name: entry.name, entry: JSON.stringify(entry),
    secrets_enc: sealed, created_at: now, updated_at: now,
  }).execute();
}

export async function getEntry(db: Db, scope: EnvScope, kind: CatalogKind, name: string): Promise<StoredEntry | null> {
  const row = await db.selectFrom('catalog_entries').select(['entry', 'secrets_enc'])
    .where('env_id', '=', scope.envId).where('kind', '=', kind).where('name', '=', name).executeTakeFirst();
  return row ? { entry: JSON.parse(row.entry) as CatalogEntry, secretsEnc: row.secrets_enc } : null;
}

export async function listEntries(db: Db, scope: EnvScope, kind: CatalogKind): Promise<StoredEntry[]> {
  const rows = await db.selectFrom('catalog_entries').select(['entry', 'secrets_enc'])
    .where('env_id', '=', scope.envId).where('kind', '=', kind).orderBy('name').execute();
  return rows.map((row) => ({ entry: JSON.parse(row.entry) as CatalogEntry, secretsEnc: row.secrets_enc }));
}

export async function deleteEntry(db: Db, scope: EnvScope, kind: CatalogKind, name: string): Promise<boolean> {
  const result = await db.deleteFrom('catalog_entries')
    .where('env_id', '=', scope.envId).where('kind', '=', kind).where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteAllEntries(db: Db, scope: EnvScope): Promise<number> {
  const result = await db.deleteFrom('catalog_entries').where('env_id', '=', scope.envId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function openEntrySecrets(secrets: SecretBox, stored: StoredEntry): CatalogSecrets {
  return stored.secretsEnc ? secrets.openJson<CatalogSecrets>(stored.secretsEnc) : {};
}

// --- flows: export configs may hold credentials, so they are sealed inside the spec JSON.

interface StoredFlowSpec extends Omit<FlowSpec, 'export' | 'readExport' | 'writeSource'> {
  export: { name: string } | null;
  readExport: { name: string } | null;
  writeSource: { name: string } | null;
  /** Sealed { export, readExport, writeSource } configs. */
  configs_enc: string | null;
}

type SideKey = 'export' | 'readExport' | 'writeSource';
const SIDES: readonly SideKey[] = ['export', 'readExport', 'writeSource'];

function sealFlow(secrets: SecretBox, flow: FlowSpec): StoredFlowSpec {
  const configs: Partial<Record<SideKey, Record<string, unknown>>> = {};
  for (const side of SIDES) if (flow[side]) configs[side] = (flow[side] as ExportSide).config;
  const name = (side: SideKey) => (flow[side] ? { name: (flow[side] as ExportSide).name } : null);
  return {
    ...flow,
    export: name('export'), readExport: name('readExport'), writeSource: name('writeSource'),
    configs_enc: Object.keys(configs).length > 0 ? secrets.sealJson(configs) : null,
  };
}

function openFlow(secrets: SecretBox, text: string): FlowSpec {
  const stored = JSON.parse(text) as StoredFlowSpec;
  const configs = stored.configs_enc ? secrets.openJson<Partial<Record<SideKey, Record<string, unknown>>>>(stored.configs_enc) : {};
  const { configs_enc: _sealed, ...rest } = stored;
  const side = (key: SideKey): ExportSide | null => (stored[key] ? { name: stored[key].name, config: configs[key] ?? {} } : null);
  return { ...rest, export: side('export'), readExport: side('readExport'), writeSource: side('writeSource') };
}

/** Re-seals a stored flow spec with the current key (for `tapline secrets rotate`); null when nothing to do. */
export function resealFlowSpec(secrets: SecretBox, text: string): string | null {
  const stored = JSON.parse(text) as StoredFlowSpec;
  if (!stored.configs_enc || !secrets.isStale(stored.configs_enc)) return null;
  return JSON.stringify({ ...stored, configs_enc: secrets.seal(secrets.open(stored.configs_enc)) });
}

export async function putFlow(db: Db, secrets: SecretBox, scope: EnvScope, flow: FlowSpec, now: number): Promise<void> {
  const spec = JSON.stringify(sealFlow(secrets, flow));
  const updated = await db.updateTable('flows').set({ spec, updated_at: now })
    .where('env_id', '=', scope.envId).where('flow_id', '=', flow.id).executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return;
  await db.insertInto('flows').values({ env_id: scope.envId, flow_id: flow.id, spec, created_at: now, updated_at: now }).execute();
}

export async function getFlow(db: Db, secrets: SecretBox, scope: EnvScope, flowId: string): Promise<FlowSpec | null> {
  const row = await db.selectFrom('flows').select('spec')
    .where('env_id', '=', scope.envId).where('flow_id', '=', flowId).executeTakeFirst();
  return row ? openFlow(secrets, row.spec) : null;
}

export async function listFlows(db: Db, secrets: SecretBox, scope: EnvScope): Promise<FlowSpec[]> {
  const rows = await db.selectFrom('flows').select('spec').where('env_id', '=', scope.envId).orderBy('flow_id').execute();
  return rows.map((row) => openFlow(secrets, row.spec));
}

export async function deleteFlow(db: Db, scope: EnvScope, flowId: string): Promise<boolean> {
  const result = await db.deleteFrom('flows').where('env_id', '=', scope.envId).where('flow_id', '=', flowId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteAllFlows(db: Db, scope: EnvScope): Promise<number> {
  const result = await db.deleteFrom('flows').where('env_id', '=', scope.envId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
