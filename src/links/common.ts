// Shared steps of the link operations: the flow must exist and be of the right
// version, the catalog entry must be offered by it; events go out in the change's transaction.
import type { Kysely } from 'kysely';
import type { EnvScope, TenantScope } from '../auth/scope.ts';
import { requireFlow } from '../catalog/service.ts';
import { getEntry } from '../catalog/store.ts';
import type { CatalogEntry, FlowSpec } from '../catalog/types.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { recordEvent, type WebhookEventType } from '../webhooks/outbox.ts';
import { getLink } from './store.ts';
import type { LinkKind, LinkRow } from './types.ts';

export const KIND_NOUN: Record<LinkKind, string> = { source: 'source', target: 'target', connector: 'connector' };
export const NAME_PARAM: Record<LinkKind, string> = { source: 'tap', target: 'target', connector: 'connector_id' };
const FLOW_MEMBER = { source: 'taps', target: 'targets', connector: 'connectors' } as const;

/** The flow, checked to serve links of `kind` (v1: sources and targets; v2: connectors). */
export async function flowFor(ctx: AppContext, scope: EnvScope, flowId: string, kind: LinkKind): Promise<FlowSpec> {
  const flow = await requireFlow(ctx, scope, flowId);
  if (kind === 'connector' && flow.version !== 2) {
    throw new BadRequestError(`Flow "${flowId}" is a v1 flow: link sources at /${scope.envId}/${flowId}/{tenant}/linkedSources`);
  }
  if (kind !== 'connector' && flow.version !== 1) {
    throw new BadRequestError(`Flow "${flowId}" is a v2 flow: link connectors at /v2/${scope.envId}/${flowId}/{tenant}/linkedConnectors`);
  }
  return flow;
}

export function offeredNames(flow: FlowSpec, kind: LinkKind): string[] {
  return flow[FLOW_MEMBER[kind]];
}

/** The catalog entry of `name`, which the flow must offer. */
export async function offeredEntry(ctx: AppContext, scope: EnvScope, flow: FlowSpec, kind: LinkKind, name: string): Promise<CatalogEntry> {
  const noun = kind === 'source' ? 'source (tap)' : KIND_NOUN[kind];
  if (!offeredNames(flow, kind).includes(name)) {
    throw new BadRequestError(`The ${noun} "${name}" is not offered by flow "${flow.id}" (offered: ${offeredNames(flow, kind).join(', ') || 'none'})`);
  }
  const stored = await getEntry(ctx.db.kysely, scope, kind, name);
  if (!stored) throw new BadRequestError(`The ${noun} "${name}" is not in the catalog of environment "${scope.envId}"`);
  return stored.entry;
}

export async function linkEvent(
  db: Kysely<Database>, ctx: AppContext, scope: TenantScope, type: WebhookEventType, flowId: string, kind: LinkKind, name: string,
): Promise<void> {
  await recordEvent(db, ctx, scope, {
    type,
    orderingKey: `link:${flowId}:${scope.tenant}:${kind}:${name}`,
    data: { flow_id: flowId, tenant: scope.tenant, kind, [NAME_PARAM[kind]]: name },
  });
}

/** The link must exist (404 otherwise). */
export async function requireLink(ctx: AppContext, scope: TenantScope, flowId: string, kind: LinkKind, name: string): Promise<LinkRow> {
  const link = await getLink(ctx.db.kysely, scope, flowId, { kind, name });
  if (!link) throw new NotFoundError(`Tenant "${scope.tenant}" has not linked the ${KIND_NOUN[kind]} "${name}" in flow "${flowId}"`);
  return link;
}

export function badInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new BadRequestError((error as Error).message);
  }
}
