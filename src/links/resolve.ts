// A link's live config: its own, or for a symlinked link the original's (read anew
// each time, so credential changes of the original apply at once).
import type { Kysely } from 'kysely';
import { tenantScopeOf, type TenantScope } from '../auth/scope.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/types.ts';
import { getLink } from './store.ts';
import type { LinkRow } from './types.ts';

export interface LiveConfig {
  config: Record<string, unknown>;
  disconnected: boolean;
  /** Why the link is disconnected (no secrets). */
  error: string | null;
}

export function openConfig(secrets: SecretBox, configEnc: string | null): Record<string, unknown> {
  return configEnc ? secrets.openJson<Record<string, unknown>>(configEnc) : {};
}

export function describeSymlink(link: LinkRow): string {
  const ref = link.symlink;
  if (!ref) return '';
  return `"${ref.name}" of tenant "${ref.tenant}" in flow "${ref.flow_id}"`;
}

export async function liveConfig(db: Kysely<Database>, secrets: SecretBox, scope: TenantScope, link: LinkRow): Promise<LiveConfig> {
  if (!link.symlink) return { config: openConfig(secrets, link.configEnc), disconnected: false, error: null };
  const ref = link.symlink;
  const original = await getLink(db, tenantScopeOf(scope, ref.tenant), ref.flow_id, { kind: ref.kind ?? link.kind, name: ref.name });
  if (!original || original.symlink) {
    return {
      config: {},
      disconnected: true,
      error: `This link shared the credentials of ${describeSymlink(link)}, which was unlinked; link it again`,
    };
  }
  return { config: openConfig(secrets, original.configEnc), disconnected: false, error: null };
}
