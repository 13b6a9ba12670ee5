// Environment administration: environments, their API keys, settings and signing key.
import type { AppContext } from '../context.ts';
import { generateApiKey, newId } from '../auth/keys.ts';
import { generateSigningKeyPair } from '../auth/jwt.ts';
import { insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRecord } from '../auth/store.ts';
import type { EnvScope, KeyType, Role } from '../auth/scope.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import * as store from './store.ts';
import { assertWebhookSettings } from '../webhooks/validate.ts';
import type { EnvironmentSettings, WebhookSecret } from './store.ts';

const ENV_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
// First path segments of our own routes: an environment with one of these ids could not be addressed.
const RESERVED_ENV_IDS = new Set(['admin', 'v2', 'tenant', 'tenants', 'healthz', 'readyz', 'docs', 'openapi.json', 'entity']);

export interface EnvironmentView extends EnvironmentSettings {
  env_id: string;
  webhook_secret_set: boolean;
  signing_key_set: boolean;
  created_at: string;
  updated_at: string;
}

export interface CreatedKey extends ApiKeyRecord {
  /** The key itself: returned once, never stored. */
  key: string;
}

export function validateEnvId(envId: string): void {
  if (!ENV_ID.test(envId)) {
    throw new BadRequestError('env_id must be 1-64 characters: letters, digits, "_", "-", "." (not first)');
  }
  if (RESERVED_ENV_IDS.has(envId)) throw new BadRequestError(`env_id "${envId}" is reserved`);
}

async function requireEnvironment(ctx: AppContext, scope: EnvScope): Promise<store.EnvironmentRow> {
  const env = await store.getEnvironment(ctx.db.kysely, scope);
  if (!env) throw new NotFoundError(`Environment "${scope.envId}" not found`);
  return env;
}

function toView(env: store.EnvironmentRow): EnvironmentView {
  return {
    env_id: env.env_id,
    ...env.settings,
    webhook_secret_set: env.webhook_secrets_enc !== null,
    signing_key_set: env.signing_public_key !== null,
    created_at: new Date(env.created_at).toISOString(),
    updated_at: new Date(env.updated_at).toISOString(),
  };
}

export async function createApiKey(
  ctx: AppContext, scope: EnvScope, spec: { type: Exclude<KeyType, 'operator'>; role?: Role; user?: string },
): Promise<CreatedKey> {
  if (spec.type === 'personal' && (!spec.role || !spec.user)) {
    throw new BadRequestError('A personal key needs "role" (admin, developer or viewer) and "user"');
  }
  if (spec.type !== 'personal' && (spec.role || spec.user)) {
    throw new BadRequestError('"role" and "user" apply to personal keys only');
  }
  await requireEnvironment(ctx, scope);
  const generated = generateApiKey(spec.type);
  const record = await insertApiKey(ctx.db.kysely, scope, {
    id: newId('key'), type: spec.type, role: spec.role ?? null, user: spec.user ?? null,
    prefix: generated.prefix, hash: generated.hash, now: ctx.now(),
  });
  return { ...record, key: generated.key };
}

export async function createEnvironment(ctx: AppContext, envId: string) {
  validateEnvId(envId);
  if (await store.environmentExists(ctx.db.kysely, envId)) {
    throw new ConflictError(`Environment "${envId}" already exists`);
  }
  await store.insertEnvironment(ctx.db.kysely, envId, ctx.now());
  const scope: EnvScope = { envId, principal: { keyId: 'system', type: 'operator', role: 'admin', user: null } };
  const environment = await createApiKey(ctx, scope, { type: 'environment' });
  const publicKey = await createApiKey(ctx, scope, { type: 'public' });
  return { env_id: envId, api_keys: { environment: environment.key, public: publicKey.key } };
}

export async function listEnvironments(ctx: AppContext): Promise<string[]> {
  return store.listEnvironmentIds(ctx.db.kysely);
}

export async function describeEnvironment(ctx: AppContext, scope: EnvScope): Promise<EnvironmentView> {
  return toView(await requireEnvironment(ctx, scope));
}

export interface SettingsPatch extends Partial<EnvironmentSettings> {
  /** New webhook secret; null removes all. The previous one stays valid for the overlap. */
  webhook_secret?: string | null;
  webhook_secret_overlap_hours?: number;
}

function rotateSecrets(ctx: AppContext, env: store.EnvironmentRow, patch: SettingsPatch): string | null | undefined {
  if (patch.webhook_secret === undefined) return undefined;
  if (patch.webhook_secret === null) return null;
  const now = ctx.now();
  const previous = env.webhook_secrets_enc ? ctx.secrets.openJson<WebhookSecret[]>(env.webhook_secrets_enc) : [];
  const overlapUntil = now + (patch.webhook_secret_overlap_hours ?? 24) * 3600_000;
  const kept = previous
    .map((s) => ({ secret: s.secret, until: s.until ?? overlapUntil }))
    .filter((s) => s.until > now && s.secret !== patch.webhook_secret)
    .slice(0, 2);
  return ctx.secrets.sealJson([{ secret: patch.webhook_secret, until: null }, ...kept]);
}

export async function updateEnvironmentSettings(ctx: AppContext, scope: EnvScope, patch: SettingsPatch): Promise<EnvironmentView> {
  const env = await requireEnvironment(ctx, scope);
  await assertWebhookSettings(ctx, patch);
  const { webhook_secret: _secret, webhook_secret_overlap_hours: _overlap, ...settingsPatch } = patch;
  const settings: EnvironmentSettings = { ...env.settings, ...settingsPatch };
  await store.updateEnvironment(ctx.db.kysely, scope, { settings, webhook_secrets_enc: rotateSecrets(ctx, env, patch) }, ctx.now());
  return describeEnvironment(ctx, scope);
}

export async function deleteEnvironment(ctx: AppContext, scope: EnvScope): Promise<{ env_id: string; deleted: boolean }> {
  const deleted = await store.deleteEnvironment(ctx.db.kysely, scope);
  if (!deleted) throw new NotFoundError(`Environment "${scope.envId}" not found`);
  return { env_id: scope.envId, deleted };
}

export async function listKeys(ctx: AppContext, scope: EnvScope): Promise<ApiKeyRecord[]> {
  await requireEnvironment(ctx, scope);
  return listApiKeys(ctx.db.kysely, scope);
}

export async function revokeKey(ctx: AppContext, scope: EnvScope, id: string): Promise<ApiKeyRecord> {
  const record = await revokeApiKey(ctx.db.kysely, scope, id, ctx.now());
  if (!record) throw new NotFoundError(`API key "${id}" not found`);
  return record;
}

export async function generateSigningKey(ctx: AppContext, scope: EnvScope) {
  await requireEnvironment(ctx, scope);
  const pair = generateSigningKeyPair();
  await store.updateEnvironment(ctx.db.kysely, scope, { signing_public_key: pair.publicKeyPem }, ctx.now());
  return { private_key: pair.privateKeyBase64, public_key: pair.publicKeyPem };
}

/** Secrets for signing webhook deliveries of this environment, current first (used by webhooks). */
export async function activeWebhookSecrets(ctx: AppContext, scope: EnvScope): Promise<string[]> {
  const env = await requireEnvironment(ctx, scope);
  if (!env.webhook_secrets_enc) return [];
  const now = ctx.now();
  return ctx.secrets.openJson<WebhookSecret[]>(env.webhook_secrets_enc)
    .filter((s) => s.until === null || s.until > now).map((s) => s.secret);
}
