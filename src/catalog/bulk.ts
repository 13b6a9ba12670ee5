// The whole catalog of an environment as one document — the admin bulk PUT, the
// `--catalog file.json` start option and `tapline catalog load` all use it. Applying
// it replaces the catalog: entries and flows it does not list are removed.
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { BadRequestError } from '../errors.ts';
import { parseFlow } from './flow-validate.ts';
import { flowReferenceProblems } from './references.ts';
import { keepFlowSecrets, listAdminEntries, listAdminFlows, requireEnvironment } from './service.ts';
import * as store from './store.ts';
import type { CatalogEntry, CatalogKind, CatalogSecrets, FlowSpec } from './types.ts';
import { parseCatalogEntry } from './validate.ts';

export interface CatalogDocument {
  availableSources?: unknown[];
  availableTargets?: unknown[];
  availableConnectors?: unknown[];
  flows?: unknown[];
}

const SECTIONS: ReadonlyArray<[keyof CatalogDocument, CatalogKind]> = [
  ['availableSources', 'source'], ['availableTargets', 'target'], ['availableConnectors', 'connector'],
];

interface ParsedDocument {
  entries: Array<{ entry: CatalogEntry; secrets: CatalogSecrets | null }>;
  flows: FlowSpec[];
}

function section(doc: CatalogDocument, key: keyof CatalogDocument): unknown[] {
  const value = doc[key] ?? [];
  if (!Array.isArray(value)) throw new BadRequestError(`"${key}" must be an array`);
  return value;
}

/** Validates every entry and flow (and the flows' references) before anything is stored. */
export function parseCatalogDocument(doc: unknown): ParsedDocument {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new BadRequestError('The catalog must be a JSON object');
  const problems: string[] = [];
  const entries: ParsedDocument['entries'] = [];
  const seen = new Set<string>();
  for (const [key, kind] of SECTIONS) {
    section(doc as CatalogDocument, key).forEach((input, i) => {
      try {
        const parsed = parseCatalogEntry(kind, input);
        if (seen.has(`${kind}:${parsed.entry.name}`)) throw new Error(`"${parsed.entry.name}" is listed twice`);
        seen.add(`${kind}:${parsed.entry.name}`);
        entries.push(parsed);
      } catch (error) {
        problems.push(`${key}[${i}]: ${(error as Error).message}`);
      }
    });
  }
  const flows: FlowSpec[] = [];
  section(doc as CatalogDocument, 'flows').forEach((input, i) => {
    try {
      const flow = parseFlow(input);
      if (flows.some((f) => f.id === flow.id)) throw new Error(`flow "${flow.id}" is listed twice`);
      flows.push(flow);
    } catch (error) {
      problems.push(`flows[${i}]: ${(error as Error).message}`);
    }
  });
  const byKey = new Map(entries.map((e) => [`${e.entry.kind}:${e.entry.name}`, e.entry]));
  for (const flow of flows) problems.push(...flowReferenceProblems(flow, (kind, name) => byKey.get(`${kind}:${name}`)));
  if (problems.length > 0) throw new BadRequestError(`Invalid catalog: ${problems.slice(0, 10).join('; ')}`);
  return { entries, flows };
}

export interface ApplySummary {
  status: 'applied';
  availableSources: number;
  availableTargets: number;
  availableConnectors: number;
  flows: number;
  removed: { entries: number; flows: number };
}

export async function applyCatalogDocument(ctx: AppContext, scope: EnvScope, doc: unknown): Promise<ApplySummary> {
  await requireEnvironment(ctx, scope);
  const parsed = parseCatalogDocument(doc);
  const sealed = parsed.entries.map((e) => (e.secrets ? ctx.secrets.sealJson(e.secrets) : undefined));
  const now = ctx.now();
  const removed = await ctx.db.kysely.transaction().execute(async (trx) => {
    const keepEntries = new Set(parsed.entries.map((e) => `${e.entry.kind}:${e.entry.name}`));
    let entries = 0;
    for (const kind of ['source', 'target', 'connector'] as const) {
      for (const s of await store.listEntries(trx, scope, kind)) {
        if (!keepEntries.has(`${kind}:${s.entry.name}`) && await store.deleteEntry(trx, scope, kind, s.entry.name)) entries += 1;
      }
    }
    for (const [i, e] of parsed.entries.entries()) await store.putEntry(trx, scope, e.entry, sealed[i], now);
    const keepFlows = new Set(parsed.flows.map((f) => f.id));
    const previous = new Map((await store.listFlows(trx, ctx.secrets, scope)).map((f) => [f.id, f]));
    let flows = 0;
    for (const id of previous.keys()) {
      if (!keepFlows.has(id) && await store.deleteFlow(trx, scope, id)) flows += 1;
    }
    for (const flow of parsed.flows) await store.putFlow(trx, ctx.secrets, scope, keepFlowSecrets(flow, previous.get(flow.id) ?? null), now);
    return { entries, flows };
  });
  const count = (kind: CatalogKind) => parsed.entries.filter((e) => e.entry.kind === kind).length;
  return {
    status: 'applied',
    availableSources: count('source'), availableTargets: count('target'), availableConnectors: count('connector'),
    flows: parsed.flows.length, removed,
  };
}

/** The admin view of the whole catalog (no secrets; `client_secret_set` tells whether one is stored). */
export async function catalogDocument(ctx: AppContext, scope: EnvScope) {
  await requireEnvironment(ctx, scope);
  return {
    availableSources: await listAdminEntries(ctx, scope, 'source'),
    availableTargets: await listAdminEntries(ctx, scope, 'target'),
    availableConnectors: await listAdminEntries(ctx, scope, 'connector'),
    flows: await listAdminFlows(ctx, scope),
  };
}
