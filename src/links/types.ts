// A tenant's link to a catalog entry inside one flow, as the services see it.
import type { FieldMap } from './field-map.ts';

export type LinkKind = 'source' | 'target' | 'connector';

export interface LinkKey {
  kind: LinkKind;
  name: string;
}

/** Where a symlinked link takes its credentials from (always the same environment). */
export interface SymlinkRef {
  flow_id: string;
  tenant: string;
  name: string;
  /** Kind of the original when it differs (a v2 connector may share a v1 source's credentials). */
  kind?: LinkKind;
}

export interface StoredCatalog {
  catalog: unknown;
  /** fieldMapHash() of the field map the catalog was discovered with. */
  field_map_hash: string | null;
  discovered_at: number;
}

export type DiscoverStatus = 'DISCOVER_STARTED' | 'DISCOVER_SUCCESS' | 'DISCOVER_FAILED';

/** The link's latest discovery outside jobs (columns of 011_discoveries). */
export interface DiscoveryState {
  status: DiscoverStatus;
  message: string | null;
  /** Names the run that owns the state; a newer run replaces it. */
  token: string | null;
  startedAt: number;
  finishedAt: number | null;
  /** Moves while the run is alive; an old one means its process is gone. */
  heartbeatAt: number | null;
}

export interface LinkRow {
  flowId: string;
  tenant: string;
  kind: LinkKind;
  name: string;
  /** Sealed config; null for a symlinked link (its config is the original's). */
  configEnc: string | null;
  fieldMap: FieldMap | null;
  catalog: StoredCatalog | null;
  state: unknown;
  symlink: SymlinkRef | null;
  /** Set by a PATCH whose config carries isReconnecting (OAuth reconnect); linking again clears it. */
  isReconnecting: boolean;
  discovery: DiscoveryState | null;
  createdAt: number;
  updatedAt: number;
}
