// The connector catalog and flows of an environment: admin changes and the public
// (widget) reads. Entries and flows are validated before anything is stored.
import type { EnvScope } from '../auth/scope.ts';
import type { AppContext } from '../context.ts';
import { getEnvironment } from '../environments/store.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import { keepMaskedSecrets } from '../links/secrets.ts';
import { parseFlow } from './flow-validate.ts';
import { flowReferenceProblems, flowsUsing } from './references.ts';
import * as store from './store.ts';
import type { CatalogEntry, CatalogKind, ExportSide, FlowSpec } from './types.ts';
import { parseCatalogEntry } from './validate.ts';
import { adminEntry, adminFlow, publicEntry, publicFlow, type EntryView, type FlowView } from './views.ts';

export const KIND_NOUN: Record<CatalogKind, string> = { source: 'source (tap)', target: 'target', connector: 'connector' };

export async function requireEnvironment(ctx: AppContext, scope: EnvScope): Promise<void> {
  if (!(await getEnvironment(ctx.db.kysely, scope))) throw new NotFoundError(`Environment "${scope.envId}" not found`);
}

function badInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new BadRequestError((error as Error).message);
  }
}

export async function requireFlow(ctx: AppContext, scope: EnvScope, flowId: string): Promise<FlowSpec> {
  const flow = await store.getFlow(ctx.db.kysely, ctx.secrets, scope, flowId);
  if (!flow) throw new NotFoundError(`Flow "${flowId}" not found in environment "${scope.envId}"`);
  return flow;
}

export async function requireEntry(ctx: AppContext, scope: EnvScope, kind: CatalogKind, name: string): Promise<store.StoredEntry> {
  const stored = await store.getEntry(ctx.db.kysely, scope, kind, name);
  if (!stored) throw new NotFoundError(`The ${KIND_NOUN[kind]} "${name}" is not in the catalog of environment "${scope.envId}"`);
  return stored;
}

// --- admin

export async function putEntry(ctx: AppContext, scope: EnvScope, kind: CatalogKind, name: string, input: unknown): Promise<EntryView> {
  await requireEnvironment(ctx, scope);
  const body = typeof input === 'object' && input !== null ? { ...input as object, name } : input;
  const { entry, secrets } = badInput(() => parseCatalogEntry(kind, body));
  if (entry.name !== name) throw new BadRequestError(`The body names "${entry.name}" but the path names "${name}"`);
  await store.putEntry(ctx.db.kysely, scope, entry, secrets ? ctx.secrets.sealJson(secrets) : undefined, ctx.now());
  return getAdminEntry(ctx, scope, kind, name);
}

export async function getAdminEntry(ctx: AppContext, scope: EnvScope, kind: CatalogKind, name: string): Promise<EntryView> {
  const stored = await requireEntry(ctx, scope, kind, name);
  return adminEntry(stored.entry, stored.secretsEnc);
}

export async function listAdminEntries(ctx: AppContext, scope: EnvScope, kind: CatalogKind): Promise<EntryView[]> {
  return (await store.listEntries(ctx.db.kysely, scope, kind)).map((s) => adminEntry(s.entry, s.secretsEnc));
}

export async function deleteEntry(ctx: AppContext, scope: EnvScope, kind: CatalogKind, name: string) {
  await requireEntry(ctx, scope, kind, name);
  const users = flowsUsing(await store.listFlows(ctx.db.kysely, ctx.secrets, scope), kind, name);
  if (users.length > 0) throw new ConflictError(`The ${KIND_NOUN[kind]} "${name}" is used by flow(s) ${users.join(', ')}; change them first`);
  await store.deleteEntry(ctx.db.kysely, scope, kind, name);
  return { status: 'deleted', kind, name };
}

async function catalogLookup(ctx: AppContext, scope: EnvScope) {
  const entries = new Map<string, CatalogEntry>();
  for (const kind of ['source', 'target', 'connector'] as const) {
    for (const s of await store.listEntries(ctx.db.kysely, scope, kind)) entries.set(`${kind}:${s.entry.name}`, s.entry);
  }
  return (kind: CatalogKind, name: string) => entries.get(`${kind}:${name}`);
}

/** A masked secret sent back in an export config keeps the stored value. */
export function keepFlowSecrets(flow: FlowSpec, previous: FlowSpec | null): FlowSpec {
  if (!previous) return flow;
  const keep = (side: ExportSide | null, old: ExportSide | null): ExportSide | null =>
    side && old && side.name === old.name ? { ...side, config: keepMaskedSecrets(side.config, old.config) } : side;
  return { ...flow, export: keep(flow.export, previous.export), readExport: keep(flow.readExport, previous.readExport), writeSource: keep(flow.writeSource, previous.writeSource) };
}

export async function putFlow(ctx: AppContext, scope: EnvScope, flowId: string, input: unknown): Promise<FlowView> {
  await requireEnvironment(ctx, scope);
  const flow = badInput(() => parseFlow(input, flowId));
  const problems = flowReferenceProblems(flow, await catalogLookup(ctx, scope));
  if (problems.length > 0) throw new BadRequestError(problems.join('; '));
  const previous = await store.getFlow(ctx.db.kysely, ctx.secrets, scope, flowId);
  await store.putFlow(ctx.db.kysely, ctx.secrets, scope, keepFlowSecrets(flow, previous), ctx.now());
  return adminFlow(await requireFlow(ctx, scope, flowId));
}

export async function getAdminFlow(ctx: AppContext, scope: EnvScope, flowId: string): Promise<FlowView> {
  return adminFlow(await requireFlow(ctx, scope, flowId));
}

export async function listAdminFlows(ctx: AppContext, scope: EnvScope): Promise<FlowView[]> {
  return (await store.listFlows(ctx.db.kysely, ctx.secrets, scope)).map(adminFlow);
}

/** Removes a flow definition; tenants' links in it stay until unlinked or the tenant is deleted. */
export async function deleteFlow(ctx: AppContext, scope: EnvScope, flowId: string) {
  await requireFlow(ctx, scope, flowId);
  await store.deleteFlow(ctx.db.kysely, scope, flowId);
  return { status: 'deleted', flow_id: flowId };
}

// --- public reads (widgets): no run specs, no secrets

export async function availableEntries(ctx: AppContext, scope: EnvScope, kind: CatalogKind): Promise<EntryView[]> {
  return (await store.listEntries(ctx.db.kysely, scope, kind)).map((s) => publicEntry(s.entry));
}

export async function supportedFlows(ctx: AppContext, scope: EnvScope): Promise<FlowView[]> {
  return (await store.listFlows(ctx.db.kysely, ctx.secrets, scope)).map(publicFlow);
}

export async function supportedFlow(ctx: AppContext, scope: EnvScope, flowId: string): Promise<FlowView> {
  return publicFlow(await requireFlow(ctx, scope, flowId));
}

const FLOW_MEMBER: Record<CatalogKind, 'taps' | 'targets' | 'connectors'> = { source: 'taps', target: 'targets', connector: 'connectors' };

/** The catalog entries a flow offers, in the flow's order. */
export async function flowEntries(ctx: AppContext, scope: EnvScope, flowId: string, kind: CatalogKind): Promise<EntryView[]> {
  const flow = await requireFlow(ctx, scope, flowId);
  if (kind === 'connector' && flow.version !== 2) throw new BadRequestError(`Flow "${flowId}" is a v1 flow: it offers sources and targets, not connectors`);
  if (kind !== 'connector' && flow.version !== 1) throw new BadRequestError(`Flow "${flowId}" is a v2 flow: it offers connectors (see /v2/${scope.envId}/${flowId}/supportedConnectors)`);
  const views: EntryView[] = [];
  for (const name of flow[FLOW_MEMBER[kind]]) {
    const stored = await store.getEntry(ctx.db.kysely, scope, kind, name);
    if (stored) views.push(publicEntry(stored.entry));
  }
  return views;
}
